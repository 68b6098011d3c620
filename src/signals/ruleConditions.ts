// The maths of alert-rule conditions (issue 16) over candle series: timeframe bars built from
// one-minute and hourly bars, indicator values at a minute over the closed bars plus the
// forming one, crossings, channels, percentage moves and WATOS odds. Pure functions: the
// server's incremental evaluator (src/server/rules/evaluator.ts) groups and caches them, and
// `ruleFiresAt` is the plain reference it must agree with (tests, bench/ruleEvaluation).
//
// Windows are fixed by each condition's parameters so that the value at a minute depends only
// on the bars, never on how long the evaluator has been running: an indicator of window K
// sees at most the last K closed T-bars, built from at most sourceWindow(T, K) source bars
// before the forming T-bar's bucket. When that limit cuts the source, the oldest bucket may be
// partial and is dropped. EMA and RSI are seeded at the window's start, as indicators.ts does.
import type { RuleCondition, RuleTimeframe } from '../shared/schemas/alertRules.ts';
import { RULE_TIMEFRAME_MS } from '../shared/schemas/alertRules.ts';
import type { CandleSeries } from './candles.ts';
import { watosOdds, type WatosReport } from './watosOdds.ts';

export const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** At most this many one-minute bars (4 days) and hourly bars (60 days) are ever needed. */
export const MINUTE_HISTORY_MAX = 5760;
export const HOUR_HISTORY_MAX = 1440;
/** Source bars one indicator window may span: the history cap minus room for the forming bucket and a previous one. */
const MINUTE_WINDOW_MAX = MINUTE_HISTORY_MAX - 200;
const HOUR_WINDOW_MAX = HOUR_HISTORY_MAX - 72;
/** WATOS odds look 24 T-bars ahead over at most the last 500 closed T-bars. */
const WATOS_HORIZON = 24;
export const WATOS_WINDOW = 500;

/** The one-minute and hourly bars of a symbol, oldest first (hourly bars are closed hours). */
export interface RuleBars {
  minutes: CandleSeries;
  hours: CandleSeries;
}

/** Open time of the T-bar holding `time`: UTC epoch multiples of the timeframe (1D = UTC day). */
export function bucketStart(time: number, frameMs: number): number {
  return Math.floor(time / frameMs) * frameMs;
}

/** 1h, 4h and 1D bars are built from hourly bars (plus the minutes of the forming hour); shorter ones from minutes. */
export function fromHours(timeframe: RuleTimeframe): boolean {
  return RULE_TIMEFRAME_MS[timeframe] >= HOUR_MS;
}

/** Source bars per T-bar: 1, 5, 15 minutes or 1, 4, 24 hours. */
function sourceRatio(timeframe: RuleTimeframe): number {
  return RULE_TIMEFRAME_MS[timeframe] / (fromHours(timeframe) ? HOUR_MS : MINUTE_MS);
}

/** First index in [0, length) whose value is >= target (length when none). */
export function lowerBound(values: Float64Array, length: number, target: number): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** First index in [0, length) whose value is > target (length when none). */
function upperBound(values: Float64Array, length: number, target: number): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! <= target) low = middle + 1;
    else high = middle;
  }
  return low;
}

export type IndicatorCondition = Extract<RuleCondition, { kind: 'rsi' | 'ema_cross' | 'bollinger' | 'volume_z' }>;

/** Closed T-bars an indicator looks at: 3x its period + 50 for the smoothed ones, the period for the others. */
export function windowBars(condition: IndicatorCondition | Extract<RuleCondition, { kind: 'watos_odds' }>): number {
  switch (condition.kind) {
    case 'rsi':
      return 3 * condition.period + 50;
    case 'ema_cross':
      return 3 * Math.max(condition.fast, condition.slow) + 50;
    case 'bollinger':
    case 'volume_z':
      return condition.period;
    case 'watos_odds':
      return WATOS_WINDOW;
  }
}

/** Source bars (minutes or hours) before the forming bucket a window of `bars` T-bars is built from. */
export function sourceWindow(timeframe: RuleTimeframe, bars: number): number {
  return Math.min(fromHours(timeframe) ? HOUR_WINDOW_MAX : MINUTE_WINDOW_MAX, (bars + 1) * sourceRatio(timeframe));
}

/** T-bars aggregated from source bars, with the source index each one starts at. */
export interface FrameBars extends CandleSeries {
  readonly first: Int32Array;
}

/** Columns an aggregation may write into again (the evaluator keeps one per timeframe). */
export interface FrameScratch {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  first: Int32Array;
}

export function frameScratch(capacity: number): FrameScratch {
  return {
    time: new Float64Array(capacity),
    open: new Float64Array(capacity),
    high: new Float64Array(capacity),
    low: new Float64Array(capacity),
    close: new Float64Array(capacity),
    volume: new Float64Array(capacity),
    first: new Int32Array(capacity),
  };
}

/**
 * Aggregates source bars [from, to) into T-bars: first open, highest high, lowest low, last
 * close, summed volume. Writes into `scratch` when it is large enough (the result is then a view
 * of it, valid until its next use).
 */
export function aggregate(
  source: CandleSeries,
  from: number,
  to: number,
  frameMs: number,
  scratch?: FrameScratch,
): FrameBars {
  const capacity = Math.max(0, to - from);
  const out = scratch && scratch.time.length >= capacity ? scratch : frameScratch(capacity);
  const { time, open, high, low, close, volume, first } = out;
  let length = 0;
  let bucket = NaN;
  for (let index = from; index < to; index += 1) {
    const start = bucketStart(source.time[index]!, frameMs);
    if (start !== bucket) {
      bucket = start;
      time[length] = start;
      open[length] = source.open[index]!;
      high[length] = source.high[index]!;
      low[length] = source.low[index]!;
      close[length] = source.close[index]!;
      volume[length] = source.volume[index]!;
      first[length] = index;
      length += 1;
    } else {
      const at = length - 1;
      if (source.high[index]! > high[at]!) high[at] = source.high[index]!;
      if (source.low[index]! < low[at]!) low[at] = source.low[index]!;
      close[at] = source.close[index]!;
      volume[at] = volume[at]! + source.volume[index]!;
    }
  }
  return {
    length,
    time: time.subarray(0, length),
    open: open.subarray(0, length),
    high: high.subarray(0, length),
    low: low.subarray(0, length),
    close: close.subarray(0, length),
    volume: volume.subarray(0, length),
    first: first.subarray(0, length),
  };
}

/** The source series of a timeframe. */
function frameSource(bars: RuleBars, timeframe: RuleTimeframe): CandleSeries {
  return fromHours(timeframe) ? bars.hours : bars.minutes;
}

/**
 * First usable bucket of `frame` (aggregated from source bars [from, end)) for a window of
 * `bars` T-bars: the window's own source limit starts at end - sourceWindow; the bucket that
 * limit cuts may be partial and is dropped; then at most the last `bars` buckets.
 */
export function windowStart(frame: FrameBars, end: number, timeframe: RuleTimeframe, bars: number): number {
  const limit = sourceWindow(timeframe, bars);
  let start = 0;
  if (end >= limit) {
    const cut = end - limit;
    // The bucket holding the cut: the last one starting at or before it.
    let low = 0;
    let high = frame.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (frame.first[middle]! <= cut) low = middle + 1;
      else high = middle;
    }
    start = Math.max(0, low - 1);
    if (sourceRatio(timeframe) > 1 && start < frame.length && frame.first[start]! <= cut) start += 1;
  }
  return Math.max(start, frame.length - bars);
}

/** The closed T-bars (before the bucket of `time`) a window of `bars` T-bars sees. */
export function closedBars(bars: RuleBars, timeframe: RuleTimeframe, time: number, windowSize: number): CandleSeries {
  const frameMs = RULE_TIMEFRAME_MS[timeframe];
  const source = frameSource(bars, timeframe);
  const end = lowerBound(source.time, source.length, bucketStart(time, frameMs));
  const frame = aggregate(source, Math.max(0, end - sourceWindow(timeframe, windowSize)), end, frameMs);
  return sliceSeries(frame, windowStart(frame, end, timeframe, windowSize), frame.length);
}

function sliceSeries(series: CandleSeries, from: number, to: number): CandleSeries {
  return {
    length: to - from,
    time: series.time.subarray(from, to),
    open: series.open.subarray(from, to),
    high: series.high.subarray(from, to),
    low: series.low.subarray(from, to),
    close: series.close.subarray(from, to),
    volume: series.volume.subarray(from, to),
  };
}

export interface Bar {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * The forming T-bar at minute `index`: for 1m-15m the minutes of its bucket so far; for 1h-1D
 * the closed hours of its bucket plus the minutes of the forming hour so far.
 */
export function formingBar(bars: RuleBars, timeframe: RuleTimeframe, index: number): Bar {
  const { minutes, hours } = bars;
  const time = minutes.time[index]!;
  const start = bucketStart(time, RULE_TIMEFRAME_MS[timeframe]);
  const bar: Bar = { time: start, open: NaN, high: -Infinity, low: Infinity, close: minutes.close[index]!, volume: 0 };
  const add = (series: CandleSeries, at: number) => {
    if (Number.isNaN(bar.open)) bar.open = series.open[at]!;
    if (series.high[at]! > bar.high) bar.high = series.high[at]!;
    if (series.low[at]! < bar.low) bar.low = series.low[at]!;
    bar.volume += series.volume[at]!;
  };
  let minuteFrom = start;
  if (fromHours(timeframe)) {
    const hourStart = bucketStart(time, HOUR_MS);
    const hourEnd = lowerBound(hours.time, hours.length, hourStart);
    for (let at = lowerBound(hours.time, hours.length, start); at < hourEnd; at += 1) add(hours, at);
    minuteFrom = hourStart;
  }
  for (let at = lowerBound(minutes.time, index, minuteFrom); at <= index; at += 1) add(minutes, at);
  return bar;
}

/** The forming T-bar's volume at minute `index` (formingBar's volume without the rest). */
export function formingVolume(bars: RuleBars, timeframe: RuleTimeframe, index: number): number {
  const { minutes, hours } = bars;
  const time = minutes.time[index]!;
  const start = bucketStart(time, RULE_TIMEFRAME_MS[timeframe]);
  let volume = 0;
  let minuteFrom = start;
  if (fromHours(timeframe)) {
    const hourStart = bucketStart(time, HOUR_MS);
    const hourEnd = lowerBound(hours.time, hours.length, hourStart);
    for (let at = lowerBound(hours.time, hours.length, start); at < hourEnd; at += 1) volume += hours.volume[at]!;
    minuteFrom = hourStart;
  }
  for (let at = lowerBound(minutes.time, index, minuteFrom); at <= index; at += 1) volume += minutes.volume[at]!;
  return volume;
}

// --- Indicators at the forming bar ------------------------------------------------------------
// Each is split into a seed over the closed bars (computed once per closed window) and one step
// with the forming value, with the very operations of indicators.ts so the result is the last
// value of that indicator over closed + forming, bit for bit (ruleConditions.test.ts checks it).

export interface RsiSeed {
  count: number;
  gain: number;
  loss: number;
  last: number;
}

/** Wilder's RSI state after the closed closes (see indicators.ts rsi). */
export function rsiSeed(closes: Float64Array, period: number): RsiSeed {
  const count = closes.length;
  const last = count > 0 ? closes[count - 1]! : NaN;
  if (count < period) return { count, gain: NaN, loss: NaN, last };
  let gain = 0;
  let loss = 0;
  const seedEnd = Math.min(period, count - 1);
  for (let index = 1; index <= seedEnd; index += 1) {
    const change = closes[index]! - closes[index - 1]!;
    gain += Math.max(change, 0);
    loss += Math.max(-change, 0);
  }
  // With exactly `period` closed bars the forming bar completes the seed: keep the sums.
  if (count === period) return { count, gain, loss, last };
  gain /= period;
  loss /= period;
  const keep = (period - 1) / period;
  const weight = 1 / period;
  for (let index = period + 1; index < count; index += 1) {
    const change = closes[index]! - closes[index - 1]!;
    gain = gain * keep + Math.max(change, 0) * weight;
    loss = loss * keep + Math.max(-change, 0) * weight;
  }
  return { count, gain, loss, last };
}

/** RSI at the forming bar whose close is `close`; NaN during warm-up. */
export function rsiNext(seed: RsiSeed, close: number, period: number): number {
  if (seed.count < period) return NaN;
  const change = close - seed.last;
  let gain: number;
  let loss: number;
  if (seed.count === period) {
    gain = (seed.gain + Math.max(change, 0)) / period;
    loss = (seed.loss + Math.max(-change, 0)) / period;
    return gain + loss === 0 ? 50 : (100 * gain) / (gain + loss);
  }
  const weight = 1 / period;
  const keep = (period - 1) / period;
  gain = seed.gain * keep + Math.max(change, 0) * weight;
  loss = seed.loss * keep + Math.max(-change, 0) * weight;
  const total = gain + loss;
  return total === 0 ? 50 : (100 * gain) / total;
}

export interface EmaSeed {
  count: number;
  /** EMA at the last closed bar (NaN before `period` bars), or the running sum while seeding. */
  value: number;
}

/** EMA state after the closed values (see indicators.ts ema: seeded with the SMA of the first period). */
export function emaSeed(values: Float64Array, period: number): EmaSeed {
  const count = values.length;
  if (count < period - 1) return { count, value: NaN };
  let sum = 0;
  const seedEnd = Math.min(period, count);
  for (let index = 0; index < seedEnd; index += 1) sum += values[index]!;
  if (count === period - 1) return { count, value: sum };
  let previous = sum / period;
  const alpha = 2 / (period + 1);
  for (let index = period; index < count; index += 1) previous += alpha * (values[index]! - previous);
  return { count, value: previous };
}

/** EMA at the forming bar; NaN during warm-up. */
export function emaNext(seed: EmaSeed, value: number, period: number): number {
  if (seed.count < period - 1) return NaN;
  if (seed.count === period - 1) return (seed.value + value) / period;
  return seed.value + (2 / (period + 1)) * (value - seed.value);
}

/**
 * Bollinger bands over the last `period` values (the closed ones plus `close`), the population
 * deviation as in indicators.ts bollinger; NaN bands during warm-up.
 */
export function bollingerNext(
  closed: Float64Array,
  close: number,
  period: number,
  deviations: number,
): { upper: number; lower: number } {
  const from = closed.length - (period - 1);
  if (from < 0) return { upper: NaN, lower: NaN };
  const reference = period === 1 ? close : closed[from]!;
  let sum = 0;
  let squares = 0;
  for (let index = from; index < closed.length; index += 1) {
    const shifted = closed[index]! - reference;
    sum += shifted;
    squares += shifted * shifted;
  }
  const shifted = close - reference;
  sum += shifted;
  squares += shifted * shifted;
  const inverse = 1 / period;
  const mean = sum * inverse;
  const variance = squares * inverse - mean * mean;
  const band = deviations * (variance < 0 ? 0 : Math.sqrt(variance));
  const centre = mean + reference;
  return { upper: centre + band, lower: centre - band };
}

/** Volume z-score of `volume` against the previous `period` closed volumes (indicators.ts volumeZScore); NaN during warm-up. */
export function volumeZNext(closed: Float64Array, volume: number, period: number): number {
  const from = closed.length - period;
  if (from < 0) return NaN;
  let sum = 0;
  let squares = 0;
  for (let index = from; index < closed.length; index += 1) {
    sum += closed[index]!;
    squares += closed[index]! * closed[index]!;
  }
  const mean = sum / period;
  const variance = squares / period - mean * mean;
  const deviation = variance > mean * mean * 1e-12 ? Math.sqrt(variance) : 0;
  return deviation === 0 ? 0 : (volume - mean) / deviation;
}

// --- Condition states ---------------------------------------------------------------------------

/** From at or below the level to above it (NaN: false). */
export function crossesUp(previous: number, current: number, level: number): boolean {
  return previous <= level && current > level;
}

/** From at or above the level to below it (NaN: false). */
export function crossesDown(previous: number, current: number, level: number): boolean {
  return previous >= level && current < level;
}

/** above: prevClose < level <= close (a gap across fires, closing at the level fires); below: the mirror. */
export function priceCrosses(direction: 'above' | 'below', prevClose: number, close: number, level: number): boolean {
  return direction === 'above' ? prevClose < level && close >= level : prevClose > level && close <= level;
}

/** Levels (sorted ascending) in (prevClose, close]: the ones crossed upwards. Returns [from, to). */
export function levelsCrossedUp(levels: Float64Array, prevClose: number, close: number): [number, number] {
  if (!(close > prevClose)) return [0, 0];
  return [upperBound(levels, levels.length, prevClose), upperBound(levels, levels.length, close)];
}

/** Levels (sorted ascending) in [close, prevClose): the ones crossed downwards. Returns [from, to). */
export function levelsCrossedDown(levels: Float64Array, prevClose: number, close: number): [number, number] {
  if (!(close < prevClose)) return [0, 0];
  return [lowerBound(levels, levels.length, close), lowerBound(levels, levels.length, prevClose)];
}

function insideChannel(close: number, lower: number, upper: number): boolean {
  return close >= lower && close <= upper;
}

/** enters: outside then inside (bounds inclusive); exits: the reverse. */
export function channelCrossed(
  direction: 'enters' | 'exits',
  prevClose: number,
  close: number,
  lower: number,
  upper: number,
): boolean {
  const before = insideChannel(prevClose, lower, upper);
  const now = insideChannel(close, lower, upper);
  return direction === 'enters' ? !before && now : before && !now;
}

/** The last minute bar at or before `windowMinutes` before bar `index` (-1 when none). */
export function referenceIndex(minutes: CandleSeries, index: number, windowMinutes: number): number {
  return upperBound(minutes.time, index, minutes.time[index]! - windowMinutes * MINUTE_MS) - 1;
}

/** Whether the move from `reference` to `close` reaches `percent` (a rise for > 0, a fall for < 0). */
export function percentMoveMet(percent: number, close: number, reference: number): boolean {
  const change = (close / reference - 1) * 100;
  return percent > 0 ? change >= percent : change <= percent;
}

/** The measured probabilities of a rise of the active signals (those with enough samples). */
export function watosProbabilities(report: WatosReport): number[] {
  const found: number[] = [];
  for (const signal of report.signals) {
    const probability = signal.odds?.probability;
    if (signal.active && probability !== null && probability !== undefined) found.push(probability);
  }
  return found;
}

/** Some probability of a rise (or 1 - it, of a fall) reaches threshold percent. */
export function watosOddsMet(probabilities: readonly number[], outcome: 'rise' | 'fall', threshold: number): boolean {
  const needed = threshold / 100;
  return probabilities.some((probability) => (outcome === 'rise' ? probability : 1 - probability) >= needed);
}

/** Whether minute `index` ends a T-bar exactly (its close time is a bucket boundary). */
function completesBucket(time: number, frameMs: number): boolean {
  return (time + MINUTE_MS) % frameMs === 0;
}

/**
 * WATOS odds are evaluated when a T-bar closes: on the minute that completes it, or, when no
 * minute did (a market closed before the bucket's end), on the first minute of a later bucket.
 */
export function watosEvaluatedAt(minutes: CandleSeries, index: number, timeframe: RuleTimeframe): boolean {
  const frameMs = RULE_TIMEFRAME_MS[timeframe];
  const time = minutes.time[index]!;
  if (completesBucket(time, frameMs)) return true;
  if (index === 0) return false;
  const previous = minutes.time[index - 1]!;
  return bucketStart(previous, frameMs) < bucketStart(time, frameMs) && !completesBucket(previous, frameMs);
}

/** The last minute before `index` where the odds were evaluated (-1 when none is in the bars). */
export function previousWatosEvaluation(minutes: CandleSeries, index: number, timeframe: RuleTimeframe): number {
  for (let at = index - 1; at >= 0; at -= 1) if (watosEvaluatedAt(minutes, at, timeframe)) return at;
  return -1;
}

/** The closed T-bars WATOS sees at evaluation minute `index` (the bar it completes included). */
function watosSeries(bars: RuleBars, timeframe: RuleTimeframe, index: number): CandleSeries {
  const time = bars.minutes.time[index]!;
  const closed = closedBars(bars, timeframe, time, WATOS_WINDOW);
  if (!completesBucket(time, RULE_TIMEFRAME_MS[timeframe])) return closed;
  return appendBar(closed, formingBar(bars, timeframe, index), WATOS_WINDOW);
}

/** `series` plus one bar, keeping at most `keep` bars. */
function appendBar(series: CandleSeries, bar: Bar, keep: number): CandleSeries {
  const from = Math.max(0, series.length + 1 - keep);
  const length = series.length + 1 - from;
  const column = (values: Float64Array, last: number) => {
    const out = new Float64Array(length);
    out.set(values.subarray(from));
    out[length - 1] = last;
    return out;
  };
  return {
    length,
    time: column(series.time, bar.time),
    open: column(series.open, bar.open),
    high: column(series.high, bar.high),
    low: column(series.low, bar.low),
    close: column(series.close, bar.close),
    volume: column(series.volume, bar.volume),
  };
}

/** The active signals' rise probabilities at WATOS evaluation minute `index`. */
export function watosProbabilitiesAt(bars: RuleBars, timeframe: RuleTimeframe, index: number): number[] {
  const series = watosSeries(bars, timeframe, index);
  return series.length === 0 ? [] : watosProbabilities(watosOdds(series, WATOS_HORIZON));
}

// --- The reference: one rule, one minute, nothing shared ---------------------------------------

/** An indicator condition's value at minute `index` (Bollinger: the band of its direction). */
function indicatorAt(condition: IndicatorCondition, timeframe: RuleTimeframe, bars: RuleBars, index: number): number {
  const closed = closedBars(bars, timeframe, bars.minutes.time[index]!, windowBars(condition));
  const close = bars.minutes.close[index]!;
  switch (condition.kind) {
    case 'rsi':
      return rsiNext(rsiSeed(closed.close, condition.period), close, condition.period);
    case 'ema_cross':
      return (
        emaNext(emaSeed(closed.close, condition.fast), close, condition.fast) -
        emaNext(emaSeed(closed.close, condition.slow), close, condition.slow)
      );
    case 'bollinger': {
      const bands = bollingerNext(closed.close, close, condition.period, condition.deviations);
      return condition.direction === 'above' ? bands.upper : bands.lower;
    }
    case 'volume_z':
      return volumeZNext(closed.volume, formingVolume(bars, timeframe, index), condition.period);
  }
}

/** Whether an indicator condition holds given its value at a minute (crossings look at the previous value). */
export function indicatorFires(
  condition: IndicatorCondition,
  previous: number,
  current: number,
  close: number,
  previousClose: number,
): boolean {
  switch (condition.kind) {
    case 'rsi':
      return condition.direction === 'above'
        ? crossesUp(previous, current, condition.level)
        : crossesDown(previous, current, condition.level);
    case 'ema_cross':
      return condition.direction === 'above' ? crossesUp(previous, current, 0) : crossesDown(previous, current, 0);
    case 'bollinger':
      return condition.direction === 'above'
        ? close > current && !(previousClose > previous)
        : close < current && !(previousClose < previous);
    case 'volume_z':
      return current > condition.threshold && !(previous > condition.threshold);
  }
}

/**
 * The reference evaluation: whether a bar-based condition (every kind but builtin) fires at
 * minute `index` of bars.minutes, computed from scratch. The evaluator must agree with it.
 */
export function ruleFiresAt(
  condition: Exclude<RuleCondition, { kind: 'builtin' }>,
  timeframe: RuleTimeframe,
  bars: RuleBars,
  index: number,
): boolean {
  const { minutes } = bars;
  if (index < 1) return false;
  const close = minutes.close[index]!;
  const previousClose = minutes.close[index - 1]!;
  switch (condition.kind) {
    case 'price_cross':
      return priceCrosses(condition.direction, previousClose, close, condition.level);
    case 'channel':
      return channelCrossed(condition.direction, previousClose, close, condition.lower, condition.upper);
    case 'percent_move': {
      const met = (at: number) => {
        const reference = referenceIndex(minutes, at, condition.windowMinutes);
        return reference >= 0 && percentMoveMet(condition.percent, minutes.close[at]!, minutes.close[reference]!);
      };
      return met(index) && !met(index - 1);
    }
    case 'watos_odds': {
      if (!watosEvaluatedAt(minutes, index, timeframe)) return false;
      const { outcome, threshold } = condition;
      if (!watosOddsMet(watosProbabilitiesAt(bars, timeframe, index), outcome, threshold)) return false;
      const previous = previousWatosEvaluation(minutes, index, timeframe);
      return previous >= 0 && !watosOddsMet(watosProbabilitiesAt(bars, timeframe, previous), outcome, threshold);
    }
    default:
      return indicatorFires(
        condition,
        indicatorAt(condition, timeframe, bars, index - 1),
        indicatorAt(condition, timeframe, bars, index),
        close,
        previousClose,
      );
  }
}
