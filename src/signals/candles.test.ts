import { describe, expect, it } from 'vitest';
import { candleSeries } from './candles.ts';

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
