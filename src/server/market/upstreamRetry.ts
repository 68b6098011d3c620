// How the market providers' HTTP requests (Coinbase, Yahoo) are tried again, on p-retry: an
// attempt that got no answer, timed out, or was answered 5xx or 429 is repeated up to `retries`
// times, after a backoff of `backoffMs` doubling each time; after a 429, no sooner than its
// Retry-After either (at most MAX_RETRY_AFTER_MS). An answer that asking again will not change (a
// 4xx other than 429, garbage in a 200) ends the attempts at once: the attempt throws it through
// `giveUp`. When every attempt failed, the last one's error is the answer.
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry, { AbortError } from 'p-retry';
import { UpstreamError } from './types.ts';

/** The longest Retry-After honoured: a provider asking for more gets its error after this. */
const MAX_RETRY_AFTER_MS = 10_000;

/** A 429, with how long the provider asked us to wait (null: it did not say). */
export class RateLimitedError extends UpstreamError {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message, 429);
  }
}

/** A Retry-After header (seconds, or an HTTP date) in ms, within [0, MAX_RETRY_AFTER_MS]; null when absent or unreadable. */
export function retryAfterMs(header: string | null): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

/** Ends the attempts with `error` (thrown from an attempt): no retry will change it. */
export function giveUp(error: Error): never {
  throw new AbortError(error);
}

export interface RetryOptions {
  retries: number;
  backoffMs: number;
  /** The caller's own abort: no further attempt, and no wait, once it fires. */
  signal?: AbortSignal;
}

/** `attempt` until it answers, at most `retries` more times (see the header). */
export function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  return pRetry(attempt, {
    retries: options.retries,
    factor: 2,
    minTimeout: options.backoffMs,
    randomize: false,
    ...(options.signal ? { signal: options.signal } : {}),
    // Called before p-retry's own backoff: wait whatever Retry-After asks beyond it.
    async onFailedAttempt({ error, retriesLeft, retriesConsumed }) {
      if (retriesLeft === 0 || !(error instanceof RateLimitedError) || error.retryAfterMs === null) return;
      const extra = error.retryAfterMs - options.backoffMs * 2 ** retriesConsumed;
      // Cut short by the caller's abort; p-retry then stops with the signal's reason.
      if (extra > 0) await sleep(extra, undefined, { signal: options.signal }).catch(() => undefined);
    },
  });
}
