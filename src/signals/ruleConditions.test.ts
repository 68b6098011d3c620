import { describe, expect, it } from 'vitest';
import { candleSeries, type CandleInput } from './candles.ts';
import { bollinger, ema, rsi, volumeZScore } from './indicators.ts';
import {
  aggregate,
  bollingerNext,
  bucketStart,
  channelCrossed,
  closedBars,
  crossesDown,
  crossesUp,
  emaNext,
  emaSeed,
  formingBar,
  levelsCrossedDown,
  levelsCrossedUp,
  percentMoveMet,
  priceCrosses,
  referenceIndex,
  rsiNext,
  rsiSeed,
  ruleFiresAt,
  sourceWindow,
  volumeZNext,
  watosEvaluatedAt,
  watosOddsMet,
  watosProbabilities,
  windowStart,
} from './ruleConditions.ts';
import type { WatosReport } from './watosOdds.ts';

function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function walk(length: number, seed = 7): Float64Array {
  const next = random(seed);
  const out = new Float64Array(length);
  let price = 100;
  for (let index = 0; index < length; index += 1) out[index] = price *= 1 + (next() - 0.5) * 0.02;
  return out;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** 2026-01-05 00:00 UTC, a Monday. */
const T0 = Date.UTC(2026, 0, 5);

function minuteRows(closes: number[], from = T0, volumes?: number[]): CandleInput[] {
  return closes.map((close, index) => ({
    time: from + index * MINUTE,
    open: index > 0 ? closes[index - 1]! : close,
    high: Math.max(close, index > 0 ? closes[index - 1]! : close) + 0.5,
    low: Math.min(close, index > 0 ? closes[index - 1]! : close) - 0.5,
    close,
    volume: volumes?.[index] ?? 10,
  }));
}

describe('indicator steps agree bit for bit with indicators.ts', () => {
  const values = walk(300);
  const concat = (closed: Float64Array, last: number) => {
    const all = new Float64Array(closed.length + 1);
    all.set(closed);
    all[closed.length] = last;
    return all;
  };

  it('RSI: seed over the closed bars plus one step equals the last value over all of them', () => {
    for (const period of [2, 14]) {
      for (const count of [0, period - 1, period, period + 1, period + 2, 99, 250]) {
        const closed = values.subarray(0, count);
        const all = concat(closed, values[count]!);
        const expected = rsi(all, period)[count];
        const actual = rsiNext(rsiSeed(closed, period), values[count]!, period);
        if (Number.isNaN(expected)) expect(actual).toBeNaN();
        else expect(actual).toBe(expected);
      }
    }
  });

  it('RSI reads 50 over a flat stretch', () => {
    const flat = new Float64Array(20).fill(10);
    expect(rsiNext(rsiSeed(flat, 14), 10, 14)).toBe(50);
  });

  it('EMA: seed plus one step equals indicators.ts ema', () => {
    for (const period of [2, 9, 26]) {
      for (const count of [0, period - 2, period - 1, period, period + 1, 150]) {
        const closed = values.subarray(0, Math.max(0, count));
        const all = concat(closed, values[closed.length]!);
        const expected = ema(all, period)[closed.length];
        const actual = emaNext(emaSeed(closed, period), values[closed.length]!, period);
        if (Number.isNaN(expected)) expect(actual).toBeNaN();
        else expect(actual).toBe(expected);
      }
    }
  });

  it('Bollinger over the last period values equals indicators.ts over that window, and the full series closely', () => {
    const closed = values.subarray(0, 120);
    const bands = bollingerNext(closed, values[120]!, 20, 2);
    const window = concat(values.subarray(101, 120), values[120]!);
    const exact = bollinger(window, 20, 2);
    expect(bands.upper).toBe(exact.upper[19]);
    expect(bands.lower).toBe(exact.lower[19]);
    const full = bollinger(values.subarray(0, 121), 20, 2);
    expect(bands.upper).toBeCloseTo(full.upper[120]!, 9);
    expect(bollingerNext(values.subarray(0, 18), 1, 20, 2).upper).toBeNaN();
  });

  it('volume z-score equals indicators.ts over the previous period plus the forming volume', () => {
    const volumes = walk(60, 3).map((value) => value * 10);
    const closed = volumes.subarray(0, 40);
    const window = concat(volumes.subarray(20, 40), 5000);
    expect(volumeZNext(closed, 5000, 20)).toBe(volumeZScore(window, 20)[20]);
    expect(volumeZNext(volumes.subarray(0, 19), 5000, 20)).toBeNaN();
    expect(volumeZNext(new Float64Array(20).fill(7), 99, 20)).toBe(0);
  });
});

describe('crossings', () => {
  it('price crosses: closing exactly at the level fires, a gap across fires, staying at it does not', () => {
    expect(priceCrosses('above', 99, 100, 100)).toBe(true);
    expect(priceCrosses('above', 95, 105, 100)).toBe(true);
    expect(priceCrosses('above', 100, 100, 100)).toBe(false);
    expect(priceCrosses('above', 100, 101, 100)).toBe(false);
    expect(priceCrosses('below', 101, 100, 100)).toBe(true);
    expect(priceCrosses('below', 105, 95, 100)).toBe(true);
    expect(priceCrosses('below', 100, 99, 100)).toBe(false);
  });

  it('finds the levels crossed by binary search over (prevClose, close] and [close, prevClose)', () => {
    const levels = Float64Array.from([95, 100, 100, 102, 105, 110]);
    expect(levelsCrossedUp(levels, 99, 105)).toEqual([1, 5]);
    expect(levelsCrossedUp(levels, 100, 101)).toEqual([3, 3]);
    expect(levelsCrossedUp(levels, 105, 99)).toEqual([0, 0]);
    expect(levelsCrossedDown(levels, 105, 100)).toEqual([1, 4]);
    expect(levelsCrossedDown(levels, 100, 100)).toEqual([0, 0]);
    // Agrees with the one-rule test for every level.
    for (const [prev, close] of [
      [99, 105],
      [105, 100],
      [94, 111],
      [100, 100],
    ]) {
      const [upFrom, upTo] = levelsCrossedUp(levels, prev!, close!);
      const [downFrom, downTo] = levelsCrossedDown(levels, prev!, close!);
      levels.forEach((level, index) => {
        expect(index >= upFrom && index < upTo).toBe(priceCrosses('above', prev!, close!, level));
        expect(index >= downFrom && index < downTo).toBe(priceCrosses('below', prev!, close!, level));
      });
    }
  });

  it('indicator crossings: from at-or-below to above; NaN is false', () => {
    expect(crossesUp(70, 70.1, 70)).toBe(true);
    expect(crossesUp(69, 70, 70)).toBe(false);
    expect(crossesUp(NaN, 75, 70)).toBe(false);
    expect(crossesDown(30, 29.9, 30)).toBe(true);
    expect(crossesDown(31, 30, 30)).toBe(false);
  });

  it('channels: bounds are inside', () => {
    expect(channelCrossed('enters', 89, 90, 90, 110)).toBe(true);
    expect(channelCrossed('enters', 111, 110, 90, 110)).toBe(true);
    expect(channelCrossed('enters', 90, 100, 90, 110)).toBe(false);
    expect(channelCrossed('exits', 110, 110.01, 90, 110)).toBe(true);
    expect(channelCrossed('exits', 89, 80, 90, 110)).toBe(false);
  });
});

describe('percent moves', () => {
  it('measures against the last minute bar at or before the window start', () => {
    // Minutes 0..4, then a gap to minute 10.
    const minutes = candleSeries([...minuteRows([100, 101, 102, 103, 104]), ...minuteRows([106], T0 + 10 * MINUTE)]);
    expect(referenceIndex(minutes, 4, 3)).toBe(1);
    expect(referenceIndex(minutes, 4, 5)).toBe(-1);
    // 10 - 3 = minute 7: the last bar at or before it is minute 4.
    expect(referenceIndex(minutes, 5, 3)).toBe(4);
    expect(percentMoveMet(3, 103, 100)).toBe(true);
    expect(percentMoveMet(3, 102.9, 100)).toBe(false);
    expect(percentMoveMet(-2, 98, 100)).toBe(true);
    expect(percentMoveMet(-2, 98.5, 100)).toBe(false);
  });

  it('fires when the move becomes true, not while it stays true', () => {
    const minutes = candleSeries(minuteRows([100, 100, 101, 103, 104, 104]));
    const bars = { minutes, hours: candleSeries([]) };
    const condition = { kind: 'percent_move', percent: 3, windowMinutes: 2 } as const;
    // Minute 3: 103 / 100 = +3% (fires); minute 4: 104 / 101 < 3%; minute 5: 104 / 103 < 3%.
    expect([1, 2, 3, 4, 5].map((index) => ruleFiresAt(condition, '1m', bars, index))).toEqual([
      false,
      false,
      true,
      false,
      false,
    ]);
  });
});

describe('timeframe bars', () => {
  it('buckets are UTC epoch multiples (4h at 0, 4, 8 UTC; 1D at midnight UTC)', () => {
    const time = T0 + 13 * HOUR + 7 * MINUTE;
    expect(bucketStart(time, 4 * HOUR)).toBe(T0 + 12 * HOUR);
    expect(bucketStart(time, DAY)).toBe(T0);
    expect(bucketStart(time, 15 * MINUTE)).toBe(T0 + 13 * HOUR);
  });

  it('aggregates minutes into 5m bars: first open, high, low, last close, summed volume', () => {
    const rows = minuteRows([10, 11, 9, 12, 13, 14, 15], T0, [1, 2, 3, 4, 5, 6, 7]);
    const frame = aggregate(candleSeries(rows), 0, 7, 5 * MINUTE);
    expect(frame.length).toBe(2);
    expect([...frame.close]).toEqual([13, 15]);
    expect([...frame.volume]).toEqual([15, 13]);
    expect([...frame.open]).toEqual([10, 13]);
    expect(frame.high[0]).toBe(13.5);
    expect(frame.low[0]).toBe(8.5);
    expect([...frame.first]).toEqual([0, 5]);
  });

  it('drops the oldest bucket when the source window cuts it, so the window never depends on how much is held', () => {
    // 15m bars, window of 2 bars: 45 source minutes. Minutes 0..99 held, the forming bar opens at 01:45.
    const minutes = candleSeries(minuteRows(Array.from({ length: 100 }, (_, index) => 100 + index)));
    const limit = sourceWindow('15m', 2);
    expect(limit).toBe(45);
    const end = 100;
    const frame = aggregate(minutes, end - limit, end, 15 * MINUTE);
    // 55..99 spans buckets 45-59 (cut at 55: dropped), 60-74, 75-89, 90-99.
    expect(windowStart(frame, end, '15m', 2)).toBe(2);
    const closed = closedBars({ minutes, hours: candleSeries([]) }, '15m', T0 + 105 * MINUTE, 2);
    expect([...closed.close]).toEqual([189, 199]);
    expect([...closed.time]).toEqual([T0 + 75 * MINUTE, T0 + 90 * MINUTE]);
  });

  it('a 4h forming bar is its closed hours plus the minutes of the forming hour', () => {
    const hours = candleSeries(
      [0, 1, 2, 3, 4, 5].map((hour) => ({
        time: T0 + hour * HOUR,
        open: 100 + hour,
        high: 110 + hour,
        low: 90 + hour,
        close: 101 + hour,
        volume: 1000,
      })),
    );
    // Minutes of 06:00-06:02 (the hourly bar of 06:00 is not closed yet).
    const minutes = candleSeries(minuteRows([107, 120, 108], T0 + 6 * HOUR, [1, 2, 3]));
    const bar = formingBar({ minutes, hours }, '4h', 2);
    expect(bar).toEqual({ time: T0 + 4 * HOUR, open: 104, high: 120.5, low: 94, close: 108, volume: 2006 });
  });

  it('WATOS evaluates on the minute completing a bar, or the first minute after a market closed early', () => {
    const minutes = candleSeries([
      ...minuteRows([1, 2], T0 + 58 * MINUTE),
      ...minuteRows([3], T0 + 2 * HOUR + 30 * MINUTE),
      ...minuteRows([4], T0 + 3 * HOUR + 5 * MINUTE),
    ]);
    expect([0, 1, 2, 3].map((index) => watosEvaluatedAt(minutes, index, '1h'))).toEqual([false, true, false, true]);
  });
});

describe('WATOS odds', () => {
  const report = (probabilities: Array<number | null>, active = true): WatosReport =>
    ({
      horizon: 24,
      baseRate: { probability: 0.5, samples: 100, interval: [0.4, 0.6] },
      signals: probabilities.map((probability, index) => ({
        id: `watos${index + 1}`,
        active,
        odds: { probability, samples: probability === null ? 10 : 40, interval: null, reason: null },
      })),
    }) as unknown as WatosReport;

  it('uses the measured probabilities of active signals only', () => {
    expect(watosProbabilities(report([0.7, null, 0.2]))).toEqual([0.7, 0.2]);
    expect(watosProbabilities(report([0.7], false))).toEqual([]);
  });

  it('a rise needs p >= threshold, a fall 1 - p >= threshold', () => {
    expect(watosOddsMet([0.7], 'rise', 70)).toBe(true);
    expect(watosOddsMet([0.69], 'rise', 70)).toBe(false);
    expect(watosOddsMet([0.2], 'fall', 80)).toBe(true);
    expect(watosOddsMet([0.25], 'fall', 80)).toBe(false);
    expect(watosOddsMet([], 'rise', 50)).toBe(false);
  });
});
