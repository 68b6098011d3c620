// A worker of the studies' pool (pool.ts): runs one setup study (study.ts) on the bars it is
// given and answers the study, so a 50-symbol, 2-year study never holds the server's event loop;
// and draws a symbol's demo history (the demo feed's path is CPU work, hundreds of ms for two
// years of a futures contract's minutes), so a cold study on the demo feed does not either.
// It keeps nothing between tasks.
import type { StudyResponse } from '../../shared/schemas/scans.ts';
import { createDemoFeed } from '../market/service.ts';
import type { CandleRow, Granularity } from '../market/service.ts';
import { runStudy, type StudyInput } from './study.ts';

const DAY = 86_400_000;

/** The demo history of one symbol in [start, end), as the provider would answer it at `now`. */
export interface DemoHistoryTask {
  kind: 'demo-history';
  productId: string;
  granularity: Granularity;
  start: number;
  end: number;
  now: number;
}

export type StudyTask = { kind: 'study'; input: StudyInput } | DemoHistoryTask;

export default async function runStudyTask(task: StudyTask): Promise<StudyResponse | CandleRow[]> {
  if (task.kind === 'study') return runStudy(task.input);
  const days = Math.ceil((task.now - task.start) / DAY) + 1;
  const feed = createDemoFeed({ now: () => task.now, keepHourDays: days, keepMinuteDays: days });
  return feed.candles(task.productId, task.granularity, new Date(task.start), new Date(task.end));
}
