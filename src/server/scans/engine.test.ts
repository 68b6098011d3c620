// The scan engine over the demo feed's bars at a fixed clock: the presets find symbols, the
// cached scan gives the naive peer's answer, the held series follow new stored bars, and the
// figures are the indicators' own.
import { describe, expect, it } from 'vitest';
import type { ScanRequest } from '../../shared/schemas/scans.ts';
import { scanRequest } from '../../shared/schemas/scans.ts';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { candleSeries } from '../../signals/candles.ts';
import { rsi } from '../../signals/indicators.ts';
import { createDemoFeed, DEMO_EPOCH } from '../market/service.ts';
import { createScanEngine, type ScanCandleSource } from './engine.ts';
import { createScanEntryEvaluator } from './service.ts';
import { SCAN_PRESETS } from './presets.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A Wednesday afternoon in New York, 40 days after the demo epoch: every market has history and is open. */
const CLOCK = DEMO_EPOCH + 40 * DAY + 19 * HOUR + 5 * 60_000;

/** The demo feed's bars as a candle store: what the alert engine would have stored by CLOCK. */
function demoStore(clock: () => number): ScanCandleSource & { reads: number } {
  const feed = createDemoFeed({ now: clock, keepHourDays: 60, keepMinuteDays: 2 });
  const store = {
    reads: 0,
    async newestTimes(ids: readonly string[]) {
      const result = new Map<string, Partial<Record<60 | 3600, number>>>();
      for (const id of ids) {
        const hours = await feed.candles(id, 3600, new Date(clock() - 60 * DAY), new Date(clock()));
        const last = hours.at(-1);
        if (last) result.set(id, { 3600: last.time });
      }
      return result;
    },
    async latest(id: string, granularity: 60 | 3600, limit: number) {
      store.reads += 1;
      const rows = await feed.candles(id, granularity, new Date(clock() - 60 * DAY), new Date(clock()));
      return rows.slice(-limit).map((row) => ({ ...row, source: 'demo' }));
    },
  };
  return store;
}

/** demoStore that also reads many symbols at once, counting those reads (`batches`) apart from single ones (`reads`). */
function batchedDemoStore(clock: () => number) {
  const single = demoStore(clock);
  const store = {
    batches: 0,
    get reads() {
      return single.reads;
    },
    newestTimes: single.newestTimes,
    latest: single.latest,
    async latestMany(ids: readonly string[], granularity: 60 | 3600, limit: number) {
      store.batches += 1;
      const before = single.reads;
      const result = new Map<string, Array<Awaited<ReturnType<ScanCandleSource['latest']>>[number]>>();
      for (const id of ids) {
        const rows = await single.latest(id, granularity, limit);
        if (rows.length > 0) result.set(id, rows);
      }
      single.reads = before;
      return result;
    },
  };
  return store;
}

const request = (body: unknown): ScanRequest => scanRequest.parse(body);

describe('scan engine on the demo feed', () => {
  it('every preset matches symbols on the demo feed, and the cached scan answers as the naive peer', async () => {
    const engine = createScanEngine({ source: demoStore(() => CLOCK), now: () => CLOCK });
    for (const preset of SCAN_PRESETS) {
      const scan = request({ timeframe: preset.timeframe, conditions: preset.conditions });
      const cached = await engine.run(scan);
      expect(cached.matched, preset.name).toBeGreaterThan(0);
      expect(cached.evaluated + cached.skipped).toBe(SYMBOL_TABLE.length);
      expect(await engine.runNaive(scan)).toEqual(cached);
      // The rows pass every condition: asset classes hold, values are one per condition.
      for (const row of cached.rows) {
        expect(row.values).toHaveLength(preset.conditions.length);
        const classes = preset.conditions.find((condition) => condition.kind === 'asset_class');
        if (classes) expect(classes.classes).toContain(row.assetClass);
      }
    }
  }, 120_000);

  it("reports RSI as the indicator's value at the newest closed bar, lowest first for 'below'", async () => {
    const store = demoStore(() => CLOCK);
    const engine = createScanEngine({ source: store, now: () => CLOCK });
    const answer = await engine.run(
      request({ timeframe: '1h', conditions: [{ kind: 'rsi', side: 'below', level: 45 }] }),
    );
    expect(answer.rows.length).toBeGreaterThan(1);
    const values = answer.rows.map((row) => row.values[0]!);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    const first = answer.rows[0]!;
    const bars = await store.latest(first.id, 3600, 1440);
    const closes = candleSeries(bars).close;
    expect(first.values[0]).toBeCloseTo(rsi(closes, 14)[closes.length - 1]!, 10);
    expect(first.values[0]).toBeLessThan(45);
    expect(first.last).toBe(closes[closes.length - 1]);
    expect(Date.parse(first.barTime)).toBe(bars.at(-1)!.time);
  });

  it('re-reads only when the newest stored bar moves, and then answers as a fresh read', async () => {
    let clock = CLOCK;
    const store = demoStore(() => clock);
    const engine = createScanEngine({ source: store, now: () => clock, freshnessMs: 0 });
    const scan = request({
      timeframe: '1h',
      conditions: [
        { kind: 'price_vs_ema', side: 'above', period: 50 },
        { kind: 'change', side: 'above', percent: 0.1, bars: 3 },
      ],
    });
    await engine.run(scan);
    const afterFirst = store.reads;
    expect(afterFirst).toBe(SYMBOL_TABLE.length);
    await engine.run(scan);
    expect(store.reads).toBe(afterFirst);
    await engine.checked();
    clock += 2 * HOUR;
    // The first scan after the move answers from the held series and checks the store behind it;
    // the next one re-reads what moved.
    await engine.run(scan);
    await engine.checked();
    expect(store.reads).toBe(afterFirst);
    const moved = await engine.run(scan);
    expect(store.reads).toBeGreaterThan(afterFirst);
    expect(await engine.runNaive(scan)).toEqual(moved);
    expect(Date.parse(moved.asOf!)).toBeGreaterThan(CLOCK);
  }, 60_000);

  it('builds 4h bars from the hours and leaves the forming bucket out', async () => {
    const engine = createScanEngine({ source: demoStore(() => CLOCK), now: () => CLOCK });
    const answer = await engine.run(
      request({ timeframe: '4h', conditions: [{ kind: 'asset_class', classes: ['crypto'] }], limit: 500 }),
    );
    expect(answer.matched).toBeGreaterThan(10);
    for (const row of answer.rows) {
      const time = Date.parse(row.barTime);
      expect(time % (4 * HOUR)).toBe(0);
      expect(time + 4 * HOUR).toBeLessThanOrEqual(CLOCK);
    }
  });
});

describe('holding the universe for the scan-entry alerts', () => {
  const batches = Math.ceil(SYMBOL_TABLE.length / 100);
  const scan = request({ timeframe: '1h', conditions: [{ kind: 'change', side: 'above', percent: 0.1, bars: 3 }] });

  it('reads the symbols not held in batches, and a scan then reads nothing more', async () => {
    const store = batchedDemoStore(() => CLOCK);
    const engine = createScanEngine({ source: store, now: () => CLOCK });
    await engine.hold(SYMBOL_TABLE, 3600);
    expect(store.batches).toBe(batches);
    expect(store.reads).toBe(0);
    expect(SYMBOL_TABLE.every((symbol) => engine.holds(symbol, 3600))).toBe(true);
    // Held: holding again reads nothing, and a scan answers from what is held, as the naive peer does.
    await engine.hold(SYMBOL_TABLE, 3600);
    const answer = await engine.run(scan);
    expect([store.batches, store.reads]).toEqual([batches, 0]);
    expect(await engine.runNaive(scan)).toEqual(answer);
  }, 60_000);

  it("the evaluator's first pass after a start holds the universe in batches, not one read a symbol", async () => {
    const store = batchedDemoStore(() => CLOCK);
    const engine = createScanEngine({ source: store, now: () => CLOCK });
    const evaluator = createScanEntryEvaluator({
      engine,
      loadScans: async () => new Map([[7, { name: 'Movers', timeframe: '1h' as const, conditions: scan.conditions }]]),
      now: () => CLOCK,
    });
    const updates = SYMBOL_TABLE.map((symbol) => ({
      productId: symbol.id,
      source: 'demo',
      minutes: [],
      hours: [],
      alerts: [],
    }));
    const rule = { id: 1, userId: 'trader', name: 'Movers', scanId: 7, timeframe: '1h' as const, expiresAt: null };
    await evaluator.evaluate(updates, [rule]);
    expect(store.batches).toBe(batches);
    expect(store.reads).toBe(0);
  }, 60_000);
});
