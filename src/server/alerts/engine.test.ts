// Alert engine + generators on the demo feed, against the real database: alerts appear, a
// second pass or a restart adds no duplicates, an outage leaves no gap, new bars are pushed
// live, and the alert API's filters return exactly the matching stored rows. On shards: a pass
// covers only the held shards' symbols, a regained symbol is read afresh, only shard 0's holder
// does the global work, and gaining shards starts a pass at once.
import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import { isTradingMinute } from '../../shared/sessions.ts';
import { symbolById } from '../../shared/tickers.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALERT_TYPES } from '../../shared/constants.ts';
import { alerts, candles } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { createDemoFeed } from '../market/demoFeed.ts';
import type { MarketDataProvider, MarketRouter } from '../market/types.ts';
import { createAlertBus, type LiveAlert } from './bus.ts';
import { createAlertEngine } from './engine.ts';
import { queryAlerts } from './service.ts';
import { storeCandleBatch } from '../market/service.ts';
import { createAllShards, shardOf, type ShardLeases } from '../live/shards.ts';

const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
const MINUTE_MS = 60_000;
const products = ['BTC-USD', 'ETH-USD'];
let database: TestDatabase;
let clock = Date.UTC(2026, 4, 20, 12, 0, 30);
const feed = createDemoFeed({ now: () => clock });

function engine(provider: MarketDataProvider = feed, bus = createAlertBus()) {
  return createAlertEngine({
    database,
    shards: createAllShards(),
    provider,
    source: 'demo',
    bus,
    log: quietLog,
    products,
    now: () => clock,
    backfillHourDays: 5,
    backfillMinuteDays: 1,
  });
}

async function alertCount() {
  const [row] = await database.db.select({ n: count() }).from(alerts);
  return row!.n;
}

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe('alert engine on the demo feed', () => {
  it('backfills candles and creates alerts of every generator', async () => {
    const created = await engine().tick();
    // Every generator fires, yet quietly: at most one alert of a type per symbol in 4 hours,
    // so a day of two symbols holds at most 2 x 4 x 6 of them.
    expect(created).toBeGreaterThan(8);
    expect(created).toBeLessThanOrEqual(2 * 4 * 6);
    expect(await alertCount()).toBe(created);
    const types = await database.db.selectDistinct({ type: alerts.alertType }).from(alerts);
    expect(new Set(types.map((row) => row.type))).toEqual(new Set(ALERT_TYPES));
    const [minutes] = await database.db
      .select({ n: count() })
      .from(candles)
      .where(and(eq(candles.productId, 'BTC-USD'), eq(candles.granularity, 60)));
    expect(minutes!.n).toBe(1440);
    const [hours] = await database.db
      .select({ n: count() })
      .from(candles)
      .where(and(eq(candles.productId, 'BTC-USD'), eq(candles.granularity, 3600)));
    expect(hours!.n).toBe(5 * 24);
  });

  it('adds nothing on a second pass or after a restart', async () => {
    const before = await alertCount();
    expect(await engine().tick()).toBe(0);
    expect(await engine().tick()).toBe(0);
    expect(await alertCount()).toBe(before);
  });

  it('survives a provider outage and resumes without gaps', async () => {
    const failing: MarketDataProvider = {
      source: 'demo',
      quotes: () => Promise.resolve(new Map()),
      candles: () => Promise.reject(new Error('upstream down')),
    };
    clock += 7 * 60_000;
    expect(await engine(failing).tick()).toBe(0);
    clock += 8 * 60_000;
    await engine().tick();
    const rows = await database.db
      .select({ time: candles.time })
      .from(candles)
      .where(and(eq(candles.productId, 'ETH-USD'), eq(candles.granularity, 60)))
      .orderBy(asc(candles.time));
    const gaps = rows.filter(
      (row, index) => index > 0 && row.time.getTime() - rows[index - 1]!.time.getTime() !== 60_000,
    );
    expect(gaps).toEqual([]);
    expect(rows.at(-1)!.time.getTime()).toBe(Math.floor(clock / 60_000) * 60_000 - 60_000);
  });

  it('pushes alerts of just-closed bars to live listeners', async () => {
    const bus = createAlertBus();
    const heard: LiveAlert[] = [];
    bus.subscribe((alert) => heard.push(alert));
    let created = 0;
    for (let minute = 0; minute < 240 && created === 0; minute += 1) {
      clock += 60_000;
      created = await engine(feed, bus).tick();
    }
    expect(created).toBeGreaterThan(0);
    expect(heard.length).toBe(created);
    expect(heard[0]).toMatchObject({
      id: expect.any(Number),
      source: 'demo',
      ticker: expect.stringMatching(/^(BTC|ETH)$/),
    });
  });

  it('serves exactly the matching rows through the alert query', async () => {
    const stored = await database.db.select().from(alerts);
    const end = new Date(clock);
    const start = new Date(clock - 6 * 3_600_000);
    const format = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
    const expected = stored
      .filter(
        (row) =>
          row.ticker === 'ETH' &&
          row.alertType === 'BreakoutAlertGenerator' &&
          row.timestamp >= start &&
          row.timestamp <= end,
      )
      .sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime());
    const result = await queryAlerts(
      database.db,
      {
        symbol: 'ETH',
        alert_type: 'BreakoutAlertGenerator',
        max_count: 100,
        start_time: format(start),
        end_time: format(end),
      },
      end,
    );
    expect(result.map((alert) => alert.message)).toEqual(expected.map((row) => row.message));
    expect(result.length).toBeGreaterThan(0);
  });
});

describe('alert engine across asset classes', () => {
  /** Flat one-minute bars at `level` for every minute asked, recording each call. */
  function recordingRouter(levels: Record<string, { source: 'coinbase' | 'yahoo' | 'demo'; level: number }>) {
    const calls: Array<{ productId: string; granularity: number; from: number; to: number }> = [];
    const router: MarketRouter = {
      source: 'demo',
      sourceOf: (productId) => levels[productId]!.source,
      quotes: () => Promise.resolve(new Map()),
      candles: (productId, granularity, start, end) => {
        calls.push({ productId, granularity, from: start.getTime(), to: end.getTime() });
        const rows = [];
        const size = granularity * 1000;
        const symbol = symbolById(productId)!;
        for (let time = start.getTime(); time < end.getTime(); time += size) {
          if (granularity === 60 && !isTradingMinute(symbol.calendar, time)) continue;
          const level = levels[productId]!.level;
          rows.push({ time, open: level, high: level, low: level, close: level, volume: 1 });
        }
        return Promise.resolve(rows);
      },
    };
    return { router, calls };
  }

  it('asks for a stock only when its market traded since the last bar, and stores each symbol with its own source', async () => {
    const levels = {
      'BTC-USD': { source: 'coinbase' as const, level: 90_000 },
      AAPL: { source: 'yahoo' as const, level: 250 },
    };
    const { router, calls } = recordingRouter(levels);
    // Saturday 2026-06-13 12:00 UTC: crypto trades, the NYSE is closed since Friday 16:00 ET.
    let now = Date.UTC(2026, 5, 13, 12, 0, 30);
    const make = () =>
      createAlertEngine({
        database,
        shards: createAllShards(),
        provider: router,
        bus: createAlertBus(),
        log: quietLog,
        products: ['BTC-USD', 'AAPL'],
        now: () => now,
        backfillHourDays: 2,
        backfillMinuteDays: 1,
        sliceSize: 1,
      });
    const engine = make();
    await engine.tick();
    const firstAaplCalls = calls.filter((call) => call.productId === 'AAPL').length;
    // The backfill covers Friday's session, so AAPL was asked once per size.
    expect(firstAaplCalls).toBe(2);
    now += 5 * 60_000;
    calls.length = 0;
    await engine.tick();
    expect(calls.map((call) => call.productId)).toEqual(['BTC-USD']);
    // A new instance reads the stored last bars and asks for nothing new either.
    calls.length = 0;
    await make().tick();
    expect(calls.map((call) => call.productId)).toEqual([]);

    const sources = await database.db
      .selectDistinct({ productId: candles.productId, source: candles.source })
      .from(candles)
      .where(inArray(candles.productId, ['BTC-USD', 'AAPL']))
      .orderBy(asc(candles.productId), asc(candles.source));
    expect(sources.filter((row) => row.productId === 'AAPL')).toEqual([{ productId: 'AAPL', source: 'yahoo' }]);
    const [lastAapl] = await database.db
      .select({ time: candles.time })
      .from(candles)
      .where(and(eq(candles.productId, 'AAPL'), eq(candles.granularity, 60)))
      .orderBy(desc(candles.time))
      .limit(1);
    // Friday 2026-06-12: the last regular minute starts 15:59 ET (19:59 UTC).
    expect(lastAapl!.time.toISOString()).toBe('2026-06-12T19:59:00.000Z');
  });

  it('starting on a Monday morning, backfills and alerts on the last sessions, not the empty weekend', async () => {
    // Monday 2026-06-15 08:00 UTC, before the NYSE opens: two days back is the closed weekend.
    const monday = Date.UTC(2026, 5, 15, 8, 0, 30);
    const demo = createDemoFeed({ now: () => monday });
    const engine = createAlertEngine({
      database,
      shards: createAllShards(),
      provider: demo,
      source: 'demo',
      bus: createAlertBus(),
      log: quietLog,
      products: ['MSFT'],
      now: () => monday,
      backfillHourDays: 5,
    });
    await engine.tick();
    const minutes = await database.db
      .select({ time: candles.time })
      .from(candles)
      .where(and(eq(candles.productId, 'MSFT'), eq(candles.granularity, 60)))
      .orderBy(asc(candles.time));
    const days = new Set(minutes.map((row) => row.time.toISOString().slice(0, 10)));
    // Thursday's session from 14:30 UTC (the window starts Thursday 08:00) and all of Friday's.
    expect([...days]).toEqual(['2026-06-11', '2026-06-12']);
    expect(minutes).toHaveLength(2 * 390);
    const msftAlerts = await queryAlerts(
      database.db,
      { symbol: 'MSFT', max_count: 100, start_time: '2026-06-11 00:00:00', end_time: '2026-06-15 08:00:00' },
      new Date(monday),
    );
    expect(msftAlerts.length).toBeGreaterThan(0);
  });

  it('stops mid-pass without waiting for the rest of the universe, and resumes from the stored bars', async () => {
    const symbols = ['NVDA', 'AMZN', 'META', 'GOOGL', 'JPM', 'KO'];
    const monday = Date.UTC(2026, 5, 15, 8, 0, 30);
    const demo = createDemoFeed({ now: () => monday });
    const asked: string[] = [];
    let stopping = null as Promise<void> | null;
    let stopEngine: () => Promise<void> = async () => undefined;
    // The second symbol's bars are the moment a shutdown arrives.
    const provider: MarketDataProvider = {
      source: 'demo',
      quotes: () => Promise.resolve(new Map()),
      candles: (productId, granularity, from, to) => {
        asked.push(productId);
        if (productId === symbols[1]) stopping ??= stopEngine();
        return demo.candles(productId, granularity, from, to);
      },
    };
    const options = {
      database,
      shards: createAllShards(),
      provider,
      source: 'demo' as const,
      bus: createAlertBus(),
      log: quietLog,
      products: symbols,
      now: () => monday,
      backfillHourDays: 5,
      sliceSize: 1,
    };
    const first = createAlertEngine(options);
    stopEngine = () => first.stop();
    first.start();
    await vi.waitFor(() => expect(stopping).not.toBeNull(), { timeout: 30_000 });
    await stopping;
    const storedBy = async () =>
      new Set(
        (
          await database.db
            .selectDistinct({ productId: candles.productId })
            .from(candles)
            .where(inArray(candles.productId, symbols))
        ).map((row) => row.productId),
      );
    // The slice being fetched when the stop came is dropped unwritten; none after it was asked for.
    expect(new Set(asked)).toEqual(new Set(symbols.slice(0, 2)));
    expect(await storedBy()).toEqual(new Set(symbols.slice(0, 1)));

    // The next run picks up the rest and asks nothing again of the symbol already stored.
    asked.length = 0;
    await createAlertEngine(options).tick();
    expect(new Set(asked)).toEqual(new Set(symbols.slice(1)));
    expect(await storedBy()).toEqual(new Set(symbols));
  });

  it('a candle write cut short by a stop leaves each symbol a prefix of its bars', async () => {
    const start = Date.UTC(2026, 0, 5, 0, 0);
    const bars = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        time: start + index * 60_000,
        open: 1,
        high: 2,
        low: 0.5,
        close: 1.5,
        volume: 10,
      }));
    const batches = [
      { productId: 'SOL-USD', granularity: 60 as const, source: 'demo' as const, rows: bars(700) },
      { productId: 'XRP-USD', granularity: 60 as const, source: 'demo' as const, rows: bars(700) },
    ];
    let asked = 0;
    const complete = await storeCandleBatch(database.db, batches, () => ++asked >= 2);
    expect(complete).toBe(false);
    const stored = await database.db
      .select({ productId: candles.productId, time: candles.time })
      .from(candles)
      .where(inArray(candles.productId, ['SOL-USD', 'XRP-USD']))
      .orderBy(asc(candles.productId), asc(candles.time));
    // Two statements of 500 rows: all of SOL-USD, then XRP-USD's first 300, nothing after.
    const bySymbol = (id: string) => stored.filter((row) => row.productId === id).map((row) => row.time.getTime());
    expect(bySymbol('SOL-USD')).toEqual(bars(700).map((bar) => bar.time));
    expect(bySymbol('XRP-USD')).toEqual(bars(300).map((bar) => bar.time));
    expect(await storeCandleBatch(database.db, batches)).toBe(true);
  });
});

/** Shards a test hands out and takes back by hand, told to listeners like the real leases. */
function manualShards(initial: readonly number[]) {
  let held: ReadonlySet<number> = new Set(initial);
  const listeners = new Set<(held: ReadonlySet<number>) => void>();
  const shards: ShardLeases & { set(next: readonly number[]): void } = {
    held: () => held,
    owns: (symbol) => held.has(shardOf(symbol)),
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close: async () => undefined,
    set(next) {
      held = new Set(next);
      for (const listener of listeners) listener(held);
    },
  };
  return shards;
}

/** The demo feed, recording each call's symbol and window start. */
function recordingFeed(now: () => number) {
  const demo = createDemoFeed({ now });
  const calls: Array<{ productId: string; granularity: number; from: number }> = [];
  const provider: MarketDataProvider = {
    source: 'demo',
    quotes: () => Promise.resolve(new Map()),
    candles: (productId, granularity, from, to) => {
      calls.push({ productId, granularity, from: from.getTime() });
      return demo.candles(productId, granularity, from, to);
    },
  };
  return { provider, calls };
}

describe('alert engine on shards', () => {
  // Crypto symbols no other test of this file stores, in four different shards, none of them 0.
  const ada = 'ADA-USD';
  const link = 'LINK-USD';
  const doge = 'DOGE-USD';
  const ltc = 'LTC-USD';
  const minuteCalls = (calls: Array<{ productId: string; granularity: number; from: number }>, productId: string) =>
    calls.filter((call) => call.productId === productId && call.granularity === 60);

  it('shard ids used here are distinct and not the global-work shard', () => {
    const ids = [ada, link, doge, ltc].map(shardOf);
    expect(new Set(ids).size).toBe(4);
    expect(ids).not.toContain(0);
  });

  it('covers only the held shards; only the holder of shard 0 does the after-pass work', async () => {
    const at = Date.UTC(2026, 4, 21, 12, 0, 30);
    const { provider, calls } = recordingFeed(() => at);
    const shards = manualShards([shardOf(ada)]);
    let resolved = 0;
    const engine = createAlertEngine({
      database,
      shards,
      provider,
      bus: createAlertBus(),
      log: quietLog,
      products: [ada, link],
      now: () => at,
      backfillHourDays: 1,
      backfillMinuteDays: 0.1,
      afterPass: async () => {
        resolved += 1;
      },
    });
    await engine.tick();
    expect(new Set(calls.map((call) => call.productId))).toEqual(new Set([ada]));
    expect(resolved).toBe(0);

    calls.length = 0;
    shards.set([shardOf(ada), shardOf(link), 0]);
    await engine.tick();
    // ADA is stored up to this minute already: only LINK, newly held, has bars to fetch.
    expect(new Set(calls.map((call) => call.productId))).toEqual(new Set([link]));
    expect(resolved).toBe(1);
  });

  it('reads a regained symbol from the database: another instance stored its bars meanwhile', async () => {
    let clock = Date.UTC(2026, 4, 22, 12, 0, 30);
    const { provider, calls } = recordingFeed(() => clock);
    const shards = manualShards([shardOf(doge)]);
    const options = {
      database,
      provider,
      bus: createAlertBus(),
      log: quietLog,
      products: [doge],
      now: () => clock,
      backfillHourDays: 1,
      backfillMinuteDays: 0.1,
    };
    const mine = createAlertEngine({ ...options, shards });
    await mine.tick();
    expect(minuteCalls(calls, doge)).toHaveLength(1);

    // The shard goes to another instance, which stores ten more minutes of DOGE.
    shards.set([]);
    clock += 10 * MINUTE_MS;
    await createAlertEngine({ ...options, shards: createAllShards() }).tick();
    const otherLast = Math.floor(clock / MINUTE_MS) * MINUTE_MS - MINUTE_MS;

    // Back here two minutes later: the next bar wanted is the one after the other's last.
    shards.set([shardOf(doge)]);
    clock += 2 * MINUTE_MS;
    calls.length = 0;
    await mine.tick();
    expect(minuteCalls(calls, doge).map((call) => call.from)).toEqual([otherLast + MINUTE_MS]);
    const rows = await database.db
      .select({ time: candles.time })
      .from(candles)
      .where(and(eq(candles.productId, doge), eq(candles.granularity, 60)))
      .orderBy(asc(candles.time));
    const gaps = rows.filter(
      (row, index) => index > 0 && row.time.getTime() - rows[index - 1]!.time.getTime() !== MINUTE_MS,
    );
    expect(gaps).toEqual([]);
  });

  it('waits without shards, backfills shards as soon as they come, even during a pass, and says so', async () => {
    const at = Date.UTC(2026, 4, 23, 12, 0, 30);
    const { provider: demo, calls } = recordingFeed(() => at);
    // The first call of the pass waits until the test lets it go.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const provider: MarketDataProvider = {
      ...demo,
      candles: async (productId, granularity, from, to) => {
        const answer = demo.candles(productId, granularity, from, to);
        if (productId === ltc) await gate;
        return answer;
      },
    };
    const messages: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const info = (fields: object, message?: string) =>
      messages.push({ message: message ?? '', fields: fields as Record<string, unknown> });
    const shards = manualShards([]);
    const engine = createAlertEngine({
      database,
      shards,
      provider,
      bus: createAlertBus(),
      log: { ...quietLog, info },
      products: [ltc, link, ada],
      now: () => at,
      backfillHourDays: 1,
      backfillMinuteDays: 0.1,
      // Far off: a gain must start the pass by itself, not a standby round.
      standbyRetryMs: 60_000,
    });
    engine.start();
    try {
      // Without shards nothing is asked.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(calls).toEqual([]);
      expect(engine.carried().size).toBe(0);

      shards.set([shardOf(ltc)]);
      await vi.waitFor(() => expect(minuteCalls(calls, ltc)).toHaveLength(1));
      expect(messages).toContainEqual({
        message: 'alert engine: this instance carries shards',
        fields: { shards: [shardOf(ltc)], count: 1 },
      });
      // Gained while LTC's pass waits: its turn comes right after, not at the next minute.
      shards.set([shardOf(ltc), shardOf(ada)]);
      expect(minuteCalls(calls, ada)).toHaveLength(0);
      release();
      await vi.waitFor(() => expect(minuteCalls(calls, ada)).toHaveLength(1));
      await vi.waitFor(() => expect(engine.carried()).toEqual(new Set([shardOf(ltc), shardOf(ada)])));
      await vi.waitFor(() =>
        expect(messages.filter((entry) => entry.message === 'alert engine: backfill done')).toHaveLength(2),
      );
      expect(minuteCalls(calls, link)).toHaveLength(0);

      shards.set([]);
      expect(messages.at(-1)).toEqual({
        message: 'alert engine: this instance carries no shards',
        fields: { shards: [] },
      });
      expect(engine.carried().size).toBe(0);
    } finally {
      release();
      await engine.stop();
    }
  });
});
