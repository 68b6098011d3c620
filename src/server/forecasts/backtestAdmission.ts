// Who may start an uncached backtest now (issue 33): at most `concurrentPerUser` of one user's
// backtests running or waiting for a worker at once (counted in this process), and at most
// `perMinute` started a minute (a fixed-window counter: in Redis when configured, so every
// instance counts together). Both refusals are rate-limited domain errors: 429 with
// Retry-After and a message saying what to wait for. Answers from the cache never get here.
import { rateLimited } from '../errors/domain.ts';
import { waitText, type CounterStore } from '../http/rateLimit.ts';

/** Retry-After (s) while the user's previous backtest runs: about one backtest's time. */
const STILL_RUNNING_RETRY_SECONDS = 2;
const WINDOW_MS = 60_000;

export interface BacktestAdmissionOptions {
  store: CounterStore;
  /** Full counter-key prefix, e.g. `${config.redisPrefix}backtest:`. */
  keyPrefix: string;
  perMinute: number;
  concurrentPerUser: number;
}

/** Admits one backtest of `who` (a user id) or throws 429; the answer releases its place. */
export type BacktestAdmission = (who: string) => Promise<() => void>;

export function createBacktestAdmission(options: BacktestAdmissionOptions): BacktestAdmission {
  const inFlight = new Map<string, number>();
  const release = (who: string) => {
    const left = (inFlight.get(who) ?? 1) - 1;
    if (left <= 0) inFlight.delete(who);
    else inFlight.set(who, left);
  };
  return async (who) => {
    const mine = inFlight.get(who) ?? 0;
    if (mine >= options.concurrentPerUser)
      throw rateLimited(
        options.concurrentPerUser === 1
          ? 'Your previous backtest is still running. Wait for its answer, then try again.'
          : `You already have ${mine} backtests running. Wait for their answers, then try again.`,
        STILL_RUNNING_RETRY_SECONDS,
      );
    // Taken before the counter's await, so two requests arriving together cannot both pass.
    inFlight.set(who, mine + 1);
    try {
      const { count, ttlMs } = await options.store.hit(`${options.keyPrefix}user:${who}`, WINDOW_MS);
      if (count > options.perMinute)
        throw rateLimited(
          `Too many backtests: at most ${options.perMinute} new backtests a minute. Please wait ${waitText(ttlMs)} and try again.`,
          ttlMs / 1000,
        );
    } catch (error) {
      release(who);
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release(who);
    };
  };
}
