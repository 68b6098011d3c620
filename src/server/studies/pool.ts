// The worker pool the setup studies run in (piscina over worker.ts), the track record's
// backtest pool's pattern (forecasts/backtestPool.ts): a study of 50 symbols over two years of
// hourly bars is a few hundred milliseconds of CPU that must never hold the event loop answering
// every other request. Bounded: `threads` workers, at most `maxQueue` studies waiting (past that
// a 503 with Retry-After at once). Cancellable: an aborted signal drops a queued study or stops a
// running one with its worker (plain arithmetic on typed arrays: safe to terminate).
import { Piscina } from 'piscina';
import type { StudyResponse } from '../../shared/schemas/scans.ts';
import { DomainError, unavailable } from '../errors/domain.ts';
import type { DemoColumns } from '../market/demoService.ts';
import type { StudyInput } from './study.ts';
import type { DemoHistoryTask, StudyTask } from './worker.ts';

const STUDY_WORKER_ENTRY = new URL('./workerEntry.mjs', import.meta.url);
const BUSY_RETRY_SECONDS = 5;

export interface StudyPoolOptions {
  threads: number;
  maxQueue: number;
  idleMs?: number;
}

class StudyCancelledError extends DomainError {
  constructor() {
    super('unavailable', 'The study was cancelled because its request was closed.');
  }
}

export function createStudyPool(options: StudyPoolOptions) {
  const pool = new Piscina<StudyTask, StudyResponse | DemoColumns>({
    filename: STUDY_WORKER_ENTRY.href,
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: options.idleMs ?? 60_000,
    execArgv: [],
    // 50 symbols x 2 years of hourly bars arrive as ~40 MB of columns; the cap leaves room for that.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  let inFlight = 0;
  let completed = 0;
  return {
    /** The study in a worker; a 503 when the queue is full; StudyCancelledError when `signal` aborts first. */
    async run(task: StudyInput, signal?: AbortSignal): Promise<StudyResponse> {
      if (inFlight >= options.threads + options.maxQueue)
        throw unavailable('The server is busy running other studies; try again in a few seconds.', BUSY_RETRY_SECONDS);
      inFlight += 1;
      try {
        const answer = (await pool.run({ kind: 'study', input: task }, { signal: signal ?? null })) as StudyResponse;
        completed += 1;
        return answer;
      } catch (error) {
        if (error instanceof Error && error.name === 'AbortError') throw new StudyCancelledError();
        throw error;
      } finally {
        inFlight -= 1;
      }
    },
    /** A symbol's demo history drawn in a worker (not counted against the studies' queue: a study waits for it). */
    async demoHistory(task: Omit<DemoHistoryTask, 'kind'>): Promise<DemoColumns> {
      return (await pool.run({ kind: 'demo-history', ...task })) as DemoColumns;
    },
    stats: () => ({ inFlight, queued: pool.queueSize, completed }),
    async close(): Promise<void> {
      await pool.destroy();
    },
  };
}

export type StudyPool = ReturnType<typeof createStudyPool>;
