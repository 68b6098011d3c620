// The providers' retry discipline on p-retry: how many attempts, which failures end them at once,
// how long a 429's Retry-After holds the next attempt back, and the caller's abort.
import { describe, expect, it } from 'vitest';
import { UpstreamError } from './types.ts';
import { giveUp, RateLimitedError, retryAfterMs, withRetries } from './upstreamRetry.ts';

/** An attempt that fails with each of `failures` in turn, then answers 'ok'; counts its calls. */
function failing(...failures: Error[]) {
  const calls: number[] = [];
  const attempt = async () => {
    calls.push(performance.now());
    const failure = failures[calls.length - 1];
    if (failure instanceof UpstreamError && failure.status === 404) giveUp(failure);
    if (failure) throw failure;
    return 'ok';
  };
  return { attempt, calls };
}

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, caps at 10 s, and ignores what it cannot read', () => {
    expect(retryAfterMs('2')).toBe(2_000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs('3600')).toBe(10_000);
    const date = retryAfterMs(new Date(Date.now() + 5_000).toUTCString());
    expect(date).toBeGreaterThan(3_000);
    expect(date).toBeLessThanOrEqual(5_000);
    expect(retryAfterMs(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs(' ')).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });
});

describe('withRetries', () => {
  it('tries again after a doubling backoff, and answers with the first success', async () => {
    const { attempt, calls } = failing(new UpstreamError('down'), new UpstreamError('down'));
    await expect(withRetries(attempt, { retries: 2, backoffMs: 20 })).resolves.toBe('ok');
    expect(calls).toHaveLength(3);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(18);
    expect(calls[2]! - calls[1]!).toBeGreaterThanOrEqual(38);
  });

  it('gives the last error once the retries are spent', async () => {
    const { attempt, calls } = failing(new UpstreamError('first'), new UpstreamError('second'));
    await expect(withRetries(attempt, { retries: 1, backoffMs: 1 })).rejects.toThrow('second');
    expect(calls).toHaveLength(2);
  });

  it('stops at once on an answer a retry will not change, with that answer', async () => {
    const notFound = new UpstreamError('answered HTTP 404', 404);
    const { attempt, calls } = failing(notFound);
    await expect(withRetries(attempt, { retries: 3, backoffMs: 1 })).rejects.toBe(notFound);
    expect(calls).toHaveLength(1);
  });

  it("waits a 429's Retry-After when it is longer than the backoff, and the backoff otherwise", async () => {
    const slow = failing(new RateLimitedError('rate limited', 150));
    await withRetries(slow.attempt, { retries: 1, backoffMs: 10 });
    expect(slow.calls[1]! - slow.calls[0]!).toBeGreaterThanOrEqual(145);

    const quick = failing(new RateLimitedError('rate limited', 0));
    await withRetries(quick.attempt, { retries: 1, backoffMs: 60 });
    expect(quick.calls[1]! - quick.calls[0]!).toBeGreaterThanOrEqual(55);
  });

  it("stops waiting out a 429's Retry-After when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const { attempt, calls } = failing(new RateLimitedError('429', 10_000));
    const started = performance.now();
    setTimeout(() => controller.abort(new Error('the caller left')), 50);
    await expect(withRetries(attempt, { retries: 3, backoffMs: 1, signal: controller.signal })).rejects.toThrow(
      'the caller left',
    );
    expect(calls).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("makes no further attempt once the caller's signal aborts", async () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const attempt = async () => {
      calls.push(performance.now());
      controller.abort(new Error('the caller left'));
      throw new UpstreamError('down');
    };
    await expect(withRetries(attempt, { retries: 3, backoffMs: 1, signal: controller.signal })).rejects.toThrow(
      'the caller left',
    );
    expect(calls).toHaveLength(1);
  });
});
