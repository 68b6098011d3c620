// Technical indicators over Float64Arrays: one pass, O(n), no allocation per bar. Every
// function takes an optional caller-supplied output (the no-allocation API: give it a buffer at
// least as long as the input and only the bars after the warm-up are written); without one it
// allocates an output of the input's length filled with NaN for the warm-up. Values after the
// warm-up are finite (inputs are finite: see candleSeries).
//
// The kernels are written for V8, held within 1.2x of Tulip Indicators / TA-Lib compiled with
// gcc -O2 by bench/indicators.bench.ts:
// - Hot loops take four bars a step. V8 re-checks each typed array (map, length, base pointer)
//   once per loop iteration, not once per loop, so a step of one bar spends more on those
//   checks than on the arithmetic. The bars that do not fill a last step of four run first,
//   one at a time: nothing V8 collects type feedback for may follow the hot loop (the first
//   call compiles the loop while it runs, and an operation it has not seen yet would make each
//   later call leave that code at the loop's end).
// - No branch that goes either way at random on market data (a mispredicted branch costs more
//   than the arithmetic around it): max(x, 0) is (x + |x|) / 2, exact for finite x.
// - Running sums (SMA, Bollinger) are summed afresh from their window every few thousand bars,
//   so rounding cannot build up over a long series (a price that falls a millionfold would
//   otherwise keep the error of its old magnitude).
//
// Swing points of strength 3 run in WebAssembly SIMD instead (swingKernel.ts): there the
// JavaScript kernel stayed at 2 to 2.7 times the plain loop the bench holds it to.
//
// Conventions, checked against peer libraries in indicators.test.ts:
// - EMA is seeded with the SMA of its first `period` values (first value at period - 1).
// - RSI and ATR use Wilder's smoothing, seeded with simple averages of the first periods.
// - Bollinger bands use the population standard deviation.

import { SIMD_MIN_BARS, swingPointsOfThreeSimd } from './swingKernel.ts';

function output(length: number): Float64Array {
  return new Float64Array(length).fill(NaN);
}

function checkPeriod(period: number): void {
  if (!Number.isInteger(period) || period < 1) throw new RangeError(`period must be a positive integer, got ${period}`);
}

/** Bars a running sum of a `period`-bar window covers before it is summed afresh. */
function freshSumEvery(period: number): number {
  return 1024 + 16 * period;
}

export function sma(values: Float64Array, period: number, out: Float64Array = output(values.length)): Float64Array {
  checkPeriod(period);
  const length = values.length;
  for (let first = period - 1; first < length; first += freshSumEvery(period)) {
    smaBlock(values, period, out, first, Math.min(length, first + freshSumEvery(period)));
  }
  return out;
}

/** SMA on bars first..end - 1, the window ending at `first` summed afresh. */
function smaBlock(values: Float64Array, period: number, out: Float64Array, first: number, end: number): void {
  let sum = 0;
  for (let index = first + 1 - period; index <= first; index += 1) sum += values[index];
  out[first] = sum / period;
  let index = first + 1;
  for (const stop = index + ((end - index) % 8); index < stop; index += 1) {
    sum += values[index] - values[index - period];
    out[index] = sum / period;
  }
  for (; index < end; index += 4) {
    const leaving = index - period;
    sum += values[index] - values[leaving];
    out[index] = sum / period;
    sum += values[index + 1] - values[leaving + 1];
    out[index + 1] = sum / period;
    sum += values[index + 2] - values[leaving + 2];
    out[index + 2] = sum / period;
    sum += values[index + 3] - values[leaving + 3];
    out[index + 3] = sum / period;
  }
}

export function ema(values: Float64Array, period: number, out: Float64Array = output(values.length)): Float64Array {
  checkPeriod(period);
  const length = values.length;
  if (length < period) return out;
  let sum = 0;
  for (let index = 0; index < period; index += 1) sum += values[index];
  let previous = sum / period;
  out[period - 1] = previous;
  const alpha = 2 / (period + 1);
  let index = period;
  for (const stop = index + ((length - index) % 4); index < stop; index += 1) {
    previous += alpha * (values[index] - previous);
    out[index] = previous;
  }
  for (; index < length; index += 4) {
    previous += alpha * (values[index] - previous);
    out[index] = previous;
    previous += alpha * (values[index + 1] - previous);
    out[index + 1] = previous;
    previous += alpha * (values[index + 2] - previous);
    out[index + 2] = previous;
    previous += alpha * (values[index + 3] - previous);
    out[index + 3] = previous;
  }
  return out;
}

/** Wilder's RSI; a flat stretch (no gains, no losses) reads 50. */
export function rsi(close: Float64Array, period = 14, out: Float64Array = output(close.length)): Float64Array {
  checkPeriod(period);
  const length = close.length;
  if (length <= period) return out;
  let gain = 0;
  let loss = 0;
  for (let index = 1; index <= period; index += 1) {
    const change = close[index] - close[index - 1];
    if (change > 0) gain += change;
    else loss -= change;
  }
  gain /= period;
  loss /= period;
  // 100 - 100 / (1 + gain / loss) is 100 * gain / (gain + loss): one division, not two.
  out[period] = gain + loss === 0 ? 50 : (100 * gain) / (gain + loss);
  const keep = (period - 1) / period;
  // A close-to-close change is up or down at random, so any test of its sign (Math.max
  // included: V8 compiles it to compare-and-jump) mispredicts about half the time. Instead
  // |c| + c is 2c for a gain and 0 for a loss (|c| - c the reverse), and halving the weight
  // makes the product exactly c * weight: the same values, without a branch. (The test for a
  // zero total is taken the same way nearly always, so it predicts well.)
  const halfWeight = 0.5 / period;
  let index = period + 1;
  for (const stop = index + ((length - index) % 2); index < stop; index += 1) {
    const change = close[index] - close[index - 1];
    const size = Math.abs(change);
    gain = gain * keep + (size + change) * halfWeight;
    loss = loss * keep + (size - change) * halfWeight;
    const total = gain + loss;
    out[index] = total === 0 ? 50 : (100 * gain) / total;
  }
  for (; index < length; index += 2) {
    const previous = close[index - 1];
    const now = close[index];
    const next = close[index + 1];
    const change = now - previous;
    const size = Math.abs(change);
    gain = gain * keep + (size + change) * halfWeight;
    loss = loss * keep + (size - change) * halfWeight;
    const total = gain + loss;
    out[index] = total === 0 ? 50 : (100 * gain) / total;
    const nextChange = next - now;
    const nextSize = Math.abs(nextChange);
    gain = gain * keep + (nextSize + nextChange) * halfWeight;
    loss = loss * keep + (nextSize - nextChange) * halfWeight;
    const nextTotal = gain + loss;
    out[index + 1] = nextTotal === 0 ? 50 : (100 * gain) / nextTotal;
  }
  return out;
}

/**
 * One bar's true range, max(high - low, |high - previous close|, |low - previous close|),
 * written as max(high, previous close) - min(low, previous close) for a bar with high >= low
 * (candleSeries guarantees it). Each of max and min is a start plus max(difference, 0), the
 * latter (d + |d|) / 2: no branch. Whenever the two prices are within a factor of two of each
 * other the difference is exact (Sterbenz), so the sum is exactly the larger price and the
 * result is bit for bit the textbook one; beyond that it may differ in the last bit.
 */
function trueRange(high: number, low: number, previousClose: number): number {
  const above = previousClose - high;
  const below = low - previousClose;
  return high + (above + Math.abs(above)) * 0.5 - (low - (below + Math.abs(below)) * 0.5);
}

/** Wilder's average true range; the first true range is the first bar's high - low. */
export function atr(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period = 14,
  out: Float64Array = output(close.length),
): Float64Array {
  checkPeriod(period);
  const length = close.length;
  if (length < period) return out;
  let average = high[0] - low[0];
  for (let index = 1; index < period; index += 1) average += trueRange(high[index], low[index], close[index - 1]);
  average /= period;
  out[period - 1] = average;
  const keep = (period - 1) / period;
  const weight = 1 / period;
  let index = period;
  for (const stop = index + ((length - index) % 4); index < stop; index += 1) {
    average = average * keep + trueRange(high[index], low[index], close[index - 1]) * weight;
    out[index] = average;
  }
  for (; index < length; index += 4) {
    const before = close[index - 1];
    const close0 = close[index];
    const close1 = close[index + 1];
    const close2 = close[index + 2];
    average = average * keep + trueRange(high[index], low[index], before) * weight;
    out[index] = average;
    average = average * keep + trueRange(high[index + 1], low[index + 1], close0) * weight;
    out[index + 1] = average;
    average = average * keep + trueRange(high[index + 2], low[index + 2], close1) * weight;
    out[index + 2] = average;
    average = average * keep + trueRange(high[index + 3], low[index + 3], close2) * weight;
    out[index + 3] = average;
  }
  return out;
}

export interface BollingerBands {
  middle: Float64Array;
  upper: Float64Array;
  lower: Float64Array;
}

/**
 * Bollinger bands with the population standard deviation. The window's sum and sum of squares
 * run relative to a reference price (so large prices do not lose precision to cancellation),
 * and both are summed afresh, with the window's first value as the new reference, every few
 * thousand bars.
 */
export function bollinger(
  values: Float64Array,
  period = 20,
  width = 2,
  out: BollingerBands = { middle: output(values.length), upper: output(values.length), lower: output(values.length) },
): BollingerBands {
  checkPeriod(period);
  const length = values.length;
  for (let first = period - 1; first < length; first += freshSumEvery(period)) {
    bollingerBlock(values, period, width, out, first, Math.min(length, first + freshSumEvery(period)));
  }
  return out;
}

/** Bollinger bands on bars first..end - 1, the window ending at `first` summed afresh. */
function bollingerBlock(
  values: Float64Array,
  period: number,
  width: number,
  out: BollingerBands,
  first: number,
  end: number,
): void {
  const { middle, upper, lower } = out;
  const reference = values[first + 1 - period];
  const inverse = 1 / period;
  // A float from here on: V8 does not move work out of loops, so an integer width would be
  // converted again on every bar.
  const scale = width * 1;
  let sum = 0;
  let squares = 0;
  for (let index = first + 1 - period; index <= first; index += 1) {
    const shifted = values[index] - reference;
    sum += shifted;
    squares += shifted * shifted;
  }
  // The first bar, from the sums above, exactly as ruleConditions' bollingerNext computes it.
  const mean = sum * inverse;
  const variance = squares * inverse - mean * mean;
  // Rounding can leave a flat window's variance a hair below zero: (v + |v|) / 2 is max(v, 0).
  const band = scale * Math.sqrt((variance + Math.abs(variance)) * 0.5);
  middle[first] = mean + reference;
  upper[first] = mean + reference + band;
  lower[first] = mean + reference - band;
  // The running bars, in fewer operations (the same values to rounding): a bar entering at a
  // and one leaving at b change the sum by a - b and the sum of squares (relative to the
  // reference r) by (a - b)(a + b - 2r); p^2 times the variance is p * squares - sum^2, and
  // the 1/2 of max(v, 0) and the 1/p of the deviation go into one factor.
  const twice = 2 * reference;
  const factor = (scale * Math.SQRT1_2) / period;
  let index = first + 1;
  for (const stop = index + ((end - index) % 8); index < stop; index += 1) {
    const entering = values[index];
    const leaving = values[index - period];
    sum += entering - leaving;
    squares += (entering - leaving) * (entering + leaving - twice);
    const spread = period * squares - sum * sum;
    const width = factor * Math.sqrt(spread + Math.abs(spread));
    const centre = sum * inverse + reference;
    middle[index] = centre;
    upper[index] = centre + width;
    lower[index] = centre - width;
  }
  for (; index < end; index += 8) {
    const away = index - period;
    const entering0 = values[index];
    const leaving0 = values[away];
    sum += entering0 - leaving0;
    squares += (entering0 - leaving0) * (entering0 + leaving0 - twice);
    const spread0 = period * squares - sum * sum;
    const width0 = factor * Math.sqrt(spread0 + Math.abs(spread0));
    const centre0 = sum * inverse + reference;
    middle[index] = centre0;
    upper[index] = centre0 + width0;
    lower[index] = centre0 - width0;
    const entering1 = values[index + 1];
    const leaving1 = values[away + 1];
    sum += entering1 - leaving1;
    squares += (entering1 - leaving1) * (entering1 + leaving1 - twice);
    const spread1 = period * squares - sum * sum;
    const width1 = factor * Math.sqrt(spread1 + Math.abs(spread1));
    const centre1 = sum * inverse + reference;
    middle[index + 1] = centre1;
    upper[index + 1] = centre1 + width1;
    lower[index + 1] = centre1 - width1;
    const entering2 = values[index + 2];
    const leaving2 = values[away + 2];
    sum += entering2 - leaving2;
    squares += (entering2 - leaving2) * (entering2 + leaving2 - twice);
    const spread2 = period * squares - sum * sum;
    const width2 = factor * Math.sqrt(spread2 + Math.abs(spread2));
    const centre2 = sum * inverse + reference;
    middle[index + 2] = centre2;
    upper[index + 2] = centre2 + width2;
    lower[index + 2] = centre2 - width2;
    const entering3 = values[index + 3];
    const leaving3 = values[away + 3];
    sum += entering3 - leaving3;
    squares += (entering3 - leaving3) * (entering3 + leaving3 - twice);
    const spread3 = period * squares - sum * sum;
    const width3 = factor * Math.sqrt(spread3 + Math.abs(spread3));
    const centre3 = sum * inverse + reference;
    middle[index + 3] = centre3;
    upper[index + 3] = centre3 + width3;
    lower[index + 3] = centre3 - width3;
    const entering4 = values[index + 4];
    const leaving4 = values[away + 4];
    sum += entering4 - leaving4;
    squares += (entering4 - leaving4) * (entering4 + leaving4 - twice);
    const spread4 = period * squares - sum * sum;
    const width4 = factor * Math.sqrt(spread4 + Math.abs(spread4));
    const centre4 = sum * inverse + reference;
    middle[index + 4] = centre4;
    upper[index + 4] = centre4 + width4;
    lower[index + 4] = centre4 - width4;
    const entering5 = values[index + 5];
    const leaving5 = values[away + 5];
    sum += entering5 - leaving5;
    squares += (entering5 - leaving5) * (entering5 + leaving5 - twice);
    const spread5 = period * squares - sum * sum;
    const width5 = factor * Math.sqrt(spread5 + Math.abs(spread5));
    const centre5 = sum * inverse + reference;
    middle[index + 5] = centre5;
    upper[index + 5] = centre5 + width5;
    lower[index + 5] = centre5 - width5;
    const entering6 = values[index + 6];
    const leaving6 = values[away + 6];
    sum += entering6 - leaving6;
    squares += (entering6 - leaving6) * (entering6 + leaving6 - twice);
    const spread6 = period * squares - sum * sum;
    const width6 = factor * Math.sqrt(spread6 + Math.abs(spread6));
    const centre6 = sum * inverse + reference;
    middle[index + 6] = centre6;
    upper[index + 6] = centre6 + width6;
    lower[index + 6] = centre6 - width6;
    const entering7 = values[index + 7];
    const leaving7 = values[away + 7];
    sum += entering7 - leaving7;
    squares += (entering7 - leaving7) * (entering7 + leaving7 - twice);
    const spread7 = period * squares - sum * sum;
    const width7 = factor * Math.sqrt(spread7 + Math.abs(spread7));
    const centre7 = sum * inverse + reference;
    middle[index + 7] = centre7;
    upper[index + 7] = centre7 + width7;
    lower[index + 7] = centre7 - width7;
  }
}

/**
 * How unusual each bar's volume is: (volume - mean) / standard deviation of the previous
 * `period` bars. A window with no variation (all equal, or all zero) gives 0.
 */
export function volumeZScore(
  volume: Float64Array,
  period = 20,
  out: Float64Array = output(volume.length),
): Float64Array {
  const length = volume.length;
  let sum = 0;
  let squares = 0;
  let index = 0;
  for (const warmUp = Math.min(period, length); index < warmUp; index += 1) {
    sum += volume[index];
    squares += volume[index] * volume[index];
  }
  // Four bars a step (see the top of the file); the bars that do not fill a last step go first.
  for (const stop = index + (Math.max(0, length - index) % 4); index < stop; index += 1) {
    const mean = sum / period;
    const variance = squares / period - mean * mean;
    const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
    out[index] = deviation === 0 ? 0 : (volume[index] - mean) / deviation;
    const leaving = volume[index - period];
    sum -= leaving;
    squares -= leaving * leaving;
    sum += volume[index];
    squares += volume[index] * volume[index];
  }
  // In the step of four, the two divisions by the period become multiplications by its
  // inverse (the same values to rounding; the divider is this loop's bottleneck).
  const inverse = 1 / period;
  for (; index < length; index += 4) {
    {
      const mean = sum * inverse;
      const variance = squares * inverse - mean * mean;
      const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
      out[index] = deviation === 0 ? 0 : (volume[index] - mean) / deviation;
      const leaving = volume[index - period];
      sum -= leaving;
      squares -= leaving * leaving;
      sum += volume[index];
      squares += volume[index] * volume[index];
    }
    {
      const mean = sum * inverse;
      const variance = squares * inverse - mean * mean;
      const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
      out[index + 1] = deviation === 0 ? 0 : (volume[index + 1] - mean) / deviation;
      const leaving = volume[index + 1 - period];
      sum -= leaving;
      squares -= leaving * leaving;
      sum += volume[index + 1];
      squares += volume[index + 1] * volume[index + 1];
    }
    {
      const mean = sum * inverse;
      const variance = squares * inverse - mean * mean;
      const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
      out[index + 2] = deviation === 0 ? 0 : (volume[index + 2] - mean) / deviation;
      const leaving = volume[index + 2 - period];
      sum -= leaving;
      squares -= leaving * leaving;
      sum += volume[index + 2];
      squares += volume[index + 2] * volume[index + 2];
    }
    {
      const mean = sum * inverse;
      const variance = squares * inverse - mean * mean;
      const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
      out[index + 3] = deviation === 0 ? 0 : (volume[index + 3] - mean) / deviation;
      const leaving = volume[index + 3 - period];
      sum -= leaving;
      squares -= leaving * leaving;
      sum += volume[index + 3];
      squares += volume[index + 3] * volume[index + 3];
    }
  }
  return out;
}

/** Rate of change in percent over `period` bars. */
export function roc(close: Float64Array, period = 10, out: Float64Array = output(close.length)): Float64Array {
  checkPeriod(period);
  const length = close.length;
  let index = period;
  for (const stop = index + (Math.max(0, length - index) % 4); index < stop; index += 1) {
    const before = close[index - period];
    out[index] = ((close[index] - before) / before) * 100;
  }
  for (; index < length; index += 4) {
    const away = index - period;
    const before0 = close[away];
    const before1 = close[away + 1];
    const before2 = close[away + 2];
    const before3 = close[away + 3];
    out[index] = ((close[index] - before0) / before0) * 100;
    out[index + 1] = ((close[index + 1] - before1) / before1) * 100;
    out[index + 2] = ((close[index + 2] - before2) / before2) * 100;
    out[index + 3] = ((close[index + 3] - before3) / before3) * 100;
  }
  return out;
}

/**
 * Swing points: 1 where the bar's high is the strict highest of `strength` bars either side
 * (a swing high), -1 for the same with lows (a swing low), else 0. A swing is only known
 * `strength` bars later, so the first and last `strength` entries are not written (0 in a
 * fresh output). A NaN neighbour disqualifies nothing (a comparison with NaN is false), and a
 * bar that is both a swing high and a swing low reads 1.
 *
 * Strength 3 (the engine's SWING_STRENGTH) runs in WebAssembly SIMD (swingKernel.ts) on all but
 * the last few bars of any series of SIMD_MIN_BARS or more. The loop below finishes it, and does
 * every other case. Whether a neighbour is higher is a coin toss on market data, so an early exit
 * on the first higher neighbour would spend most of its time on mispredicted branches: every
 * comparison becomes a 0 or 1 (unary `+` on the boolean) and they are combined with `&`. Each is
 * written `!(neighbour >= bar)` rather than `bar > neighbour` so that a NaN neighbour
 * disqualifies nothing.
 */
export function swingPoints(
  high: Float64Array,
  low: Float64Array,
  strength = 3,
  out: Int8Array = new Int8Array(high.length),
): Int8Array {
  const end = high.length - strength;
  let from = strength;
  if (strength === 3 && high.length >= SIMD_MIN_BARS && low.length === high.length && out.length >= high.length) {
    from = swingPointsOfThreeSimd(high, low, out, (first, last) => swingPointsBetween(high, low, 3, out, first, last));
  }
  swingPointsBetween(high, low, strength, out, from, end);
  return out;
}

/** swingPoints on bars from..to - 1 (each at least `strength` bars from either end). */
function swingPointsBetween(
  high: Float64Array,
  low: Float64Array,
  strength: number,
  out: Int8Array,
  from: number,
  to: number,
): void {
  for (let index = from; index < to; index += 1) {
    const barHigh = high[index];
    const barLow = low[index];
    let isHigh = 1;
    let isLow = 1;
    for (let offset = 1; offset <= strength; offset += 1) {
      isHigh &= +!(high[index - offset] >= barHigh) & +!(high[index + offset] >= barHigh);
      isLow &= +!(low[index - offset] <= barLow) & +!(low[index + offset] <= barLow);
    }
    // 1 for a swing high, else -1 for a swing low, else 0.
    out[index] = isHigh - (isLow & ~isHigh);
  }
}

export interface PriceLevel {
  price: number;
  /** How many swing points formed the level. */
  touches: number;
  kind: 'support' | 'resistance';
}

/**
 * Support and resistance levels at `index`: swing lows below the close (support) and swing
 * highs above it (resistance) from the last `lookback` bars, merged when closer than
 * `tolerance` (a price distance, e.g. half an ATR). Nearest level first.
 */
export function supportResistance(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  swings: Int8Array,
  index: number,
  lookback: number,
  tolerance: number,
): PriceLevel[] {
  const levels: PriceLevel[] = [];
  const price = close[index];
  for (let bar = Math.max(0, index - lookback); bar <= index; bar += 1) {
    if (swings[bar] === 0) continue;
    const level = swings[bar] === 1 ? high[bar] : low[bar];
    const kind = level < price ? 'support' : 'resistance';
    const existing = levels.find(
      (candidate) => candidate.kind === kind && Math.abs(candidate.price - level) <= tolerance,
    );
    if (existing) {
      existing.price = (existing.price * existing.touches + level) / (existing.touches + 1);
      existing.touches += 1;
    } else {
      levels.push({ price: level, touches: 1, kind });
    }
  }
  return levels.sort((a, b) => Math.abs(a.price - price) - Math.abs(b.price - price));
}
