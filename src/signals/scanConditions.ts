// The scan conditions (shared/schemas/scans.ts) evaluated at every bar of a candle series, pure:
// for each bar, whether the condition holds there (`met`) and the figure it tested (`value`:
// the RSI, the % change, the z-score...; NaN where there is none). The scanner reads the last
// bar of it; the setup study (server/studies) reads every bar, its signals being the bars where
// all of a setup's conditions became true together.
//
// No look-ahead: met[i] and value[i] read bars 0..i only (every indicator here is a running
// loop over the past; the built-in alert generators fire on the bar whose close they saw). A
// property test holds it: a series cut after bar i gives the same answers for bars 0..i.
//
// watos_edge needs the WATOS odds as they were stated at every bar (a walk-forward of the
// estimator: seconds a symbol), so it is not evaluated here: UnsupportedScanCondition says so
// and the study answers 400 with its message.
import type { ScanCondition } from '../shared/schemas/scans.ts';
import { tradingDay, type SessionCalendarId } from '../shared/sessions.ts';
import type { AssetClass } from '../shared/symbolTable.ts';
import { runAlertGenerators } from './alertGenerators.ts';
import type { CandleSeries } from './candles.ts';
import { bollinger, ema, rsi, volumeZScore } from './indicators.ts';
import { crossesDown, crossesUp } from './ruleConditions.ts';

/** What a condition needs to know about the symbol besides its bars. */
export interface ScanContext {
  /** The ticker the built-in alert generators take (pegged assets get fewer). */
  ticker: string;
  assetClass: AssetClass;
  calendar: SessionCalendarId;
  /** Bar size in ms: a bar's open time plus this is its close (the alerts' time). */
  barMs: number;
}

export interface ConditionSeries {
  /** 1 where the condition holds at the bar, else 0. */
  met: Uint8Array;
  /** The figure tested at the bar; NaN where there is none (warm-up, or a kind without one). */
  value: Float64Array;
  /** The first bar whose state is known (the indicator's warm-up is over); met is 0 before it. */
  from: number;
}

/** A condition the per-bar evaluation cannot compute (watos_edge). */
export class UnsupportedScanCondition extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedScanCondition';
  }
}

function empty(length: number, from = 0): ConditionSeries {
  return { met: new Uint8Array(length), value: new Float64Array(length).fill(NaN), from };
}

/** The first bar each kind's state is known at: the warm-up of its indicator. */
function warmUp(condition: ScanCondition): number {
  switch (condition.kind) {
    case 'change':
      return condition.bars;
    case 'rsi':
      return condition.period;
    // A crossing needs the difference at the bar before: known from the slow EMA's second value.
    case 'ema_cross':
      return Math.max(condition.fast, condition.slow);
    case 'price_vs_ema':
    case 'bollinger':
      return condition.period - 1;
    case 'volume_z':
      return condition.period;
    default:
      return 0;
  }
}

/** Which built-in alerts fire at which bar (the generators run once a series; they are causal). */
function builtinSeries(
  condition: Extract<ScanCondition, { kind: 'builtin' }>,
  series: CandleSeries,
  context: ScanContext,
): ConditionSeries {
  const out = empty(series.length);
  const fired = new Uint8Array(series.length);
  for (const alert of runAlertGenerators(series, context.ticker, context.barMs)) {
    if (condition.alertType === undefined || alert.alert_type === condition.alertType) fired[alert.index] = 1;
  }
  let last = -1;
  for (let index = 0; index < series.length; index += 1) {
    if (fired[index]) last = index;
    if (last < 0) continue;
    // The value is the bars since the newest such alert (0: on this bar).
    out.value[index] = index - last;
    out.met[index] = index - last < condition.withinBars ? 1 : 0;
  }
  return out;
}

/** The change since the open of the bar's session (its trading day's first bar). */
function sessionChangeSeries(
  condition: Extract<ScanCondition, { kind: 'session_change' }>,
  series: CandleSeries,
  context: ScanContext,
): ConditionSeries {
  const out = empty(series.length);
  let day = '';
  let dayStart = -Infinity;
  let dayEnd = -Infinity;
  let open = NaN;
  for (let index = 0; index < series.length; index += 1) {
    const time = series.time[index]!;
    // tradingDay costs a calendar lookup: bars of a UTC day of a 24/7 market skip it.
    if (!(time >= dayStart && time < dayEnd)) {
      const current = tradingDay(context.calendar, time);
      if (current !== day) {
        day = current;
        open = series.open[index]!;
      }
      if (context.calendar === 'crypto-24x7') {
        dayStart = Math.floor(time / 86_400_000) * 86_400_000;
        dayEnd = dayStart + 86_400_000;
      }
    }
    const change = (series.close[index]! / open - 1) * 100;
    out.value[index] = change;
    out.met[index] = (condition.side === 'above' ? change >= condition.percent : change <= -condition.percent) ? 1 : 0;
  }
  return out;
}

/** One condition at every bar of `series`. Throws UnsupportedScanCondition for watos_edge. */
export function evaluateScanCondition(
  condition: ScanCondition,
  series: CandleSeries,
  context: ScanContext,
): ConditionSeries {
  const { length, close } = series;
  const out = empty(length, warmUp(condition));
  const { met, value } = out;
  switch (condition.kind) {
    case 'change': {
      for (let index = condition.bars; index < length; index += 1) {
        const change = (close[index]! / close[index - condition.bars]! - 1) * 100;
        value[index] = change;
        met[index] = (condition.side === 'above' ? change >= condition.percent : change <= -condition.percent) ? 1 : 0;
      }
      return out;
    }
    case 'rsi': {
      rsi(close, condition.period, value);
      for (let index = 0; index < length; index += 1)
        met[index] = (condition.side === 'above' ? value[index]! > condition.level : value[index]! < condition.level)
          ? 1
          : 0;
      return out;
    }
    case 'ema_cross': {
      const fast = ema(close, condition.fast);
      const slow = ema(close, condition.slow);
      let lastCross = -Infinity;
      for (let index = 0; index < length; index += 1) {
        // The value: how far the fast EMA is above (+) or below (-) the slow one, in percent.
        value[index] = (fast[index]! / slow[index]! - 1) * 100;
        if (index > 0) {
          const previous = fast[index - 1]! - slow[index - 1]!;
          const current = fast[index]! - slow[index]!;
          const crossed =
            condition.side === 'above' ? crossesUp(previous, current, 0) : crossesDown(previous, current, 0);
          if (crossed) lastCross = index;
        }
        met[index] = index - lastCross < condition.withinBars ? 1 : 0;
      }
      return out;
    }
    case 'price_vs_ema': {
      const average = ema(close, condition.period);
      for (let index = 0; index < length; index += 1) {
        // The close's distance from its EMA, in percent (NaN in the warm-up: never met).
        const distance = (close[index]! / average[index]! - 1) * 100;
        value[index] = distance;
        met[index] = (condition.side === 'above' ? distance > 0 : distance < 0) ? 1 : 0;
      }
      return out;
    }
    case 'bollinger': {
      const bands = bollinger(close, condition.period, condition.deviations);
      for (let index = 0; index < length; index += 1) {
        const upper = bands.upper[index]!;
        const lower = bands.lower[index]!;
        // %B: 0 at the lower band, 1 at the upper (a flat window has no width: no value).
        value[index] = upper > lower ? (close[index]! - lower) / (upper - lower) : NaN;
        met[index] = (condition.side === 'above' ? close[index]! > upper : close[index]! < lower) ? 1 : 0;
      }
      return out;
    }
    case 'volume_z': {
      volumeZScore(series.volume, condition.period, value);
      for (let index = 0; index < length; index += 1) met[index] = value[index]! >= condition.threshold ? 1 : 0;
      return out;
    }
    case 'builtin':
      return builtinSeries(condition, series, context);
    case 'asset_class': {
      met.fill(condition.classes.includes(context.assetClass) ? 1 : 0);
      return out;
    }
    case 'price_range': {
      for (let index = 0; index < length; index += 1) {
        const price = close[index]!;
        value[index] = price;
        met[index] =
          (condition.min === undefined || price >= condition.min) &&
          (condition.max === undefined || price <= condition.max)
            ? 1
            : 0;
      }
      return out;
    }
    case 'session_change':
      return sessionChangeSeries(condition, series, context);
    case 'watos_edge':
      throw new UnsupportedScanCondition(
        'conditions: watos_edge cannot be studied over history (it needs the WATOS odds restated at every bar); remove it or use the scanner',
      );
  }
}

/** Where every condition holds together (AND), and each condition's values. */
export function evaluateSetup(
  conditions: readonly ScanCondition[],
  series: CandleSeries,
  context: ScanContext,
): { met: Uint8Array; values: Float64Array[]; from: number } {
  const met = new Uint8Array(series.length).fill(1);
  const values: Float64Array[] = [];
  let from = 0;
  for (const condition of conditions) {
    const one = evaluateScanCondition(condition, series, context);
    for (let index = 0; index < series.length; index += 1) met[index] = met[index]! & one.met[index]!;
    values.push(one.value);
    from = Math.max(from, one.from);
  }
  return { met, values, from };
}

/**
 * The bars where the setup became true: met at bar i and not at bar i - 1, where the state at
 * i - 1 was known (i - 1 >= from): the first bar after a warm-up is no event, as a rule cannot
 * fire on it either.
 */
export function setupSignals(setup: { met: Uint8Array; from: number }): Int8Array {
  const { met } = setup;
  const signals = new Int8Array(met.length);
  for (let index = Math.max(1, setup.from + 1); index < met.length; index += 1)
    signals[index] = met[index] && !met[index - 1] ? 1 : 0;
  return signals;
}
