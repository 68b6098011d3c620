// Demand across instances: each instance's whole set replaces its last one, an empty one
// withdraws it, and one not renewed within the time to live stops counting.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAlertBus } from '../alerts/service.ts';
import { createDemandBook, followDemand } from './demand.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('demand book', () => {
  it('keeps the union of the instances that renew, and drops the silent ones', () => {
    let now = 0;
    const book = createDemandBook({ ttlMs: 15_000, now: () => now });
    expect(book.note('a', ['BTC-USD', 'AAPL'])).toBe(true);
    expect(book.note('b', ['AAPL', 'ETH-USD'])).toBe(true);
    expect(book.symbols()).toEqual(['AAPL', 'BTC-USD', 'ETH-USD']);
    // The same set again (a renewal): no change.
    expect(book.note('a', ['AAPL', 'BTC-USD'])).toBe(false);
    expect(book.note('a', ['AAPL'])).toBe(true);
    expect(book.symbols()).toEqual(['AAPL', 'ETH-USD']);

    now = 10_000;
    book.note('a', ['AAPL']);
    now = 16_000;
    // b last spoke at 0: gone; a spoke at 10,000: kept.
    expect(book.prune()).toBe(true);
    expect(book.symbols()).toEqual(['AAPL']);
    expect(book.prune()).toBe(false);
    expect(book.note('a', [])).toBe(true);
    expect(book.symbols()).toEqual([]);
  });

  it('follows the bus and tells each change, an expiry included', async () => {
    vi.useFakeTimers({ now: 0 });
    const bus = createAlertBus();
    const changes: string[][] = [];
    const stop = followDemand(bus, (symbols) => changes.push(symbols), { ttlMs: 15_000, sweepMs: 1_000 });
    await bus.publishDemand('a', ['BTC-USD']);
    await bus.publishDemand('b', ['AAPL']);
    await bus.publishDemand('b', ['AAPL']);
    expect(changes).toEqual([['BTC-USD'], ['AAPL', 'BTC-USD']]);
    await vi.advanceTimersByTimeAsync(10_000);
    await bus.publishDemand('a', ['BTC-USD']);
    await vi.advanceTimersByTimeAsync(7_000);
    expect(changes).toEqual([['BTC-USD'], ['AAPL', 'BTC-USD'], ['BTC-USD']]);
    stop();
    await bus.publishDemand('c', ['SOL-USD']);
    expect(changes).toHaveLength(3);
    await bus.close();
  });
});
