// Indicators: hand-checked small cases, edge cases (flat prices, short series, zero volume),
// and a value-by-value oracle against two peer libraries on the same series, with the known,
// legitimate differences tested as such.
import * as technical from 'technicalindicators';
import { ATR as TsAtr, BollingerBands as TsBollinger, EMA as TsEma, RSI as TsRsi, SMA as TsSma } from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { atr, bollinger, ema, roc, rsi, sma, supportResistance, swingPoints, volumeZScore } from './indicators.ts';

const f = (values: number[]) => Float64Array.from(values);

/** A deterministic, realistic-looking series: random walk with changing volatility. */
function walk(length: number, seed = 7) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const close = new Float64Array(length);
  const high = new Float64Array(length);
  const low = new Float64Array(length);
  let price = 100;
  for (let index = 0; index < length; index += 1) {
    const volatility = index % 400 < 200 ? 0.01 : 0.025;
    price *= Math.exp((random() - 0.5) * 2 * volatility);
    close[index] = price;
    high[index] = price * (1 + random() * volatility);
    low[index] = price * (1 - random() * volatility);
  }
  return { close, high, low };
}

function expectClose(actual: number, expected: number, tolerance: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(expected)));
}

describe('hand-checked small cases', () => {
  it('SMA and EMA (seeded with the SMA)', () => {
    expect([...sma(f([1, 2, 3, 4, 5]), 3)]).toEqual([NaN, NaN, 2, 3, 4]);
    const values = [...ema(f([1, 2, 3, 4, 5]), 3)];
    expect(values.slice(0, 2)).toEqual([NaN, NaN]);
    expect(values.slice(2)).toEqual([2, 3, 4]);
  });

  it('RSI (Wilder): all gains read 100, all flat reads 50, and a textbook case', () => {
    expect(rsi(f([1, 2, 3, 4]), 3)[3]).toBe(100);
    expect(rsi(f([5, 5, 5, 5]), 3)[3]).toBe(50);
    // gains 1,0 ; losses 0,1 over 2 bars -> RS 1 -> 50; then +2: gain (0.5*1+2)/2=1.25, loss 0.25 -> RS 5
    const values = rsi(f([10, 11, 10, 12]), 2);
    expect(values[2]).toBe(50);
    expect(values[3]).toBeCloseTo(100 - 100 / 6, 12);
  });

  it('ATR (Wilder) with gaps between bars', () => {
    const high = f([10, 12, 20]);
    const low = f([9, 11, 18]);
    const close = f([9.5, 11.5, 19]);
    const values = atr(high, low, close, 2);
    // TR: 1, max(1, 2.5, 1.5)=2.5 -> first ATR 1.75; TR3 = max(2, 8.5, 6.5)=8.5 -> (1.75+8.5)/2
    expect(values[1]).toBe(1.75);
    expect(values[2]).toBe(5.125);
  });

  it('Bollinger bands with the population standard deviation', () => {
    const { middle, upper, lower } = bollinger(f([2, 4, 4, 4, 5, 5, 7, 9]), 8, 2);
    expect(middle[7]).toBe(5);
    expect(upper[7]).toBe(9);
    expect(lower[7]).toBe(1);
  });

  it('volume z-score against the previous bars, 0 when volume never varies', () => {
    const values = volumeZScore(f([10, 20, 10, 20, 35]), 4);
    expect(values[3]).toBeNaN();
    expect(values[4]).toBeCloseTo((35 - 15) / 5, 12);
    expect([...volumeZScore(f([0, 0, 0, 0, 0, 0]), 3)].slice(3)).toEqual([0, 0, 0]);
  });

  it('rate of change in percent', () => {
    const oneBar = roc(f([100, 110, 121]), 1);
    expect(oneBar[0]).toBeNaN();
    expect(oneBar[1]).toBeCloseTo(10, 12);
    expect(oneBar[2]).toBeCloseTo(10, 12);
    expect(roc(f([100, 110, 121]), 2)[2]).toBeCloseTo(21, 12);
  });

  it('swing points and support/resistance levels', () => {
    const high = f([5, 6, 9, 6, 5, 6, 9.05, 6, 5, 4, 5]);
    const low = f([4, 5, 8, 5, 2, 5, 8, 5, 2.05, 3, 4]);
    const close = f([4.5, 5.5, 8.5, 5.5, 3, 5.5, 8.5, 5.5, 3, 3.5, 4.5]);
    const swings = swingPoints(high, low, 2);
    expect([...swings]).toEqual([0, 0, 1, 0, -1, 0, 1, 0, -1, 0, 0]);
    const levels = supportResistance(high, low, close, swings, 10, 10, 0.2);
    expect(levels).toEqual([
      { price: 2.025, touches: 2, kind: 'support' },
      { price: 9.025, touches: 2, kind: 'resistance' },
    ]);
  });
});

describe('edge cases: no throw, no NaN after warm-up', () => {
  it('handles series shorter than the window', () => {
    expect([...sma(f([1, 2]), 5)]).toEqual([NaN, NaN]);
    expect([...ema(f([1]), 5)]).toEqual([NaN]);
    expect([...rsi(f([1, 2]), 14)]).toEqual([NaN, NaN]);
    expect(atr(f([]), f([]), f([]), 14)).toHaveLength(0);
    expect(swingPoints(f([1]), f([1]), 3)).toEqual(new Int8Array([0]));
  });

  it('stays finite on flat prices', () => {
    const flat = new Float64Array(100).fill(42);
    for (const values of [
      sma(flat, 20),
      ema(flat, 20),
      rsi(flat, 14),
      atr(flat, flat, flat, 14),
      bollinger(flat, 20).upper,
      roc(flat, 10),
    ]) {
      expect(values.slice(25).every(Number.isFinite)).toBe(true);
    }
    expect(bollinger(flat, 20).upper[50]).toBe(42);
  });
});

describe('swing points match the definition', () => {
  /** The definition, written the obvious way (an early exit on the first higher neighbour). */
  function reference(high: Float64Array, low: Float64Array, strength: number): Int8Array {
    const out = new Int8Array(high.length);
    for (let index = strength; index < high.length - strength; index += 1) {
      let isHigh = true;
      let isLow = true;
      for (let offset = 1; offset <= strength && (isHigh || isLow); offset += 1) {
        if (high[index - offset]! >= high[index]! || high[index + offset]! >= high[index]!) isHigh = false;
        if (low[index - offset]! <= low[index]! || low[index + offset]! <= low[index]!) isLow = false;
      }
      out[index] = isHigh ? 1 : isLow ? -1 : 0;
    }
    return out;
  }

  it('on every strength from 0 to 5, odd and even lengths, with ties, with and without NaN', () => {
    let state = 11;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const nanShare of [0, 0.02]) {
      for (const length of [0, 1, 6, 7, 8, 9, 10, 501, 502]) {
        // Few distinct values, so equal neighbours (which are not swings) are common.
        const value = () => (random() < nanShare ? NaN : Math.floor(random() * 6));
        const high = Float64Array.from({ length }, value);
        const low = Float64Array.from({ length }, value);
        for (let strength = 0; strength <= 5; strength += 1) {
          const what = `length ${length}, strength ${strength}, NaN share ${nanShare}`;
          expect([...swingPoints(high, low, strength)], what).toEqual([...reference(high, low, strength)]);
        }
      }
    }
    const { high, low } = walk(5000, 3);
    expect([...swingPoints(high, low, 3)]).toEqual([...reference(high, low, 3)]);
  });

  it('strength 3 on a long series, with ties, -0, infinities and NaN', () => {
    const length = 40_000;
    let state = length;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    // Few distinct values: ties on every side, -0 beside 0, infinities.
    const pick = (values: number[]) => Float64Array.from({ length }, () => values[Math.floor(random() * 6)]!);
    const high = pick([-1, -0, 0, 1, 2, Infinity]);
    const low = pick([-Infinity, -1, -0, 0, 1, 2]);
    expect([...swingPoints(high, low, 3)]).toEqual([...reference(high, low, 3)]);
    // A NaN right after a bar, and one right before it, each beside a higher neighbour (lower
    // for lows) in the same window: the bar is no swing however the NaN is read.
    const walked = walk(length, 5);
    for (const { bar, nan, above } of [
      { bar: 1000, nan: 1001, above: 1002 },
      { bar: 2003, nan: 2000, above: 2001 },
    ]) {
      const withNaN = { high: walked.high.slice(), low: walked.low.slice() };
      withNaN.high[bar] = 1e6;
      withNaN.high[above] = 2e6;
      withNaN.high[nan] = NaN;
      withNaN.low[bar] = -1e6;
      withNaN.low[above] = -2e6;
      withNaN.low[nan] = NaN;
      const expected = reference(withNaN.high, withNaN.low, 3);
      expect(expected[bar]).toBe(0);
      expect([...swingPoints(withNaN.high, withNaN.low, 3)], `NaN at ${nan}`).toEqual([...expected]);
    }
  });

  it('leaves the first and last `strength` entries of a given output alone', () => {
    const out = new Int8Array(9).fill(7);
    swingPoints(f([1, 2, 3, 9, 3, 2, 1, 0, 0]), f([1, 2, 3, 9, 3, 2, 1, 0, 0]), 3, out);
    expect([...out]).toEqual([7, 7, 7, 1, 0, 0, 7, 7, 7]);
  });
});

describe('oracle: technicalindicators and trading-signals on the same series', () => {
  const { close, high, low } = walk(3000);
  const closes = [...close];

  it('SMA equals both peers exactly', () => {
    const ours = sma(close, 20);
    const peer = technical.SMA.calculate({ period: 20, values: closes });
    peer.forEach((value, offset) => expectClose(ours[offset + 19]!, value, 1e-9));
    const streaming = new TsSma(20);
    closes.forEach((value, index) => {
      const result = streaming.update(value, false);
      if (index >= 19) expectClose(ours[index]!, Number(result), 1e-9);
    });
  });

  it('EMA equals technicalindicators (both seed with the SMA); trading-signals seeds with the first price and converges', () => {
    const ours = ema(close, 20);
    technical.EMA.calculate({ period: 20, values: closes }).forEach((value, offset) =>
      expectClose(ours[offset + 19]!, value, 1e-9),
    );
    const streaming = new TsEma(20);
    const theirs = closes.map((value) => Number(streaming.update(value, false)));
    expect(Math.abs(theirs[19]! - ours[19]!)).toBeGreaterThan(1e-6);
    for (let index = 400; index < closes.length; index += 1) expectClose(ours[index]!, theirs[index]!, 1e-9);
  });

  it('RSI equals technicalindicators to its 2-decimal rounding, and trading-signals after warm-up', () => {
    const ours = rsi(close, 14);
    technical.RSI.calculate({ period: 14, values: closes }).forEach((value, offset) => {
      expect(Math.abs(ours[offset + 14]! - value)).toBeLessThanOrEqual(0.005 + 1e-9);
    });
    const streaming = new TsRsi(14);
    const theirs = closes.map((value) => streaming.update(value, false));
    for (let index = 300; index < closes.length; index += 1) expectClose(ours[index]!, Number(theirs[index]), 1e-6);
  });

  it('ATR equals technicalindicators and trading-signals after warm-up', () => {
    const ours = atr(high, low, close, 14);
    const peer = technical.ATR.calculate({ period: 14, high: [...high], low: [...low], close: closes });
    const offset = closes.length - peer.length;
    for (let index = 300; index < closes.length; index += 1) expectClose(ours[index]!, peer[index - offset]!, 1e-6);
    const streaming = new TsAtr(14);
    const theirs = closes.map((value, index) =>
      streaming.update({ high: high[index]!, low: low[index]!, close: value }, false),
    );
    for (let index = 300; index < closes.length; index += 1) expectClose(ours[index]!, Number(theirs[index]), 1e-6);
  });

  it('Bollinger bands equal both peers (population standard deviation)', () => {
    const ours = bollinger(close, 20, 2);
    technical.BollingerBands.calculate({ period: 20, stdDev: 2, values: closes }).forEach((band, offset) => {
      expectClose(ours.upper[offset + 19]!, band.upper, 1e-9);
      expectClose(ours.lower[offset + 19]!, band.lower, 1e-9);
    });
    const streaming = new TsBollinger(20, 2);
    closes.forEach((value, index) => {
      const band = streaming.update(value, false);
      if (band && index >= 19) {
        expectClose(ours.upper[index]!, band.upper, 1e-9);
        expectClose(ours.middle[index]!, band.middle, 1e-9);
      }
    });
  });

  it('ROC equals technicalindicators', () => {
    const ours = roc(close, 10);
    const peer = technical.ROC.calculate({ period: 10, values: closes });
    const offset = closes.length - peer.length;
    peer.forEach((value, index) => expectClose(ours[index + offset]!, value, 1e-9));
  });
});

describe('long series and the no-allocation API', () => {
  it('SMA and Bollinger stay exact after a millionfold fall (running sums are summed afresh)', () => {
    // 2,000 bars near 1e6, then 6,000 near 1e-3: a running sum alone kept the error of the old
    // magnitude (SMA off by 9e-7 relative, the upper band by a factor of 50).
    const length = 8000;
    const values = Float64Array.from(
      { length },
      (_, index) => (index < 2000 ? 1e6 : 1e-3) * (1 + 0.01 * Math.sin(index * 0.7)),
    );
    const means = sma(values, 20);
    const bands = bollinger(values, 20, 2);
    for (let index = 4000; index < length; index += 1) {
      const window = values.subarray(index - 19, index + 1);
      const mean = window.reduce((total, value) => total + value, 0) / 20;
      const deviation = Math.sqrt(window.reduce((total, value) => total + (value - mean) ** 2, 0) / 20);
      expectClose(means[index]!, mean, 1e-12);
      expectClose(bands.middle[index]!, mean, 1e-12);
      expectClose(bands.upper[index]!, mean + 2 * deviation, 1e-12);
      expectClose(bands.lower[index]!, mean - 2 * deviation, 1e-12);
    }
  });

  it('a caller-supplied output gets the same values as an allocated one, warm-up left alone', () => {
    const { close, high, low } = walk(3001);
    const cases: Array<[Float64Array, (out: Float64Array) => Float64Array, number]> = [
      [sma(close, 20), (out) => sma(close, 20, out), 19],
      [ema(close, 20), (out) => ema(close, 20, out), 19],
      [rsi(close, 14), (out) => rsi(close, 14, out), 14],
      [atr(high, low, close, 14), (out) => atr(high, low, close, 14, out), 13],
      [roc(close, 10), (out) => roc(close, 10, out), 10],
      [volumeZScore(high, 20), (out) => volumeZScore(high, 20, out), 20],
    ];
    for (const [allocated, into, warmUp] of cases) {
      const out = into(new Float64Array(close.length).fill(-1));
      expect([...out.subarray(0, warmUp)]).toEqual(new Array(warmUp).fill(-1));
      expect([...out.subarray(warmUp)]).toEqual([...allocated.subarray(warmUp)]);
    }
  });

  it('matches the textbook loops bar for bar on short series of every length from 30 to 37', () => {
    const { close, high, low } = walk(700, 5);
    for (let length = 30; length < 38; length += 1) {
      const c = close.subarray(0, length);
      const h = high.subarray(0, length);
      const l = low.subarray(0, length);
      const ranges = atr(h, l, c, 14);
      const changes = roc(c, 10);
      const means = sma(c, 20);
      let average = h[0]! - l[0]!;
      for (let index = 1; index < length; index += 1) {
        const range = Math.max(
          h[index]! - l[index]!,
          Math.abs(h[index]! - c[index - 1]!),
          Math.abs(l[index]! - c[index - 1]!),
        );
        if (index < 14) average += range;
        if (index === 13) average /= 14;
        if (index >= 14) average = average * (13 / 14) + range * (1 / 14);
        if (index >= 13) expect(ranges[index]).toBe(average);
        if (index >= 10) expect(changes[index]).toBe(((c[index]! - c[index - 10]!) / c[index - 10]!) * 100);
        if (index >= 19)
          expectClose(means[index]!, c.subarray(index - 19, index + 1).reduce((a, b) => a + b) / 20, 1e-13);
      }
    }
  });

  it('rejects a period that is not a positive integer', () => {
    const values = f([1, 2, 3, 4]);
    for (const period of [0, -1, 2.5, NaN]) {
      expect(() => sma(values, period)).toThrow(RangeError);
      expect(() => ema(values, period)).toThrow(RangeError);
      expect(() => rsi(values, period)).toThrow(RangeError);
      expect(() => atr(values, values, values, period)).toThrow(RangeError);
      expect(() => bollinger(values, period)).toThrow(RangeError);
      expect(() => roc(values, period)).toThrow(RangeError);
    }
  });
});
