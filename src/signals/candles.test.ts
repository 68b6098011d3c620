import { describe, expect, it } from 'vitest';
import { candleSeries, cleanSeries, joinSeries } from './candles.ts';

describe('candleSeries', () => {
  it('cleans feed errors: gap bars repeat the close, NaN or negative volume counts as zero', () => {
    const series = candleSeries([
      { time: 0, open: NaN, high: NaN, low: NaN, close: NaN, volume: 5 },
      { time: 1, open: 10, high: 11, low: 9, close: 10.5, volume: NaN },
      { time: 2, open: NaN, high: NaN, low: NaN, close: NaN, volume: 3 },
      { time: 3, open: 10.5, high: 10, low: 12, close: 11, volume: -4 },
    ]);
    expect(series.length).toBe(3);
    expect([...series.time]).toEqual([1, 2, 3]);
    expect([...series.close]).toEqual([10.5, 10.5, 11]);
    expect([...series.open]).toEqual([10, 10.5, 10.5]);
    expect([...series.volume]).toEqual([0, 3, 0]);
    // A high below the body (bad data) is lifted to the body; every bar stays consistent.
    expect(series.high[2]).toBe(11);
    expect(series.low[2]).toBe(10.5);
  });

  it('handles an empty input', () => {
    expect(candleSeries([]).length).toBe(0);
  });
});

describe('cleanSeries', () => {
  it('cleans columns as read from the store by the same rules, in place', () => {
    const columns = (values: number[][]) => values.map((row) => Float64Array.from(row));
    const [time, open, high, low, close, volume] = columns([
      [0, 1, 2, 3],
      [NaN, 10, 0, 10.5],
      [NaN, 11, 0, 10],
      [NaN, 9, 0, 12],
      [-1, 10.5, 0, 11],
      [5, NaN, 3, -4],
    ]) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    const raw = { length: 4, time, open, high, low, close, volume };
    const cleaned = cleanSeries(raw);
    expect(cleaned.length).toBe(3);
    expect([...cleaned.time]).toEqual([1, 2, 3]);
    expect([...cleaned.close]).toEqual([10.5, 10.5, 11]);
    expect([...cleaned.open]).toEqual([10, 10.5, 10.5]);
    expect([...cleaned.high]).toEqual([11, 10.5, 11]);
    expect([...cleaned.low]).toEqual([9, 10.5, 10.5]);
    expect([...cleaned.volume]).toEqual([0, 3, 0]);
    // The same arrays, not copies.
    expect(cleaned.close.buffer).toBe(close.buffer);
  });
});

describe('joinSeries', () => {
  const rows = (from: number, count: number) =>
    Array.from({ length: count }, (_, index) => {
      const value = from + index;
      return {
        time: value * 60_000,
        open: value,
        high: value + 1,
        low: value - 0.5,
        close: value + 0.5,
        volume: value * 10,
      };
    });

  it('puts the bars of every part one after another', () => {
    const joined = joinSeries([candleSeries(rows(1, 3)), candleSeries([]), candleSeries(rows(4, 2))]);
    expect(joined.length).toBe(5);
    expect([...joined.close]).toEqual([1.5, 2.5, 3.5, 4.5, 5.5]);
    expect([...joined.time]).toEqual([1, 2, 3, 4, 5].map((value) => value * 60_000));
    expect([...joined.volume]).toEqual([10, 20, 30, 40, 50]);
  });

  it('keeps only the newest bars, across part boundaries, in one buffer of its own', () => {
    const first = candleSeries(rows(1, 3));
    const joined = joinSeries([first, candleSeries(rows(4, 2))], 3);
    expect([...joined.open]).toEqual([3, 4, 5]);
    expect([...joined.high]).toEqual([4, 5, 6]);
    expect([...joined.low]).toEqual([2.5, 3.5, 4.5]);
    expect(joined.time.buffer).toBe(joined.volume.buffer);
    expect(joined.time.buffer.byteLength).toBe(3 * 6 * 8);
    first.close[2] = 99;
    expect(joined.close[0]).toBe(3.5);
  });

  it('gives an empty series for nothing to keep', () => {
    expect(joinSeries([candleSeries(rows(1, 3))], 0).length).toBe(0);
    expect(joinSeries([]).length).toBe(0);
  });
});
