// The worker pool the track record's walk-forward runs in (piscina over backtestWorker.ts), so
// an uncached backtest (about a second of CPU on a 1m history) never holds the event loop that
// answers every other request. Bounded: `threads` workers, at most `maxQueue` backtests waiting;
// past that a caller gets a 503 with Retry-After at once instead of a place in a long line.
// Cancellable: a task given an aborted signal leaves the queue without costing a worker a
// moment, and one already running is stopped with its worker (piscina terminates it). That is
// safe here, unlike the spreadsheet reader's (sheetPool.ts): the walk is plain arithmetic on
// typed arrays, with no native stream (zlib) whose teardown a termination could interrupt.
// Workers start on demand, stay for `idleMs` after their last task, and end with close().
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { DomainError, unavailable } from '../errors/domain.ts';
import type { BacktestTask, PooledBacktest } from './backtestWorker.ts';

export type { BacktestTask, PooledBacktest } from './backtestWorker.ts';

const BACKTEST_WORKER_ENTRY = new URL('./backtestWorkerEntry.mjs', import.meta.url);

/** Retry-After (s) of a full queue: about the time the worker needs to take a few more. */
const BUSY_RETRY_SECONDS = 5;

export interface BacktestPoolOptions {
  threads: number;
  /** Backtests waiting for a worker, at most. */
  maxQueue: number;
  /** A worker with nothing to do for this long is stopped. */
  idleMs?: number;
}

/** What the pool has done since it started (the tests and the bench read these). */
export interface BacktestPoolStats {
  /** Waiting for a worker now. */
  queued: number;
  /** Taken by a worker now (started or starting). */
  running: number;
  /** Finished in a worker, answered or failed (a cancelled queued task never gets here). */
  completed: number;
  /** Cancelled by their caller (queued or running). */
  cancelled: number;
  /** Refused because the queue was full. */
  refused: number;
}

/** The client went away (or the caller gave up): the backtest was dropped. */
class BacktestCancelledError extends DomainError {
  constructor() {
    super('unavailable', 'The backtest was cancelled because its request was closed.');
  }
}

export function defaultBacktestThreads(): number {
  // One core stays with the event loop: one worker on a 2-core machine, up to 4 on larger ones.
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

export function createBacktestPool(options: BacktestPoolOptions) {
  const pool = new Piscina<BacktestTask, PooledBacktest>({
    filename: BACKTEST_WORKER_ENTRY.href,
    minThreads: 0,
    maxThreads: options.threads,
    // The bound is counted in run() below: piscina's own maxQueue also lends a place to each
    // worker still starting, so a cold pool would take more than `maxQueue` waiting.
    idleTimeout: options.idleMs ?? 60_000,
    // Explicit: the parent's own flags (a test runner's, --inspect) are not the worker's business.
    execArgv: [],
    // A 1500-bar walk needs a few MB; the cap keeps a runaway one from costing the server.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  let inFlight = 0;
  let cancelled = 0;
  let refused = 0;

  return {
    /** The walk-forward in a worker; BacktestCancelledError when `signal` aborts first. */
    async run(task: BacktestTask, signal?: AbortSignal): Promise<PooledBacktest> {
      if (inFlight >= options.threads + options.maxQueue) {
        refused += 1;
        throw unavailable(
          'The server is busy running other backtests; try again in a few seconds.',
          BUSY_RETRY_SECONDS,
        );
      }
      inFlight += 1;
      try {
        return await pool.run(task, { signal: signal ?? null });
      } catch (error) {
        if (error instanceof Error && error.name === 'AbortError') {
          cancelled += 1;
          throw new BacktestCancelledError();
        }
        throw error;
      } finally {
        inFlight -= 1;
      }
    },

    stats(): BacktestPoolStats {
      return {
        queued: pool.queueSize,
        running: inFlight - pool.queueSize,
        completed: pool.completed,
        cancelled,
        refused,
      };
    },

    /** Stops every worker; backtests still queued or running are refused. */
    async close(): Promise<void> {
      await pool.destroy();
    },
  };
}

export type BacktestPool = ReturnType<typeof createBacktestPool>;
