// Who may start an uncached backtest now (issue 33): at most `concurrentPerUser` of one user's
// backtests running or waiting for a worker at once (counted in this process: no rate-limit
// library bounds work in flight, see ADR 0015), and at most `perMinute` started a minute
// (@fastify/rate-limit's counter, in Redis when configured, so every instance counts
// together). Both refusals are rate-limited domain errors: 429 with Retry-After and a message
// saying what to wait for. Answers from the cache never get here.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rateLimited } from '../errors/domain.ts';
import { userOrAddress, waitText } from '../http/rateLimit.ts';
import { requireUser } from '../http/requestUser.ts';

/** Retry-After (s) while the user's previous backtest runs: about one backtest's time. */
const STILL_RUNNING_RETRY_SECONDS = 2;
const WINDOW_MS = 60_000;

export interface BacktestAdmissionOptions {
  perMinute: number;
  concurrentPerUser: number;
  /** What is admitted, in the refusals' words and the counter's key (default backtest, backtests). */
  noun?: { one: string; many: string };
}

/** Admits one backtest of the request's user or throws 429; the answer releases its place. */
export type BacktestAdmission = (request: FastifyRequest) => Promise<() => void>;

/** The admission of an app that has registered the rate limits (http/rateLimit.ts). */
export function createBacktestAdmission(app: FastifyInstance, options: BacktestAdmissionOptions): BacktestAdmission {
  const { one, many } = options.noun ?? { one: 'backtest', many: 'backtests' };
  const countStart = app.createRateLimit({
    max: options.perMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => `${one}:${userOrAddress(request)}`,
  });
  const inFlight = new Map<string, number>();
  const release = (who: string) => {
    const left = (inFlight.get(who) ?? 1) - 1;
    if (left <= 0) inFlight.delete(who);
    else inFlight.set(who, left);
  };
  return async (request) => {
    const who = requireUser(request).id;
    const mine = inFlight.get(who) ?? 0;
    if (mine >= options.concurrentPerUser)
      throw rateLimited(
        options.concurrentPerUser === 1
          ? `Your previous ${one} is still running. Wait for its answer, then try again.`
          : `You already have ${mine} ${many} running. Wait for their answers, then try again.`,
        STILL_RUNNING_RETRY_SECONDS,
      );
    // Taken before the counter's await, so two requests arriving together cannot both pass.
    inFlight.set(who, mine + 1);
    try {
      const counted = await countStart(request);
      if (!counted.isAllowed && counted.isExceeded)
        throw rateLimited(
          `Too many ${many}: at most ${options.perMinute} new ${many} a minute. Please wait ${waitText(counted.ttl)} and try again.`,
          counted.ttl / 1000,
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
