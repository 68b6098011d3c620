// The forecasts table through the service (PGlite, and PostgreSQL when TEST_DATABASE_URL is
// set): recording once per statement, resolving idempotently across restarts, scoring in SQL
// exactly as the streaming scorer does, demo and real never mixed.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { storeCandles } from '../market/service.ts';
import {
  createForecastService,
  insertForecasts,
  resolveDueForecasts,
  scoreForecasts,
  type ForecastDraft,
} from './service.ts';
import { dedupKey } from './statements.ts';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 2, 2, 12);
const quietLog = { warn: () => undefined, error: () => undefined };

function draft(overrides: Partial<ForecastDraft> = {}): ForecastDraft {
  const base: Omit<ForecastDraft, 'dedupKey'> = {
    symbol: 'BTC-USD',
    assetClass: 'crypto',
    timeframe: '1h',
    signal: 'watos1',
    direction: 'bullish',
    stated: 0.6,
    intervalLow: 0.5,
    intervalHigh: 0.7,
    rawFrequency: null,
    horizonBars: 3,
    barTime: T,
    dueAt: T + 3 * HOUR,
    baseRate: 0.5,
    sampleSize: 120,
    source: 'demo',
    origin: 'grid',
    entryClose: 100,
    ...overrides,
  };
  return { ...base, dedupKey: overrides.dedupKey ?? dedupKey(base) };
}

describe('forecasts service', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await database.truncateAll();
  });

  it('records an identical statement within a bar once, whatever its origin', async () => {
    const db = database.db;
    expect(await insertForecasts(db, [draft(), draft({ signal: 'watos2' })])).toBe(2);
    expect(await insertForecasts(db, [draft({ origin: 'answer' })])).toBe(0);
    // The recorder: fire-and-forget, batched, flushed on demand.
    const service = createForecastService({ db, log: quietLog, sourceOf: () => 'demo', flushMs: 10_000 });
    service.recordDrafts([draft({ barTime: T + HOUR, dueAt: T + 4 * HOUR }), draft({ origin: 'answer' })]);
    service.recordDrafts([draft({ barTime: T + HOUR, dueAt: T + 4 * HOUR, origin: 'answer' })]);
    await service.flush();
    const { counts } = await scoreForecasts(db, { period: 'all', source: 'demo' }, T);
    expect(counts).toEqual({ resolved: 0, pending: 3, unresolvable: 0 });
  });

  it('never fails the caller when recording fails (logged instead)', async () => {
    const errors: string[] = [];
    const service = createForecastService({
      db: database.db,
      log: { warn: () => undefined, error: (_details, message) => errors.push(message) },
      sourceOf: () => 'demo',
    });
    // A row the database refuses (no symbol): the insert fails after the caller has moved on.
    service.recordDrafts([draft({ symbol: null as unknown as string })]);
    await service.flush();
    expect(errors).toEqual(['track record: recording forecasts failed']);
  });

  it('resolves due forecasts against the candle store once: a second run and a restarted service change nothing', async () => {
    const db = database.db;
    await insertForecasts(db, [
      draft({ signal: 'watos1' }),
      draft({ signal: 'watos2', direction: 'bearish', stated: 0.3 }),
      // Due later than the candles go: left pending, then given up when the store moved past it.
      draft({ signal: 'watos3', barTime: T + 10 * HOUR, dueAt: T + 13 * HOUR }),
    ]);
    // Bars opening T, T+1h, T+2h (due bar, close 104 > 100), and T+3h.
    await storeCandles(
      db,
      'BTC-USD',
      3600,
      'demo',
      [101, 99, 104, 95].map((close, k) => ({
        time: T + k * HOUR,
        open: close,
        high: close,
        low: close,
        close,
        volume: 1,
      })),
    );
    const now = T + 4 * HOUR;
    expect(await resolveDueForecasts(db, now)).toEqual({ resolved: 2, unresolvable: 0, waiting: 0 });
    expect(await resolveDueForecasts(db, now)).toEqual({ resolved: 0, unresolvable: 0, waiting: 0 });
    const restarted = createForecastService({ db, log: quietLog, sourceOf: () => 'demo', now: () => now });
    expect(await restarted.resolveDue()).toEqual({ resolved: 0, unresolvable: 0, waiting: 0 });

    const scored = await scoreForecasts(db, { period: 'all', source: 'demo' }, now);
    expect(scored.counts).toEqual({ resolved: 2, pending: 1, unresolvable: 0 });
    // Both rose: watos1 stated 0.6 (error 0.16), watos2 stated 0.3 (error 0.49); base 0.5 (0.25 each).
    expect(scored.report.brier).toBeCloseTo((0.16 + 0.49) / 2, 12);
    expect(scored.report.baseBrier).toBeCloseTo(0.25, 12);
    expect(scored.report.brierSkill).toBeCloseTo(1 - 0.325 / 0.25, 12);
    expect(scored.report.signals.map((signal) => [signal.signal, signal.hitRate])).toEqual([
      ['watos1', 1],
      ['watos2', 0],
    ]);

    // The third's due bar (T+12h) never came and the store went on past it: unresolvable.
    await storeCandles(db, 'BTC-USD', 3600, 'demo', [
      { time: T + 14 * HOUR, open: 1, high: 1, low: 1, close: 1, volume: 1 },
    ]);
    expect(await resolveDueForecasts(db, T + 15 * HOUR)).toEqual({ resolved: 0, unresolvable: 1, waiting: 0 });
    expect((await scoreForecasts(db, { period: 'all', source: 'demo' }, T)).counts.unresolvable).toBe(1);
  });

  it('scores in SQL as the scorer computes by hand, with filters, never mixing demo and real', async () => {
    const db = database.db;
    // The hand example of signals/forecastScore.test.ts, resolved: Brier 0.23625, skill 0.055.
    const rows = [
      draft({ signal: 'watos1', stated: 0.8 }),
      draft({ signal: 'watos1', stated: 0.8, barTime: T + HOUR, dueAt: T + 4 * HOUR }),
      draft({ signal: 'watos1', stated: 0.25, direction: 'bearish', barTime: T + 2 * HOUR, dueAt: T + 5 * HOUR }),
      draft({ signal: 'watos2', stated: 0.55, symbol: 'AAPL', assetClass: 'stock' }),
      draft({ signal: 'watos2', stated: 0.9, source: 'real' }),
    ];
    await insertForecasts(db, rows);
    const outcomes = [true, false, false, true, false];
    await db.execute(
      sql.raw(
        `update forecasts set status = 'resolved', rose = (case id ${outcomes
          .map((rose, index) => `when ${index + 1} then ${rose}`)
          .join(' ')} end)`,
      ),
    );
    const demo = await scoreForecasts(db, { period: 'all', source: 'demo' }, T);
    expect(demo.counts.resolved).toBe(4);
    expect(demo.report.brier).toBeCloseTo(0.23625, 12);
    expect(demo.report.brierSkill).toBeCloseTo(0.055, 12);
    expect(demo.report.reliability.map((bin) => [bin.from, bin.count, bin.realised])).toEqual([
      [0.2, 1, 0],
      [0.5, 1, 1],
      [0.8, 2, 0.5],
    ]);
    const real = await scoreForecasts(db, { period: 'all', source: 'real' }, T);
    expect(real.counts.resolved).toBe(1);
    expect(real.report.brier).toBeCloseTo(0.81, 12);
    const stocks = await scoreForecasts(db, { period: 'all', source: 'demo', assetClass: 'stock' }, T);
    expect(stocks.report.signals.map((signal) => signal.signal)).toEqual(['watos2']);
    const oneSignal = await scoreForecasts(
      db,
      { period: 'all', source: 'demo', signal: 'watos1', symbol: 'BTC-USD' },
      T,
    );
    expect(oneSignal.counts.resolved).toBe(3);
    // Periods count back from now by the bar time.
    expect((await scoreForecasts(db, { period: '7d', source: 'demo' }, T + 8 * 24 * HOUR)).counts.resolved).toBe(0);
    expect((await scoreForecasts(db, { period: '7d', source: 'demo' }, T + 6 * 24 * HOUR)).counts.resolved).toBe(4);
  });
});
