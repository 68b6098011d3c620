// A worker of the studies' pool (pool.ts): runs one setup study (study.ts) on the bars it is
// given and answers the study, so a 50-symbol, 2-year study never holds the server's event loop;
// and draws a symbol's demo history (the demo path is CPU work, a hundred ms or more for two
// years of a crypto's minutes folded into hours), so a cold study on the demo feed does not
// either; the history goes back as columns, not a bar object each. It keeps nothing between tasks.
import type { StudyResponse } from '../../shared/schemas/scans.ts';
import { demoCandleColumns, type DemoColumns, type Granularity } from '../market/demoService.ts';
import { runStudy, type StudyInput } from './study.ts';

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

export default function runStudyTask(task: StudyTask): StudyResponse | DemoColumns {
  if (task.kind === 'study') return runStudy(task.input);
  return demoCandleColumns(task.productId, task.granularity, task.start, task.end, task.now);
}
