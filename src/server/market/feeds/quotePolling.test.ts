// The quote-polling feed: with a scripted provider (the provider interface is ours) for batching,
// change detection, delay labels, failures and overlapping polls; and once through the real Yahoo
// provider against the local fake Yahoo (fakeYahoo.ts), one v7 request per poll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedTick } from '../../live/types.ts';
import { fakeYahooPrice, startFakeYahoo, type FakeYahoo } from '../../testing/fakeYahoo.ts';
import type { MarketDataProvider, QuoteResult } from '../types.ts';
import { createYahooProvider } from '../yahoo.ts';
import { createQuotePollingFeed, type QuotePollingFeedOptions } from './quotePolling.ts';

const NOW = Date.UTC(2026, 0, 14, 15, 10, 30);

/** A timer the test fires by hand. */
function manualTimer() {
  let callback: (() => void) | null = null;
  let cancelled = false;
  return {
    schedule: (run: () => void) => {
      callback = run;
      return () => {
        cancelled = true;
      };
    },
    fire: () => callback?.(),
    get cancelled() {
      return cancelled;
    },
  };
}

interface Scripted {
  provider: MarketDataProvider;
  calls: string[][];
  /** The price and time each symbol answers now (missing: an error for that symbol). */
  book: Map<string, { price: number; at: number; delayed?: boolean; delayMinutes?: number }>;
  /** When set, quotes() throws this. */
  failWith: Error | null;
  /** When set, quotes() waits for this before answering. */
  gate: Promise<void> | null;
}

function scripted(): Scripted {
  const state: Scripted = {
    calls: [],
    book: new Map(),
    failWith: null,
    gate: null,
    provider: {
      source: 'yahoo',
      async quotes(ids) {
        state.calls.push([...ids]);
        if (state.gate) await state.gate;
        if (state.failWith) throw state.failWith;
        const results = new Map<string, QuoteResult>();
        for (const id of ids) {
          const entry = state.book.get(id);
          results.set(
            id,
            entry
              ? {
                  ok: true,
                  quote: {
                    productId: id,
                    spot: entry.price,
                    buy: entry.price,
                    sell: entry.price,
                    at: new Date(entry.at),
                    delayed: entry.delayed ?? false,
                    ...(entry.delayMinutes === undefined ? {} : { delayMinutes: entry.delayMinutes }),
                  },
                }
              : { ok: false, error: `no quote for ${id}` },
          );
        }
        return results;
      },
      candles: async () => [],
    },
  };
  return state;
}

function harness(provider: MarketDataProvider, overrides: Partial<QuotePollingFeedOptions> = {}) {
  const timer = manualTimer();
  const feed = createQuotePollingFeed({ provider, schedule: timer.schedule, ...overrides });
  const ticks: FeedTick[] = [];
  const gaps: string[][] = [];
  feed.onTick((tick) => ticks.push(tick));
  feed.onGap((symbols) => gaps.push([...symbols]));
  return { feed, timer, ticks, gaps };
}

describe('quote polling feed (scripted provider)', () => {
  it('polls the carried symbols in batches and emits a tick only when price or time changed', async () => {
    const state = scripted();
    state.book.set('AAPL', { price: 255.1, at: NOW });
    state.book.set('SPY', { price: 670.2, at: NOW });
    state.book.set('ES1!', { price: 6790.25, at: NOW, delayed: true });
    const { feed, ticks } = harness(state.provider, { batch: 2 });
    feed.setSymbols(['AAPL', 'SPY', 'ES1!']);
    await feed.poll();
    expect(state.calls).toEqual([['AAPL', 'SPY'], ['ES1!']]);
    expect(ticks).toEqual([
      { symbol: 'AAPL', price: 255.1, time: NOW, size: 0, source: 'yahoo', delayMinutes: 0 },
      { symbol: 'SPY', price: 670.2, time: NOW, size: 0, source: 'yahoo', delayMinutes: 0 },
      { symbol: 'ES1!', price: 6790.25, time: NOW, size: 0, source: 'yahoo', delayMinutes: 10 },
    ]);

    // Nothing changed: nothing emitted. Then a new time at the same price, and a new price.
    ticks.length = 0;
    await feed.poll();
    expect(ticks).toEqual([]);
    state.book.set('AAPL', { price: 255.1, at: NOW + 1000 });
    state.book.set('SPY', { price: 670.3, at: NOW });
    await feed.poll();
    expect(ticks.map((tick) => [tick.symbol, tick.price, tick.time])).toEqual([
      ['AAPL', 255.1, NOW + 1000],
      ['SPY', 670.3, NOW],
    ]);
    expect(feed.stats()).toMatchObject({ connected: true, failures: 0, rejected: 0, gaps: 0 });
    await feed.close();
  });

  it('labels the delay: the provider minutes when given, else the exchange default, 0 when real time', async () => {
    const state = scripted();
    state.book.set('AAPL', { price: 1, at: NOW, delayed: true });
    state.book.set('MES1!', { price: 2, at: NOW, delayed: true });
    state.book.set('VIX', { price: 3, at: NOW, delayed: true, delayMinutes: 20 });
    state.book.set('SPX', { price: 4, at: NOW, delayed: false });
    const { feed, ticks } = harness(state.provider);
    feed.setSymbols(['AAPL', 'MES1!', 'VIX', 'SPX', 'NOPE']);
    await feed.poll();
    expect(ticks.map((tick) => [tick.symbol, tick.delayMinutes])).toEqual([
      ['AAPL', 15],
      ['MES1!', 10],
      ['VIX', 20],
      ['SPX', 0],
    ]);
    // The unknown symbol's error is counted, not thrown.
    expect(feed.stats()).toMatchObject({ connected: true, rejected: 1 });
    await feed.close();
  });

  it('counts failures, stays up, and reports a gap when polls answer again', async () => {
    const state = scripted();
    state.book.set('AAPL', { price: 10, at: NOW });
    const { feed, ticks, gaps } = harness(state.provider);
    feed.setSymbols(['AAPL']);
    await feed.poll();
    state.failWith = new Error('Yahoo Finance is unreachable');
    await feed.poll();
    await feed.poll();
    expect(feed.stats()).toMatchObject({ connected: false, failures: 2, reconnects: 0, gaps: 0 });
    // Every symbol failing is a failed poll too.
    state.failWith = null;
    state.book.delete('AAPL');
    await feed.poll();
    expect(feed.stats()).toMatchObject({ connected: false, failures: 3 });
    state.book.set('AAPL', { price: 11, at: NOW + 5000 });
    await feed.poll();
    expect(feed.stats()).toMatchObject({ connected: true, failures: 3, reconnects: 1, gaps: 1 });
    expect(gaps).toEqual([['AAPL']]);
    expect(ticks.map((tick) => tick.price)).toEqual([10, 11]);
    await feed.close();
  });

  it('never runs two polls at once: a slow poll makes the timer skip its turn', async () => {
    const state = scripted();
    state.book.set('AAPL', { price: 10, at: NOW });
    let open: () => void = () => undefined;
    state.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { feed, timer, ticks } = harness(state.provider);
    feed.setSymbols(['AAPL']); // starts the first poll at once
    timer.fire();
    timer.fire();
    expect(state.calls).toHaveLength(1);
    expect(feed.stats().skipped).toBe(2);
    open();
    state.gate = null;
    await feed.poll(); // joins the poll in flight
    expect(state.calls).toHaveLength(1);
    expect(ticks).toHaveLength(1);
    timer.fire();
    await feed.poll();
    expect(state.calls).toHaveLength(2);
    await feed.close();
    expect(timer.cancelled).toBe(true);
  });

  it('drops the answer for a symbol no longer carried, and nothing after close', async () => {
    const state = scripted();
    state.book.set('AAPL', { price: 10, at: NOW });
    state.book.set('SPY', { price: 20, at: NOW });
    let open: () => void = () => undefined;
    state.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { feed, ticks } = harness(state.provider);
    feed.setSymbols(['AAPL', 'SPY']);
    feed.setSymbols(['SPY']);
    open();
    await feed.poll();
    expect(ticks.map((tick) => tick.symbol)).toEqual(['SPY']);
    state.book.set('SPY', { price: 21, at: NOW + 1000 });
    state.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const pending = feed.poll();
    const closing = feed.close();
    open();
    await Promise.all([pending, closing]);
    expect(ticks).toHaveLength(1);
  });
});

describe('quote polling feed through the real Yahoo provider and the local fake Yahoo', () => {
  let fake: FakeYahoo;
  let clock = NOW;
  beforeAll(async () => {
    fake = await startFakeYahoo({ now: () => clock });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('asks once per poll for all symbols and emits the quotes Yahoo gives, with their delay', async () => {
    const provider = createYahooProvider({ apiBase: fake.url, now: () => clock, quoteCacheMs: 0, backoffMs: 5 });
    const { feed, ticks } = harness(provider, { intervalMs: 5000 });
    feed.setSymbols(['AAPL', 'SPX', 'ES1!']);
    await feed.poll();
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(1);
    expect(fake.requests({ endpoint: 'quote' })[0]!.symbols).toEqual(['AAPL', '^GSPC', 'ES=F']);
    const tradedAt = Math.floor(NOW / 1000) * 1000;
    expect(ticks).toEqual([
      {
        symbol: 'AAPL',
        price: fakeYahooPrice('AAPL', tradedAt),
        time: tradedAt,
        size: 0,
        source: 'yahoo',
        delayMinutes: 0,
      },
      {
        symbol: 'SPX',
        price: fakeYahooPrice('^GSPC', tradedAt),
        time: tradedAt,
        size: 0,
        source: 'yahoo',
        delayMinutes: 0,
      },
      {
        symbol: 'ES1!',
        price: fakeYahooPrice('ES=F', tradedAt),
        time: tradedAt,
        size: 0,
        source: 'yahoo',
        delayMinutes: 10,
      },
    ]);

    // Five seconds later: new quote times for all three, one more request.
    ticks.length = 0;
    clock = NOW + 5000;
    await feed.poll();
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(2);
    expect(ticks.map((tick) => [tick.symbol, tick.time])).toEqual([
      ['AAPL', tradedAt + 5000],
      ['SPX', tradedAt + 5000],
      ['ES1!', tradedAt + 5000],
    ]);

    // Yahoo down: a failure, no crash; back: a gap for the carried symbols.
    fake.setMode({ kind: 'status', status: 503 });
    clock = NOW + 10_000;
    await feed.poll();
    expect(feed.stats()).toMatchObject({ connected: false, failures: 1 });
    fake.recover();
    await feed.poll();
    expect(feed.stats()).toMatchObject({ connected: true, failures: 1, reconnects: 1, gaps: 1 });
    await feed.close();
  });
});
