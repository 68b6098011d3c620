// Technical indicators over Float64Arrays: one pass, O(n), no allocation per bar. Outputs
// have the input's length with NaN during each indicator's warm-up and finite values after
// it (inputs are finite: see candleSeries).
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
  const weight = 1 / period;
  for (let index = period + 1; index < length; index += 1) {
    const change = close[index] - close[index - 1];
    // Math.max compiles to a branch-free instruction; a sign test would mispredict half the time.
    gain = gain * keep + Math.max(change, 0) * weight;
    loss = loss * keep + Math.max(-change, 0) * weight;
    const total = gain + loss;
    out[index] = total === 0 ? 50 : (100 * gain) / total;
  }
  return out;
}

/** Wilder's average true range; the first true range is the first bar's high - low. */
export function atr(high: Float64Array, low: Float64Array, close: Float64Array, period = 14, out: Float64Array = output(close.length)): Float64Array {
  const length = close.length;
  if (length < period) return out;
  let average = high[0] - low[0];
  for (let index = 1; index < period; index += 1) {
    const previousClose = close[index - 1];
    average += Math.max(high[index] - low[index], Math.abs(high[index] - previousClose), Math.abs(low[index] - previousClose));
  }
  average /= period;
  out[period - 1] = average;
  const keep = (period - 1) / period;
  const weight = 1 / period;
  for (let index = period; index < length; index += 1) {
    const previousClose = close[index - 1];
    const trueRange = Math.max(high[index] - low[index], Math.abs(high[index] - previousClose), Math.abs(low[index] - previousClose));
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
 * first value so large prices do not lose precision to cancellation.
 */
export function bollinger(
  values: Float64Array,
  period = 20,
  width = 2,
  out: BollingerBands = { middle: output(values.length), upper: output(values.length), lower: output(values.length) },
): BollingerBands {
  const { middle, upper, lower } = out;
  const reference = values.length > 0 ? values[0] : 0;
  const inverse = 1 / period;
  let sum = 0;
  let squares = 0;
  for (let index = 0; index < values.length; index += 1) {
    const shifted = values[index] - reference;
    sum += shifted;
    squares += shifted * shifted;
    if (index >= period) {
      const leaving = values[index - period] - reference;
      sum -= leaving;
      squares -= leaving * leaving;
    }
    if (index >= period - 1) {
      const mean = sum * inverse;
      const band = width * Math.sqrt(Math.max(squares * inverse - mean * mean, 0));
      const centre = mean + reference;
      middle[index] = centre;
      upper[index] = centre + band;
      lower[index] = centre - band;
    }
  }
  return out;
}

/**
 * How unusual each bar's volume is: (volume - mean) / standard deviation of the previous
 * `period` bars. A window with no variation (all equal, or all zero) gives 0.
 */
export function volumeZScore(volume: Float64Array, period = 20, out: Float64Array = output(volume.length)): Float64Array {
  let sum = 0;
  let squares = 0;
  for (let index = 0; index < volume.length; index += 1) {
    if (index >= period) {
      const mean = sum / period;
      const variance = squares / period - mean * mean;
      const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
      out[index] = deviation === 0 ? 0 : (volume[index] - mean) / deviation;
      const leaving = volume[index - period];
      sum -= leaving;
      squares -= leaving * leaving;
    }
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
 * `strength` bars later, so the last `strength` bars are always 0.
 */
export function swingPoints(high: Float64Array, low: Float64Array, strength = 3, out: Int8Array = new Int8Array(high.length)): Int8Array {
  for (let index = strength; index < high.length - strength; index += 1) {
    let isHigh = true;
    let isLow = true;
    for (let offset = 1; offset <= strength && (isHigh || isLow); offset += 1) {
      if (high[index - offset] >= high[index] || high[index + offset] >= high[index]) isHigh = false;
      if (low[index - offset] <= low[index] || low[index + offset] <= low[index]) isLow = false;
    }
    out[index] = isHigh ? 1 : isLow ? -1 : 0;
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
    const existing = levels.find((candidate) => candidate.kind === kind && Math.abs(candidate.price - level) <= tolerance);
    if (existing) {
      existing.price = (existing.price * existing.touches + level) / (existing.touches + 1);
      existing.touches += 1;
    } else {
      levels.push({ price: level, touches: 1, kind });
    }
  }
  return levels.sort((a, b) => Math.abs(a.price - price) - Math.abs(b.price - price));
}
