// The demo ticks against the demo provider's minute bars: every minute's ticks aggregate to
// exactly that minute's candle (createDemoFeed), none while a market is closed, the same every
// call; and the live feed plays them out on its clock, carrying only what it is asked to.
import { describe, expect, it } from 'vitest';
import { SYMBOL_TABLE } from '../../../shared/symbolTable.ts';
import type { FeedTick } from '../../live/types.ts';
import { createDemoFeed } from '../demoFeed.ts';
import type { CandleRow } from '../types.ts';
import { createDemoTickFeed, demoTicksBetween, demoTicksOfMinute } from './demoTicks.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Wednesday 14 January 2026, 10:10 in New York: equities and Globex trading. */
const WEDNESDAY = Date.UTC(2026, 0, 14, 15, 10);
/** Saturday 17 January 2026, 15:00 UTC: only crypto trades. */
const SATURDAY = Date.UTC(2026, 0, 17, 15, 0);

function aggregateOf(ticks: FeedTick[]): CandleRow | null {
  const first = ticks[0];
  if (!first) return null;
  let volume = 0;
  let high = -Infinity;
  let low = Infinity;
  for (const tick of ticks) {
    volume += tick.size;
    high = Math.max(high, tick.price);
    low = Math.min(low, tick.price);
  }
  const time = Math.floor(first.time / MINUTE) * MINUTE;
  return { time, open: first.price, high, low, close: ticks.at(-1)!.price, volume };
}

async function candlesOf(symbol: string, from: number, until: number): Promise<CandleRow[]> {
  const provider = createDemoFeed({ now: () => until });
  return provider.candles(symbol, 60, new Date(from), new Date(until));
}

describe('demo ticks of a minute', () => {
  const symbols = ['BTC-USD', 'ETH-USD', 'USDT-USD', 'AAPL', 'SPY', 'SPX', 'VIX', 'ES1!', 'MES1!', 'CL1!', 'GC1!'];

  it('aggregate exactly to the demo minute bar, for every class, over an hour of minutes', async () => {
    const from = WEDNESDAY - 30 * MINUTE;
    const until = WEDNESDAY + 30 * MINUTE;
    for (const symbol of symbols) {
      const candles = await candlesOf(symbol, from, until);
      expect(candles.length, symbol).toBe(60);
      for (const candle of candles) {
        const ticks = demoTicksOfMinute(symbol, candle.time);
        expect(ticks).toHaveLength(240);
        // toEqual on the numbers: bit-for-bit, volume included (no toBeCloseTo).
        expect(aggregateOf(ticks), `${symbol} ${new Date(candle.time).toISOString()}`).toEqual(candle);
      }
    }
  });

  it('aggregate exactly at sampled minutes across a week and at other tick rates', async () => {
    const start = Date.UTC(2026, 0, 12, 0, 0);
    for (const symbol of ['BTC-USD', 'AAPL', 'NQ1!']) {
      const candles = await candlesOf(symbol, start, start + 7 * 24 * HOUR);
      expect(candles.length).toBeGreaterThan(1000);
      // Every 37th minute: session opens, closes and overnight Globex minutes among them.
      for (let index = 0; index < candles.length; index += 37) {
        const candle = candles[index]!;
        expect(aggregateOf(demoTicksOfMinute(symbol, candle.time))).toEqual(candle);
        const slow = demoTicksOfMinute(symbol, candle.time, 1000);
        expect(slow).toHaveLength(60);
        expect(aggregateOf(slow)).toEqual(candle);
      }
    }
  });

  it('keeps every tick inside the minute, in order, on the tick grid, with sizes of the right kind', () => {
    const ticks = demoTicksOfMinute('AAPL', WEDNESDAY);
    const aapl = SYMBOL_TABLE.find((row) => row.id === 'AAPL')!;
    ticks.forEach((tick, index) => {
      expect(tick.time).toBe(WEDNESDAY + index * 250);
      expect(Math.abs(tick.price / aapl.tickSize - Math.round(tick.price / aapl.tickSize))).toBeLessThan(1e-6);
      expect(Number.isInteger(tick.size) && tick.size >= 0).toBe(true);
      expect(tick).toMatchObject({ symbol: 'AAPL', source: 'demo', delayMinutes: 0 });
    });
    // The path moves inside the minute: more than the four anchor prices occur.
    expect(new Set(ticks.map((tick) => tick.price)).size).toBeGreaterThan(4);
    for (const tick of demoTicksOfMinute('BTC-USD', WEDNESDAY)) expect(tick.size).toBeGreaterThan(0);
  });

  it("keeps moving: no price holds for seconds on end, even at the minute bar's high or low", () => {
    // A path pinned to an extreme for a minute froze the price on screen (the live journey waited
    // 15 s for BTC to move and saw none): a real market turns back from its high and low.
    for (const symbol of ['BTC-USD', 'ETH-USD']) {
      let held = 0;
      let longest = 0;
      let previous: number | null = null;
      demoTicksBetween(symbol, SATURDAY, SATURDAY + 12 * HOUR, (tick) => {
        held = tick.price === previous ? held + 250 : 0;
        longest = Math.max(longest, held);
        previous = tick.price;
      });
      expect(longest, symbol).toBeLessThan(5_000);
    }
  });

  it('gives no ticks while the market is closed', async () => {
    const nightInNewYork = Date.UTC(2026, 0, 14, 8, 0); // 03:00 ET
    const globexBreak = Date.UTC(2026, 0, 14, 22, 30); // 17:30 ET, CME's daily hour
    expect(demoTicksOfMinute('AAPL', nightInNewYork)).toEqual([]);
    expect(demoTicksOfMinute('AAPL', SATURDAY)).toEqual([]);
    expect(demoTicksOfMinute('ES1!', globexBreak)).toEqual([]);
    expect(demoTicksOfMinute('ES1!', nightInNewYork)).toHaveLength(240);
    expect(demoTicksOfMinute('BTC-USD', SATURDAY)).toHaveLength(240);
    // And no candle there either: ticks and bars agree on the sessions.
    expect(await candlesOf('AAPL', SATURDAY, SATURDAY + HOUR)).toEqual([]);
  });

  it('is the same on every call, and a replay over a range equals its minutes', () => {
    const first = demoTicksOfMinute('ETH-USD', WEDNESDAY);
    expect(demoTicksOfMinute('ETH-USD', WEDNESDAY)).toEqual(first);
    const replay: FeedTick[] = [];
    demoTicksBetween('ETH-USD', WEDNESDAY + 10_000, WEDNESDAY + 2 * MINUTE, (tick) => replay.push(tick));
    const expected = [...first, ...demoTicksOfMinute('ETH-USD', WEDNESDAY + MINUTE)].filter(
      (tick) => tick.time >= WEDNESDAY + 10_000,
    );
    expect(replay).toEqual(expected);
    // Different minutes and symbols take different paths.
    expect(demoTicksOfMinute('BTC-USD', WEDNESDAY).map((tick) => tick.price)).not.toEqual(
      demoTicksOfMinute('BTC-USD', WEDNESDAY + MINUTE).map((tick) => tick.price),
    );
  });
});

/** A clock and a timer the test moves by hand. */
function manualClock(start: number) {
  let time = start;
  let callback: (() => void) | null = null;
  let cancelled = false;
  return {
    now: () => time,
    schedule: (run: () => void) => {
      callback = run;
      return () => {
        cancelled = true;
      };
    },
    advance(ms: number, stepMs = 250) {
      for (let elapsed = 0; elapsed < ms; elapsed += stepMs) {
        time += Math.min(stepMs, ms - elapsed);
        callback?.();
      }
    },
    get cancelled() {
      return cancelled;
    },
  };
}

describe('the live demo tick feed', () => {
  it('plays out exactly the minute ticks of the carried symbols as the clock passes them', async () => {
    const clock = manualClock(WEDNESDAY - 1);
    const feed = createDemoTickFeed({ now: clock.now, schedule: clock.schedule });
    const seen: FeedTick[] = [];
    feed.onTick((tick) => seen.push(tick));
    feed.setSymbols(['AAPL', 'BTC-USD', 'NOPE']);
    // Uneven timer steps (a busy event loop) must not change which ticks come out.
    clock.advance(MINUTE, 333);
    const expected = (symbol: string) => demoTicksOfMinute(symbol, WEDNESDAY);
    expect(seen.filter((tick) => tick.symbol === 'AAPL')).toEqual(expected('AAPL'));
    expect(seen.filter((tick) => tick.symbol === 'BTC-USD')).toEqual(expected('BTC-USD'));
    expect(seen).toHaveLength(480);
    const stats = feed.stats();
    expect(stats).toMatchObject({ connected: true, reconnects: 0, gaps: 0, rejected: 0 });
    // Stamped with the clock of the timer call that emitted the last tick (59.75 s in).
    expect(stats.lastTickAt).toBeGreaterThanOrEqual(WEDNESDAY + MINUTE - 250);
    expect(stats.lastTickAt).toBeLessThan(WEDNESDAY + MINUTE);

    // Dropping a symbol stops its ticks; one added starts from now, nothing replayed.
    const addedAt = clock.now();
    feed.setSymbols(['BTC-USD', 'ES1!']);
    seen.length = 0;
    clock.advance(10_000);
    expect(seen.some((tick) => tick.symbol === 'AAPL')).toBe(false);
    const es = seen.filter((tick) => tick.symbol === 'ES1!');
    expect(es).toHaveLength(40);
    expect(es).toEqual(
      demoTicksOfMinute('ES1!', WEDNESDAY + MINUTE).filter((tick) => tick.time > addedAt && tick.time <= clock.now()),
    );
    await feed.close();
    expect(clock.cancelled).toBe(true);
    expect(feed.stats().connected).toBe(false);
  });

  it('emits nothing for a closed market, and reports a gap when its timer was held up too long', async () => {
    const clock = manualClock(SATURDAY);
    const feed = createDemoTickFeed({ now: clock.now, schedule: clock.schedule, maxCatchUpMs: 5000 });
    const seen: FeedTick[] = [];
    const gaps: string[][] = [];
    feed.onTick((tick) => seen.push(tick));
    feed.onGap((symbols) => gaps.push([...symbols]));
    feed.setSymbols(['AAPL', 'ETH-USD']);
    clock.advance(5000);
    expect(seen.length).toBe(20);
    expect(seen.every((tick) => tick.symbol === 'ETH-USD')).toBe(true);
    expect(gaps).toEqual([]);

    // Thirty seconds without a timer call: only the last five are played, the rest is a gap.
    seen.length = 0;
    clock.advance(30_000, 30_000);
    expect(gaps).toEqual([['AAPL', 'ETH-USD']]);
    expect(feed.stats().gaps).toBe(1);
    expect(seen.length).toBe(20);
    expect(seen[0]!.time).toBeGreaterThan(clock.now() - 5000);
    await feed.close();
  });

  it('keeps going when a listener throws', async () => {
    const clock = manualClock(WEDNESDAY);
    const warnings: string[] = [];
    const feed = createDemoTickFeed({
      now: clock.now,
      schedule: clock.schedule,
      log: { info: () => undefined, warn: (_fields, message) => warnings.push(message) },
    });
    let count = 0;
    feed.onTick(() => {
      throw new Error('consumer bug');
    });
    const stop = feed.onTick(() => {
      count += 1;
    });
    feed.setSymbols(['BTC-USD']);
    clock.advance(1000);
    expect(count).toBe(4);
    stop();
    clock.advance(1000);
    expect(count).toBe(4);
    expect(warnings.filter((message) => message.includes('listener threw'))).toHaveLength(8);
    await feed.close();
  });
});
