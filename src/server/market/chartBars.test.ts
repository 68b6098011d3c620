// The own chart's bars: UTC-aligned buckets of stored bars (a 4h and a 1D bucket on crafted
// hourly bars, gaps left as gaps, a cut oldest bucket dropped) and the overlays and RSI, equal
// to the signals engine's indicators on the bucket closes with null for the warm-up.
import { describe, expect, it } from 'vitest';
import { bollinger, ema, rsi, sma } from '../../signals/indicators.ts';
import { bucketCandles, chartBars, chartIndicators, warmupBars } from './chartBars.ts';
import type { StoredCandle } from './service.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 10, 20); // midnight UTC

function bar(time: number, open: number, high: number, low: number, close: number, volume: number): StoredCandle {
  return { time, open, high, low, close, volume, source: 'demo' };
}

/** Hourly bars from `from` with closes 100, 101, ... (open = close - 0.5, high + 2, low - 3, volume 10 + i). */
function hourly(from: number, count: number, skip: (index: number) => boolean = () => false): StoredCandle[] {
  const rows: StoredCandle[] = [];
  for (let index = 0; index < count; index += 1) {
    if (skip(index)) continue;
    const close = 100 + index;
    rows.push(bar(from + index * HOUR, close - 0.5, close + 2, close - 3, close, 10 + index));
  }
  return rows;
}

describe('bucketCandles', () => {
  it('makes a 4h bar of the first open, highest high, lowest low, last close and summed volume', () => {
    const rows = [
      bar(START + 0 * HOUR, 10, 12, 9, 11, 5),
      bar(START + 1 * HOUR, 11, 15, 10, 14, 7),
      bar(START + 2 * HOUR, 14, 14.5, 8, 9, 3),
      bar(START + 3 * HOUR, 9, 10, 8.5, 9.5, 1),
      bar(START + 4 * HOUR, 9.5, 11, 9, 10, 2),
    ];
    expect(bucketCandles(rows, 4 * HOUR)).toEqual([
      { time: START, open: 10, high: 15, low: 8, close: 9.5, volume: 16, source: 'demo' },
      { time: START + 4 * HOUR, open: 9.5, high: 11, low: 9, close: 10, volume: 2, source: 'demo' },
    ]);
  });

  it('aligns buckets to UTC: a 4h bar opens at 00, 04, 08 ... UTC and a 1D bar at midnight UTC', () => {
    // From 22:00 UTC: 22h and 23h belong to the 20:00 bucket and the day before.
    const rows = hourly(START - 2 * HOUR, 28);
    const fourHours = bucketCandles(rows, 4 * HOUR);
    expect(fourHours.map((entry) => new Date(entry.time).toISOString().slice(11, 16))).toEqual([
      '20:00',
      '00:00',
      '04:00',
      '08:00',
      '12:00',
      '16:00',
      '20:00',
      '00:00',
    ]);
    expect(fourHours[0]).toMatchObject({ open: 99.5, close: 101, volume: 10 + 11 });
    const days = bucketCandles(rows, DAY);
    expect(days.map((entry) => new Date(entry.time).toISOString())).toEqual([
      '2026-11-19T00:00:00.000Z',
      '2026-11-20T00:00:00.000Z',
      '2026-11-21T00:00:00.000Z',
    ]);
    // The whole of 2026-11-20: hourly bars 2..25 (closes 102..125).
    expect(days[1]).toEqual({
      time: START,
      open: 101.5,
      high: 127,
      low: 99,
      close: 125,
      volume: [...Array(24).keys()].reduce((sum, index) => sum + 12 + index, 0),
      source: 'demo',
    });
  });

  it('leaves a bucket with no stored bar out (a gap), and builds one from the bars it has', () => {
    // Hours 4..11 missing: the 04:00 and 08:00 buckets are absent, not made up.
    const rows = hourly(START, 16, (index) => index >= 4 && index < 12);
    const buckets = bucketCandles(rows, 4 * HOUR);
    expect(buckets.map((entry) => (entry.time - START) / HOUR)).toEqual([0, 12]);
    // A bucket with one hour missing still takes what it has.
    const partial = bucketCandles(
      hourly(START, 4, (index) => index === 0),
      4 * HOUR,
    );
    expect(partial).toEqual([bar(START, 100.5, 105, 98, 103, 11 + 12 + 13)]);
  });
});

describe('chartIndicators', () => {
  it('gives the engine indicators of the closes, null during the warm-up', () => {
    const rows = hourly(START, 60).map((entry, index) => ({ ...entry, close: 100 + 5 * Math.sin(index / 3) }));
    const close = Float64Array.from(rows, (entry) => entry.close);
    const result = chartIndicators(rows, ['sma20', 'sma50', 'ema20', 'bb20'], 14);
    const asLine = (values: Float64Array) => Array.from(values, (value) => (Number.isNaN(value) ? null : value));
    expect(result.overlays.map((overlay) => overlay.id)).toEqual(['sma20', 'sma50', 'ema20', 'bb20']);
    expect(result.overlays[0]!.lines[0]!.values).toEqual(asLine(sma(close, 20)));
    expect(result.overlays[1]!.lines[0]!.values).toEqual(asLine(sma(close, 50)));
    expect(result.overlays[2]!.lines[0]!.values).toEqual(asLine(ema(close, 20)));
    const bands = bollinger(close, 20, 2);
    expect(result.overlays[3]!.lines.map((entry) => entry.name)).toEqual(['BB upper', 'BB middle', 'BB lower']);
    expect(result.overlays[3]!.lines[0]!.values).toEqual(asLine(bands.upper));
    expect(result.overlays[3]!.lines[2]!.values).toEqual(asLine(bands.lower));
    expect(result.rsi).toEqual({ period: 14, values: asLine(rsi(close, 14)) });
    // Warm-up: SMA 20 undefined on the first 19 bars, SMA 50 on 49, RSI 14 on 14.
    expect(result.overlays[0]!.lines[0]!.values.slice(0, 19).every((value) => value === null)).toBe(true);
    expect(result.overlays[0]!.lines[0]!.values[19]).toBeCloseTo(close.slice(0, 20).reduce((a, b) => a + b) / 20, 10);
    expect(result.overlays[1]!.lines[0]!.values.filter((value) => value === null)).toHaveLength(49);
    expect(result.rsi?.values.filter((value) => value === null)).toHaveLength(14);
  });

  it('computes on bucket closes: SMA 20 of crafted 4h closes', () => {
    // 4h buckets of hourly closes 100 + i: each bucket closes at 103 + 4k.
    const buckets = bucketCandles(hourly(START, 4 * 25), 4 * HOUR);
    const { overlays } = chartIndicators(buckets, ['sma20'], undefined);
    // The mean of 103 + 4k for k = 0..19 is 103 + 38 = 141; the next bar's is 145.
    expect(overlays[0]!.lines[0]!.values[19]).toBe(141);
    expect(overlays[0]!.lines[0]!.values[20]).toBe(145);
  });

  it('needs as many warm-up bars as the longest period asked', () => {
    expect(warmupBars([], undefined)).toBe(0);
    expect(warmupBars(['sma20', 'bb20'], undefined)).toBe(20);
    expect(warmupBars(['ema20'], 14)).toBe(20);
    expect(warmupBars(['sma50'], 14)).toBe(50);
    expect(warmupBars([], 30)).toBe(31);
  });
});

describe('chartBars', () => {
  it('reads the warm-up too, so the shown bars have their overlays from the first one', async () => {
    const stored = hourly(START, 24 * 10);
    const asked: Array<[number, number]> = [];
    const history = async (granularity: 60 | 3600, limit: number) => {
      asked.push([granularity, limit]);
      return stored.slice(-limit);
    };
    const result = await chartBars(history, '1h', 30, ['sma20'], undefined);
    expect(asked).toEqual([[3600, 50]]);
    expect(result.bars).toHaveLength(30);
    expect(result.bars[0]!.close).toBe(100 + 24 * 10 - 30);
    expect(result.overlays[0]!.lines[0]!.values).toHaveLength(30);
    expect(result.overlays[0]!.lines[0]!.values.every((value) => value !== null)).toBe(true);
    // The first shown bar's SMA 20: closes 291..310.
    expect(result.overlays[0]!.lines[0]!.values[0]).toBe(300.5);
  });

  it('drops the oldest bucket when the read was cut inside it', async () => {
    // 10 days of hours from 06:00 UTC: reading 11 days' worth cannot cut, 2 days' worth can.
    const stored = hourly(START + 6 * HOUR, 24 * 10);
    const history = async (_granularity: 60 | 3600, limit: number) => stored.slice(-limit);
    const all = await chartBars(history, '1D', 20, [], undefined);
    // Every stored day, the first one partial (from 06:00) since that is all there is.
    expect(all.bars.map((entry) => new Date(entry.time).toISOString().slice(0, 10))).toEqual(
      [...Array(11).keys()].map((index) => new Date(START + index * DAY).toISOString().slice(0, 10)),
    );
    // 4h with EMA 20: 23 buckets' worth of hours (92) read from the newest, 05:00 UTC, back to
    // 10:00: the 08:00 bucket holds only 10:00 and 11:00 and is dropped before the EMA is seeded.
    const cut = await chartBars(history, '4h', 2, ['ema20'], undefined);
    const read = stored.slice(-92);
    expect(new Date(read[0]!.time).toISOString().slice(11, 16)).toBe('10:00');
    const full = bucketCandles(read, 4 * HOUR).slice(1);
    expect(new Date(full[0]!.time).toISOString().slice(11, 16)).toBe('12:00');
    const expected = ema(
      Float64Array.from(full, (entry) => entry.close),
      20,
    );
    expect(cut.bars.map((entry) => entry.time)).toEqual(full.slice(-2).map((entry) => entry.time));
    expect(cut.overlays[0]!.lines[0]!.values).toEqual(Array.from(expected.slice(-2)));
  });
});
