// Technical indicators over Float64Arrays: one pass, O(n), no allocation per bar, and hot
// loops without branches that go either way at random on market data (a mispredicted branch
// costs more than the arithmetic around it; bench/indicators.bench.ts holds each indicator
// within 2x of a plain running-sum loop). Outputs have the input's length with NaN during
// each indicator's warm-up and finite values after it (inputs are finite: see candleSeries).
//
// Conventions, checked against peer libraries in indicators.test.ts:
// - EMA is seeded with the SMA of its first `period` values (first value at period - 1).
// - RSI and ATR use Wilder's smoothing, seeded with simple averages of the first periods.
// - Bollinger bands use the population standard deviation.

function output(length: number): Float64Array {
  return new Float64Array(length).fill(NaN);
}

export function sma(values: Float64Array, period: number, out: Float64Array = output(values.length)): Float64Array {
  let sum = 0;
  for (let index = 0; index < values.length; index += 1) {
    sum += values[index];
    if (index >= period) sum -= values[index - period];
    if (index >= period - 1) out[index] = sum / period;
  }
  return out;
}

export function ema(values: Float64Array, period: number, out: Float64Array = output(values.length)): Float64Array {
  const length = values.length;
  if (length < period) return out;
  // Warm-up and the recurrence run as separate loops so the hot loop has no branch.
  let sum = 0;
  for (let index = 0; index < period; index += 1) sum += values[index];
  let previous = sum / period;
  out[period - 1] = previous;
  const alpha = 2 / (period + 1);
  for (let index = period; index < length; index += 1) {
    previous += alpha * (values[index] - previous);
    out[index] = previous;
  }
  return out;
}

/** Wilder's RSI; a flat stretch (no gains, no losses) reads 50. */
export function rsi(close: Float64Array, period = 14, out: Float64Array = output(close.length)): Float64Array {
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
  // makes the product exactly c * weight: the same values, without a branch.
  const halfWeight = 0.5 / period;
  for (let index = period + 1; index < length; index += 1) {
    const change = close[index] - close[index - 1];
    const size = Math.abs(change);
    gain = gain * keep + (size + change) * halfWeight;
    loss = loss * keep + (size - change) * halfWeight;
    const total = gain + loss;
    out[index] = total === 0 ? 50 : (100 * gain) / total;
  }
  return out;
}

/** Wilder's average true range; the first true range is the first bar's high - low. */
export function atr(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period = 14,
  out: Float64Array = output(close.length),
): Float64Array {
  const length = close.length;
  if (length < period) return out;
  let average = high[0] - low[0];
  for (let index = 1; index < period; index += 1) {
    const previousClose = close[index - 1];
    average += Math.max(
      high[index] - low[index],
      Math.abs(high[index] - previousClose),
      Math.abs(low[index] - previousClose),
    );
  }
  average /= period;
  out[period - 1] = average;
  const keep = (period - 1) / period;
  const weight = 1 / period;
  for (let index = period; index < length; index += 1) {
    const previousClose = close[index - 1];
    const trueRange = Math.max(
      high[index] - low[index],
      Math.abs(high[index] - previousClose),
      Math.abs(low[index] - previousClose),
    );
    average = average * keep + trueRange * weight;
    out[index] = average;
  }
  return out;
}

export interface BollingerBands {
  middle: Float64Array;
  upper: Float64Array;
  lower: Float64Array;
}

/**
 * Bollinger bands with the population standard deviation. Sums are kept relative to the
 * first value so large prices do not lose precision to cancellation. The warm-up runs in its
 * own loop so the hot loop carries no index test.
 */
export function bollinger(
  values: Float64Array,
  period = 20,
  width = 2,
  out: BollingerBands = { middle: output(values.length), upper: output(values.length), lower: output(values.length) },
): BollingerBands {
  const length = values.length;
  const reference = length > 0 ? values[0] : 0;
  const inverse = 1 / period;
  let sum = 0;
  let squares = 0;
  let index = 0;
  for (const warmUp = Math.min(period, length); index < warmUp; index += 1) {
    const shifted = values[index] - reference;
    sum += shifted;
    squares += shifted * shifted;
    if (index === period - 1) writeBands(out, index, sum * inverse, squares * inverse, width, reference);
  }
  for (; index < length; index += 1) {
    const shifted = values[index] - reference;
    sum += shifted;
    squares += shifted * shifted;
    const leaving = values[index - period] - reference;
    sum -= leaving;
    squares -= leaving * leaving;
    writeBands(out, index, sum * inverse, squares * inverse, width, reference);
  }
  return out;
}

/** One bar of the bands from the window's mean and mean square (both relative to `reference`). */
function writeBands(
  out: BollingerBands,
  index: number,
  mean: number,
  meanSquare: number,
  width: number,
  reference: number,
): void {
  const variance = meanSquare - mean * mean;
  // Rounding can leave a flat window a hair below zero.
  const band = width * (variance < 0 ? 0 : Math.sqrt(variance));
  const centre = mean + reference;
  out.middle[index] = centre;
  out.upper[index] = centre + band;
  out.lower[index] = centre - band;
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
  for (; index < length; index += 1) {
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
  return out;
}

/** Rate of change in percent over `period` bars. */
export function roc(close: Float64Array, period = 10, out: Float64Array = output(close.length)): Float64Array {
  for (let index = period; index < close.length; index += 1) {
    out[index] = ((close[index] - close[index - period]) / close[index - period]) * 100;
  }
  return out;
}

/**
 * Swing points: 1 where the bar's high is the strict highest of `strength` bars either side
 * (a swing high), -1 for the same with lows (a swing low), else 0. A swing is only known
 * `strength` bars later, so the first and last `strength` entries are not written (0 in a
 * fresh output).
 *
 * Whether a neighbour is higher is a coin toss on market data, so an early exit on the first
 * higher neighbour spends most of its time on mispredicted branches. Here every comparison
 * becomes a 0 or 1 (unary `+` on the boolean) and they are combined with `&`: more
 * comparisons, no branch. Each is
 * written `!(neighbour >= bar)` rather than `bar > neighbour` so that, as before, a NaN
 * neighbour disqualifies nothing.
 */
export function swingPoints(
  high: Float64Array,
  low: Float64Array,
  strength = 3,
  out: Int8Array = new Int8Array(high.length),
): Int8Array {
  return strength === 3 ? swingPointsOfThree(high, low, out) : swingPointsOfAny(high, low, strength, out);
}

function swingPointsOfAny(high: Float64Array, low: Float64Array, strength: number, out: Int8Array): Int8Array {
  const end = high.length - strength;
  for (let index = strength; index < end; index += 1) {
    const barHigh = high[index];
    const barLow = low[index];
    let isHigh = 1;
    let isLow = 1;
    for (let offset = 1; offset <= strength; offset += 1) {
      isHigh &= +!(high[index - offset] >= barHigh) & +!(high[index + offset] >= barHigh);
      isLow &= +!(low[index - offset] <= barLow) & +!(low[index + offset] <= barLow);
    }
    out[index] = swingCode(isHigh, isLow);
  }
  return out;
}

/** 1 for a swing high, else -1 for a swing low, else 0 (a bar that is both reads 1). */
function swingCode(isHigh: number, isLow: number): number {
  return isHigh - (isLow & ~isHigh);
}

/**
 * swingPoints for strength 3, the engine's SWING_STRENGTH, taking bars in adjacent pairs. Two
 * adjacent bars cannot both be swing highs (each would have to be above the other), so only
 * the higher of a pair is checked against the rest of its window: the four neighbours the two
 * share, plus the one on the winner's far side. That is 7 comparisons a pair instead of 12,
 * with no branch: the winner's position is a 0/1 that indexes the arrays. (Highs shown; lows
 * mirror them.) The shortcut needs comparisons to be an order, which NaN breaks (a NaN bar is
 * neither above nor below its partner), so each step sums its eight bars as a NaN detector:
 * on NaN (or infinities of both signs) the general loop redoes the whole series.
 */
function swingPointsOfThree(high: Float64Array, low: Float64Array, out: Int8Array): Int8Array {
  const end = high.length - 3;
  let index = 3;
  // The bars that do not fill a last step of four go first, one at a time. Nothing that V8
  // collects type feedback for may come after the hot loop: the first call compiles the loop
  // while it runs, and an operation it has not seen yet would make every call bail out of that
  // compiled loop at its end and keep the slower on-stack-replacement version in use.
  for (const stop = Math.min(end, index + (Math.max(0, end - index) % 4)); index < stop; index += 1) {
    const barHigh = high[index];
    const barLow = low[index];
    const isHigh =
      +!(high[index - 3] >= barHigh) &
      +!(high[index - 2] >= barHigh) &
      +!(high[index - 1] >= barHigh) &
      +!(high[index + 1] >= barHigh) &
      +!(high[index + 2] >= barHigh) &
      +!(high[index + 3] >= barHigh);
    const isLow =
      +!(low[index - 3] <= barLow) &
      +!(low[index - 2] <= barLow) &
      +!(low[index - 1] <= barLow) &
      +!(low[index + 1] <= barLow) &
      +!(low[index + 2] <= barLow) &
      +!(low[index + 3] <= barLow);
    out[index] = swingCode(isHigh, isLow);
  }
  // Two pairs a step: their windows overlap, so most values are loaded once for both.
  for (; index < end; index += 4) {
    const h0 = high[index - 2],
      h1 = high[index - 1],
      h2 = high[index],
      h3 = high[index + 1];
    const h4 = high[index + 2],
      h5 = high[index + 3],
      h6 = high[index + 4],
      h7 = high[index + 5];
    const firstPairHigh = +(h3 > h2);
    const firstTop = high[index + firstPairHigh];
    const firstIsHigh =
      +!(h0 >= firstTop) &
      +!(h1 >= firstTop) &
      +!(h4 >= firstTop) &
      +!(h5 >= firstTop) &
      +!(high[index - 3 + 7 * firstPairHigh] >= firstTop);
    const secondPairHigh = +(h5 > h4);
    const secondTop = high[index + 2 + secondPairHigh];
    const secondIsHigh =
      +!(h2 >= secondTop) &
      +!(h3 >= secondTop) &
      +!(h6 >= secondTop) &
      +!(h7 >= secondTop) &
      +!(high[index - 1 + 7 * secondPairHigh] >= secondTop);

    const l0 = low[index - 2],
      l1 = low[index - 1],
      l2 = low[index],
      l3 = low[index + 1];
    const l4 = low[index + 2],
      l5 = low[index + 3],
      l6 = low[index + 4],
      l7 = low[index + 5];
    const firstPairLow = +(l3 < l2);
    const firstBottom = low[index + firstPairLow];
    const firstIsLow =
      +!(l0 <= firstBottom) &
      +!(l1 <= firstBottom) &
      +!(l4 <= firstBottom) &
      +!(l5 <= firstBottom) &
      +!(low[index - 3 + 7 * firstPairLow] <= firstBottom);
    const secondPairLow = +(l5 < l4);
    const secondBottom = low[index + 2 + secondPairLow];
    const secondIsLow =
      +!(l2 <= secondBottom) &
      +!(l3 <= secondBottom) &
      +!(l6 <= secondBottom) &
      +!(l7 <= secondBottom) &
      +!(low[index - 1 + 7 * secondPairLow] <= secondBottom);

    out[index] = swingCode(+(h2 > h3) & firstIsHigh, +(l2 < l3) & firstIsLow);
    out[index + 1] = swingCode(firstPairHigh & firstIsHigh, firstPairLow & firstIsLow);
    out[index + 2] = swingCode(+(h4 > h5) & secondIsHigh, +(l4 < l5) & secondIsLow);
    out[index + 3] = swingCode(secondPairHigh & secondIsHigh, secondPairLow & secondIsLow);
    // NaN is the one value unequal to itself, and it spreads through a sum.
    const checksum = h2 + h3 + h4 + h5 + (l2 + l3 + l4 + l5);
    if (checksum !== checksum) return swingPointsOfAny(high, low, 3, out);
  }
  return out;
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
