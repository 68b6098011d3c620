// Fault journey (issue 15): the stock provider fails and recovers while crypto keeps flowing.
// The real Coinbase and Yahoo Finance providers talk to local fakes (real HTTP servers replaying
// recorded answer shapes), behind the market router in auto mode, with the alert engine storing
// bars in the real database. While Yahoo answers 503, crypto bars keep arriving from Coinbase,
// the stock's stored history simply stops (no invented bar, no bar of zeros), and an on-demand
// question about the stock is answered from the labelled demo feed; once Yahoo is back, the
// engine resumes the stock from its last stored bar without a gap and the router returns to
// Yahoo after its retry window.
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertBus } from '../alerts/bus.ts';
import { createAlertEngine } from '../alerts/engine.ts';
import { candles } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { startFakeCoinbase, type FakeCoinbase } from '../testing/fakeCoinbase.ts';
import { startFakeYahoo, type FakeYahoo } from '../testing/fakeYahoo.ts';
import { createCoinbaseProvider } from './coinbase.ts';
import { createDemoFeed } from './demoFeed.ts';
import { createMarketRouter } from './router.ts';
import { createYahooProvider } from './yahoo.ts';
import { createAllShards } from '../live/shards.ts';

const MINUTE = 60_000;
// Tuesday 2026-11-24 10:00:30 ET: the NYSE and Coinbase both trade.
let clock = Date.UTC(2026, 10, 24, 15, 0, 30);
const now = () => clock;
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

let database: TestDatabase;
let coinbaseFake: FakeCoinbase;
let yahooFake: FakeYahoo;

beforeAll(async () => {
  database = await openTestDatabase();
  coinbaseFake = await startFakeCoinbase({ 'BTC-USD': 64_000.5 });
  yahooFake = await startFakeYahoo({ now });
});
afterAll(async () => {
  await database?.close();
  await coinbaseFake?.close();
  await yahooFake?.close();
});

function market() {
  return createMarketRouter({
    mode: 'auto',
    coinbase: createCoinbaseProvider({
      priceApiBase: coinbaseFake.url,
      exchangeApiBase: coinbaseFake.url,
      backoffMs: 5,
    }),
    yahoo: createYahooProvider({ apiBase: yahooFake.url, now, backoffMs: 5, retries: 1, candleCacheMs: 0 }),
    demo: createDemoFeed({ now }),
    retryMs: 5 * MINUTE,
    now,
  });
}

async function minuteTimes(productId: string): Promise<number[]> {
  const rows = await database.db
    .select({ time: candles.time, source: candles.source })
    .from(candles)
    .where(and(eq(candles.productId, productId), eq(candles.granularity, 60)))
    .orderBy(asc(candles.time));
  return rows.map((row) => row.time.getTime());
}

describe('the stock provider fails and recovers while crypto keeps flowing', () => {
  it('keeps crypto flowing, stores nothing invented for the stock, and resumes it without a gap', async () => {
    const router = market();
    const pinned = await router.pinned();
    expect(pinned.sourceOf('BTC-USD')).toBe('coinbase');
    expect(pinned.sourceOf('AAPL')).toBe('yahoo');
    const engine = createAlertEngine({
      database,
      shards: createAllShards(),
      provider: pinned,
      bus: createAlertBus(),
      log: quietLog,
      products: ['BTC-USD', 'AAPL'],
      now,
      backfillHourDays: 1,
      backfillMinuteDays: 0.05,
      sessionMinuteBackfillDays: 0.05,
      concurrency: 2,
    });
    await engine.tick();
    const aaplBefore = await minuteTimes('AAPL');
    const btcBefore = await minuteTimes('BTC-USD');
    expect(aaplBefore.length).toBeGreaterThan(10);
    expect(btcBefore.length).toBeGreaterThan(10);

    // Yahoo goes down for five minutes.
    yahooFake.setMode({ kind: 'status', status: 503 });
    for (let minute = 0; minute < 5; minute += 1) {
      clock += MINUTE;
      await engine.tick();
    }
    const aaplDuring = await minuteTimes('AAPL');
    const btcDuring = await minuteTimes('BTC-USD');
    expect(aaplDuring).toEqual(aaplBefore);
    expect(btcDuring.length).toBe(btcBefore.length + 5);

    // A question about the stock meanwhile: answered from the demo feed, and labelled so.
    const live = market();
    const bars = await live.candles('AAPL', 60, new Date(clock - 30 * MINUTE), new Date(clock));
    expect(bars.length).toBeGreaterThan(0);
    expect(live.sourceOf('AAPL')).toBe('demo');
    expect(live.sourceOf('BTC-USD')).toBe('coinbase');

    // Yahoo recovers: the engine fills the five minutes it missed, no gap, no repeat.
    yahooFake.recover();
    clock += MINUTE;
    await engine.tick();
    const aaplAfter = await minuteTimes('AAPL');
    expect(aaplAfter.length).toBe(aaplBefore.length + 6);
    expect(aaplAfter.every((time, index) => index === 0 || time - aaplAfter[index - 1]! === MINUTE)).toBe(true);
    expect(new Set(aaplAfter).size).toBe(aaplAfter.length);

    // And the live router goes back to Yahoo once its retry window has passed.
    clock += 5 * MINUTE;
    await live.candles('AAPL', 60, new Date(clock - 30 * MINUTE), new Date(clock));
    expect(live.sourceOf('AAPL')).toBe('yahoo');
  });
});
