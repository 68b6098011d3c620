// The per-bar scan conditions: hand-checked values on constructed series, the AND of a setup
// and its "became true" signals, and no look-ahead (a series cut after bar i answers the same
// for bars 0..i, for every kind, over random series).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanCondition, type ScanCondition } from '../shared/schemas/scans.ts';
import { candleSeries, type CandleInput, type CandleSeries } from './candles.ts';
import { ema, rsi } from './indicators.ts';
import {
  evaluateScanCondition,
  evaluateSetup,
  setupSignals,
  UnsupportedScanCondition,
  type ScanContext,
} from './scanConditions.ts';

const HOUR = 3_600_000;
const context: ScanContext = { ticker: 'BTC', assetClass: 'crypto', calendar: 'crypto-24x7', barMs: HOUR };

function rows(closes: readonly number[], volumes?: readonly number[]): CandleInput[] {
  return closes.map((close, index) => {
    const open = index === 0 ? close : closes[index - 1]!;
    return {
      time: Date.UTC(2026, 0, 1) + index * HOUR,
      open,
      high: Math.max(open, close) * 1.001,
      low: Math.min(open, close) * 0.999,
      close,
      volume: volumes?.[index] ?? 100,
    };
  });
}

const parse = (condition: unknown): ScanCondition => scanCondition.parse(condition);

function cut(series: CandleSeries, length: number): CandleSeries {
  return candleSeries(
    Array.from({ length }, (_, index) => ({
      time: series.time[index]!,
      open: series.open[index]!,
      high: series.high[index]!,
      low: series.low[index]!,
      close: series.close[index]!,
      volume: series.volume[index]!,
    })),
  );
}

describe('evaluateScanCondition', () => {
  it('change: the % change over N bars against +percent (above) or -percent (below)', () => {
    const series = candleSeries(rows([100, 101, 103, 99, 97]));
    const above = evaluateScanCondition(parse({ kind: 'change', side: 'above', percent: 2, bars: 2 }), series, context);
    expect(Number.isNaN(above.value[1]!)).toBe(true);
    expect(above.value[2]).toBeCloseTo(3, 10);
    expect(above.value[4]).toBeCloseTo(-5.825242718, 6);
    expect([...above.met]).toEqual([0, 0, 1, 0, 0]);
    const below = evaluateScanCondition(parse({ kind: 'change', side: 'below', percent: 2, bars: 2 }), series, context);
    expect([...below.met]).toEqual([0, 0, 0, 0, 1]);
  });

  it('rsi: the indicator module’s RSI, met strictly below the level', () => {
    const closes = Array.from({ length: 60 }, (_, index) => 100 + Math.sin(index / 4) * 5 - index * 0.1);
    const series = candleSeries(rows(closes));
    const result = evaluateScanCondition(parse({ kind: 'rsi', side: 'below', level: 30 }), series, context);
    const expected = rsi(series.close, 14);
    for (let index = 0; index < 60; index += 1) {
      expect(Object.is(result.value[index], expected[index]) || result.value[index] === expected[index]).toBe(true);
      expect(result.met[index]).toBe(expected[index]! < 30 ? 1 : 0);
    }
    expect(result.met.some((value) => value === 1)).toBe(true);
  });

  it('ema_cross: met on the crossing bar and the next withinBars - 1 bars', () => {
    // Falling, then rising: EMA(2) crosses above EMA(4) once.
    const closes = [10, 9, 8, 7, 6, 5, 6, 8, 10, 12, 14, 16];
    const series = candleSeries(rows(closes));
    const fast = ema(series.close, 2);
    const slow = ema(series.close, 4);
    const crossing = closes.findIndex(
      (_, index) => index > 0 && fast[index - 1]! - slow[index - 1]! <= 0 && fast[index]! - slow[index]! > 0,
    );
    expect(crossing).toBeGreaterThan(3);
    const result = evaluateScanCondition(
      parse({ kind: 'ema_cross', side: 'above', fast: 2, slow: 4, withinBars: 3 }),
      series,
      context,
    );
    expect([...result.met].flatMap((value, index) => (value ? [index] : []))).toEqual([
      crossing,
      crossing + 1,
      crossing + 2,
    ]);
    expect(result.value[crossing]).toBeCloseTo((fast[crossing]! / slow[crossing]! - 1) * 100, 10);
  });

  it('price_vs_ema, bollinger, volume_z, price_range, asset_class', () => {
    const closes = [...Array.from({ length: 30 }, () => 100), 110];
    const volumes = [...Array.from({ length: 30 }, (_, index) => 100 + (index % 2)), 1000];
    const series = candleSeries(rows(closes, volumes));
    const aboveEma = evaluateScanCondition(parse({ kind: 'price_vs_ema', side: 'above', period: 5 }), series, context);
    expect(aboveEma.met[29]).toBe(0);
    expect(aboveEma.met[30]).toBe(1);
    const band = evaluateScanCondition(parse({ kind: 'bollinger', side: 'above' }), series, context);
    expect(band.met[30]).toBe(1);
    expect(band.value[30]).toBeGreaterThan(1);
    const surge = evaluateScanCondition(parse({ kind: 'volume_z', threshold: 3 }), series, context);
    expect(surge.met[30]).toBe(1);
    expect(surge.met[29]).toBe(0);
    const range = evaluateScanCondition(parse({ kind: 'price_range', min: 105 }), series, context);
    expect([...range.met.slice(28)]).toEqual([0, 0, 1]);
    const crypto = evaluateScanCondition(parse({ kind: 'asset_class', classes: ['crypto'] }), series, context);
    expect(crypto.met.every((value) => value === 1)).toBe(true);
    const stocks = evaluateScanCondition(parse({ kind: 'asset_class', classes: ['stock'] }), series, context);
    expect(stocks.met.every((value) => value === 0)).toBe(true);
  });

  it('session_change: from the first bar of the UTC day (24/7 market)', () => {
    const closes = Array.from({ length: 30 }, (_, index) => 100 + index);
    const series = candleSeries(rows(closes));
    const result = evaluateScanCondition(parse({ kind: 'session_change', side: 'above', percent: 5 }), series, context);
    // Bar 24 opens the second UTC day at 123 (the previous close) and closes at 124.
    expect(result.value[23]).toBeCloseTo((123 / 100 - 1) * 100, 10);
    expect(result.value[24]).toBeCloseTo((124 / 123 - 1) * 100, 10);
    expect(result.met[23]).toBe(1);
    expect(result.met[24]).toBe(0);
  });

  it('refuses watos_edge with a message naming the field', () => {
    const series = candleSeries(rows([1, 2, 3]));
    expect(() => evaluateScanCondition(parse({ kind: 'watos_edge' }), series, context)).toThrow(
      UnsupportedScanCondition,
    );
    expect(() => evaluateScanCondition(parse({ kind: 'watos_edge' }), series, context)).toThrow(/^conditions: /);
  });
});

describe('evaluateSetup and setupSignals', () => {
  it('ANDs the conditions and signals the bars where all became true together', () => {
    const series = candleSeries(rows([100, 102, 104, 103, 106, 108]));
    const setup = evaluateSetup(
      [parse({ kind: 'change', side: 'above', percent: 1, bars: 1 }), parse({ kind: 'price_range', min: 103.5 })],
      series,
      context,
    );
    // change >= 1%: bars 1, 2, 4 (+2.9%), 5 (+1.9%); price >= 103.5: bars 2, 4, 5.
    expect([...setup.met]).toEqual([0, 0, 1, 0, 1, 1]);
    expect([...setupSignals(setup)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(setup.values).toHaveLength(2);
  });
});

const conditionsUnderTest: ScanCondition[] = [
  parse({ kind: 'change', side: 'above', percent: 0.5, bars: 3 }),
  parse({ kind: 'rsi', side: 'below', level: 40, period: 5 }),
  parse({ kind: 'ema_cross', side: 'above', fast: 3, slow: 8, withinBars: 2 }),
  parse({ kind: 'ema_cross', side: 'below', fast: 3, slow: 8 }),
  parse({ kind: 'price_vs_ema', side: 'above', period: 6 }),
  parse({ kind: 'bollinger', side: 'below', period: 8, deviations: 1 }),
  parse({ kind: 'volume_z', threshold: 1, period: 5 }),
  parse({ kind: 'builtin', withinBars: 5 }),
  parse({ kind: 'price_range', min: 90, max: 110 }),
  parse({ kind: 'session_change', side: 'below', percent: 0.5 }),
  parse({ kind: 'asset_class', classes: ['crypto', 'stock'] }),
];

describe('no look-ahead', () => {
  it('bars 0..i answer the same when the series ends at bar i (every kind, random series)', () => {
    const walk = fc.array(fc.double({ min: -0.03, max: 0.03, noNaN: true }), { minLength: 20, maxLength: 160 });
    fc.assert(
      fc.property(
        walk,
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 160, maxLength: 160 }),
        (steps, volumes) => {
          const closes: number[] = [];
          let price = 100;
          for (const step of steps) closes.push((price *= 1 + step));
          const series = candleSeries(rows(closes, volumes));
          const ends = [5, Math.floor(series.length / 2), series.length - 2].filter((end) => end > 0);
          for (const condition of conditionsUnderTest) {
            const whole = evaluateScanCondition(condition, series, context);
            for (const end of ends) {
              const part = evaluateScanCondition(condition, cut(series, end + 1), context);
              for (let index = 0; index <= end; index += 1) {
                expect(part.met[index], `${condition.kind} met at ${index} of ${end}`).toBe(whole.met[index]);
                expect(Object.is(part.value[index], whole.value[index]), `${condition.kind} value at ${index}`).toBe(
                  true,
                );
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('builtin: met on the bar a built-in alert fires, for withinBars bars', () => {
    // A calm stretch then a jump: a volatility spike and a breakout.
    const closes = [...Array.from({ length: 80 }, (_, index) => 100 + Math.sin(index) * 0.2), 130, 131, 132];
    const series = candleSeries(rows(closes));
    const result = evaluateScanCondition(parse({ kind: 'builtin', withinBars: 2 }), series, context);
    expect(result.met[80]).toBe(1);
    expect(result.value[80]).toBe(0);
    expect(result.met[79]).toBe(0);
  });
});
