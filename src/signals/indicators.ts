// Technical indicators over Float64Arrays, one function per indicator, each one plain loop over
// the bars (O(n), no allocation per bar). Every function takes an optional caller-supplied
// output (the no-allocation API: give it a buffer at least as long as the input and only the
// bars after the warm-up are written); without one it allocates an output of the input's length
// filled with NaN for the warm-up. Values after the warm-up are finite (inputs are finite: see
// candleSeries).
//
// The loops are written to be read, not to win a benchmark: docs/decisions/0014 records why
// (the alert engine's pass over 2,000 symbols spends a few milliseconds in them) and
// bench/indicators.bench.ts prints how they compare with C and JavaScript peers.
//
// Conventions, checked against peer libraries in indicators.test.ts:
// - EMA is seeded with the SMA of its first `period` values (first value at period - 1).
// - RSI and ATR use Wilder's smoothing, seeded with simple averages of the first periods.
// - Bollinger bands use the population standard deviation.

function output(length: number): Float64Array {
  return new Float64Array(length).fill(NaN);
}

function checkPeriod(period: number): void {
  if (!Number.isInteger(period) || period < 1) throw new RangeError(`period must be a positive integer, got ${period}`);
}

/**
 * Bars a running sum of a `period`-bar window covers before it is summed afresh from the
 * window. Adding the entering bar and subtracting the leaving one keeps the rounding error of
 * every value the sum ever held: after a price falls a millionfold the sum would still carry
 * the error of its old magnitude.
 */
function freshSumEvery(period: number): number {
  return 1024 + 16 * period;
}

/** Simple moving average. */
export function sma(values: Float64Array, period: number, out: Float64Array = output(values.length)): Float64Array {
  checkPeriod(period);
  const refreshEvery = freshSumEvery(period);
  let sum = 0;
  let barsSinceFresh = refreshEvery;
  for (let index = period - 1; index < values.length; index += 1) {
    if (barsSinceFresh === refreshEvery) {
      sum = 0;
      for (let inWindow = index + 1 - period; inWindow <= index; inWindow += 1) sum += values[inWindow]!;
      barsSinceFresh = 0;
    } else {
      sum += values[index]! - values[index - period]!;
    }
    barsSinceFresh += 1;
    out[index] = sum / period;
  }
  return out;
}

/** Exponential moving average, seeded with the SMA of the first `period` values. */
export function ema(values: Float64Array, period: number, out: Float64Array = output(values.length)): Float64Array {
  checkPeriod(period);
  if (values.length < period) return out;
  let sum = 0;
  for (let index = 0; index < period; index += 1) sum += values[index]!;
  let average = sum / period;
  out[period - 1] = average;
  const alpha = 2 / (period + 1);
  for (let index = period; index < values.length; index += 1) {
    average += alpha * (values[index]! - average);
    out[index] = average;
  }
  return out;
}

/** Wilder's RSI; a flat stretch (no gains, no losses) reads 50. */
export function rsi(close: Float64Array, period = 14, out: Float64Array = output(close.length)): Float64Array {
  checkPeriod(period);
  if (close.length <= period) return out;
  let gain = 0;
  let loss = 0;
  for (let index = 1; index <= period; index += 1) {
    const change = close[index]! - close[index - 1]!;
    gain += Math.max(change, 0);
    loss += Math.max(-change, 0);
  }
  gain /= period;
  loss /= period;
  out[period] = rsiOf(gain, loss);
  const keep = (period - 1) / period;
  const weight = 1 / period;
  for (let index = period + 1; index < close.length; index += 1) {
    const change = close[index]! - close[index - 1]!;
    gain = gain * keep + Math.max(change, 0) * weight;
    loss = loss * keep + Math.max(-change, 0) * weight;
    out[index] = rsiOf(gain, loss);
  }
  return out;
}

/** 100 - 100 / (1 + gain / loss), written as 100 * gain / (gain + loss): one division, and no
 * division by zero when there were no losses. */
function rsiOf(gain: number, loss: number): number {
  const total = gain + loss;
  return total === 0 ? 50 : (100 * gain) / total;
}

/** A bar's true range: its own range, widened by a gap from the previous close. */
function trueRange(high: number, low: number, previousClose: number): number {
  return Math.max(high - low, Math.abs(high - previousClose), Math.abs(low - previousClose));
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
  if (close.length < period) return out;
  let average = high[0]! - low[0]!;
  for (let index = 1; index < period; index += 1) average += trueRange(high[index]!, low[index]!, close[index - 1]!);
  average /= period;
  out[period - 1] = average;
  const keep = (period - 1) / period;
  const weight = 1 / period;
  for (let index = period; index < close.length; index += 1) {
    average = average * keep + trueRange(high[index]!, low[index]!, close[index - 1]!) * weight;
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
 * Bollinger bands with the population standard deviation. The window's sum and sum of squares
 * are kept relative to a reference price, the window's first value when they were last summed
 * afresh: squares of prices near 100,000 would lose a deviation of a few cents to cancellation.
 * Each bar is computed as ruleConditions' bollingerNext computes the forming bar (the same
 * multiplication by 1 / period), so a rule sees the value a chart shows.
 */
export function bollinger(
  values: Float64Array,
  period = 20,
  width = 2,
  out: BollingerBands = { middle: output(values.length), upper: output(values.length), lower: output(values.length) },
): BollingerBands {
  checkPeriod(period);
  const refreshEvery = freshSumEvery(period);
  const inverse = 1 / period;
  let reference = 0;
  let sum = 0;
  let squares = 0;
  let barsSinceFresh = refreshEvery;
  for (let index = period - 1; index < values.length; index += 1) {
    if (barsSinceFresh === refreshEvery) {
      reference = values[index + 1 - period]!;
      sum = 0;
      squares = 0;
      for (let inWindow = index + 1 - period; inWindow <= index; inWindow += 1) {
        const shifted = values[inWindow]! - reference;
        sum += shifted;
        squares += shifted * shifted;
      }
      barsSinceFresh = 0;
    } else {
      const entering = values[index]! - reference;
      const leaving = values[index - period]! - reference;
      sum += entering - leaving;
      squares += entering * entering - leaving * leaving;
    }
    barsSinceFresh += 1;
    const mean = sum * inverse;
    // Rounding can leave a flat window's variance a hair below zero.
    const variance = Math.max(squares * inverse - mean * mean, 0);
    const band = width * Math.sqrt(variance);
    out.middle[index] = mean + reference;
    out.upper[index] = mean + reference + band;
    out.lower[index] = mean + reference - band;
  }
  return out;
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
  let sum = 0;
  let squares = 0;
  for (let index = 0; index < Math.min(period, volume.length); index += 1) {
    sum += volume[index]!;
    squares += volume[index]! * volume[index]!;
  }
  for (let index = period; index < volume.length; index += 1) {
    const mean = sum / period;
    const variance = squares / period - mean * mean;
    // A variance within rounding of zero is no variation (it would blow a tiny wobble up).
    const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
    out[index] = deviation === 0 ? 0 : (volume[index]! - mean) / deviation;
    const leaving = volume[index - period]!;
    sum -= leaving;
    squares -= leaving * leaving;
    sum += volume[index]!;
    squares += volume[index]! * volume[index]!;
  }
  return out;
}

/** Rate of change in percent over `period` bars. */
export function roc(close: Float64Array, period = 10, out: Float64Array = output(close.length)): Float64Array {
  checkPeriod(period);
  for (let index = period; index < close.length; index += 1) {
    const before = close[index - period]!;
    out[index] = ((close[index]! - before) / before) * 100;
  }
  return out;
}

/**
 * Swing points: 1 where the bar's high is the strict highest of `strength` bars either side
 * (a swing high), -1 for the same with lows (a swing low), else 0. A swing is only known
 * `strength` bars later, so the first and last `strength` entries are not written (0 in a
 * fresh output). A NaN neighbour disqualifies nothing (a comparison with NaN is false), and a
 * bar that is both a swing high and a swing low reads 1.
 */
export function swingPoints(
  high: Float64Array,
  low: Float64Array,
  strength = 3,
  out: Int8Array = new Int8Array(high.length),
): Int8Array {
  for (let index = strength; index < high.length - strength; index += 1) {
    if (isSwingHigh(high, index, strength)) out[index] = 1;
    else if (isSwingLow(low, index, strength)) out[index] = -1;
    else out[index] = 0;
  }
  return out;
}

// Both ask whether a neighbour reaches the bar (`>=`, `<=`) rather than whether the bar clears
// it (`>`, `<`): a comparison with NaN is false either way, and this way round a NaN neighbour
// disqualifies nothing.

/** No high within `strength` bars either side is at or above the bar's. */
function isSwingHigh(high: Float64Array, index: number, strength: number): boolean {
  for (let offset = 1; offset <= strength; offset += 1) {
    if (high[index - offset]! >= high[index]! || high[index + offset]! >= high[index]!) return false;
  }
  return true;
}

/** No low within `strength` bars either side is at or below the bar's. */
function isSwingLow(low: Float64Array, index: number, strength: number): boolean {
  for (let offset = 1; offset <= strength; offset += 1) {
    if (low[index - offset]! <= low[index]! || low[index + offset]! <= low[index]!) return false;
  }
  return true;
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
  if (!(index >= 0 && index < close.length)) throw new RangeError(`bar ${index} is outside the ${close.length} bars`);
  const levels: PriceLevel[] = [];
  const price = close[index]!;
  for (let bar = Math.max(0, index - lookback); bar <= index; bar += 1) {
    if (swings[bar] === 0) continue;
    const level = swings[bar] === 1 ? high[bar]! : low[bar]!;
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
