// The scan conditions as states at one closed bar of a symbol's timeframe series: each
// condition's figure and whether it holds, over a prepared series (closed T-bars built from
// stored 1m or 1h bars with the signals' own aggregation) whose indicator arrays are computed
// once per (series, parameters) and kept on the series. Pure: the scan engine's cache and the
// naive peer (a fresh read per symbol) call the same functions, so their answers can only
// differ by what they read.
import { RULE_TIMEFRAME_MS, type RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { ScanCondition } from '../../shared/schemas/scans.ts';
import { sessionAt } from '../../shared/sessions.ts';
import type { MarketSymbol } from '../../shared/symbolTable.ts';
import { candleSeries, type CandleInput, type CandleSeries } from '../../signals/candles.ts';
import { bollinger, ema, rsi, volumeZScore, type BollingerBands } from '../../signals/indicators.ts';
import { aggregate, crossesDown, crossesUp, fromHours, lowerBound } from '../../signals/ruleConditions.ts';
import { watosOdds, type WatosReport } from '../../signals/watosOdds.ts';
import { ANALYSIS_TIMEFRAMES } from '../analysis/service.ts';

/** Stored bars read per symbol: 60 days of hours (as the rule evaluator holds), 2 days of minutes. */
export const HISTORY_BARS: Record<60 | 3600, number> = { 3600: 1440, 60: 2880 };

export function baseGranularity(timeframe: RuleTimeframe): 60 | 3600 {
  return fromHours(timeframe) ? 3600 : 60;
}

/** A built-in alert as the scan reads it: the plain ticker, the generator, and its time (a bar's close, ms). */
export interface ScanAlert {
  ticker: string;
  alertType: string;
  time: number;
}

/** A symbol's closed bars of one timeframe, and what was computed on them (filled lazily). */
export interface PreparedSeries {
  symbol: MarketSymbol;
  timeframe: RuleTimeframe;
  source: string;
  /** Closed T-bars, oldest first. */
  bars: CandleSeries;
  cache: Map<string, Float64Array | BollingerBands | WatosReport | number>;
}

/**
 * The closed T-bars from stored bars of the timeframe's base size (oldest first, the newest
 * `HISTORY_BARS` of them): aggregated into UTC-aligned buckets with ruleConditions' `aggregate`
 * (the rule evaluator's), the oldest bucket dropped when the read was cut inside it, and the
 * buckets not yet closed at `now` left out.
 */
export function prepareSeries(
  symbol: MarketSymbol,
  timeframe: RuleTimeframe,
  rows: readonly CandleInput[],
  source: string,
  now: number,
): PreparedSeries {
  const granularity = baseGranularity(timeframe);
  const frameMs = RULE_TIMEFRAME_MS[timeframe];
  const base = candleSeries(rows);
  let bars: CandleSeries = base;
  if (frameMs !== granularity * 1000) {
    const frame = aggregate(base, 0, base.length, frameMs);
    const cut = rows.length >= HISTORY_BARS[granularity] && frame.length > 0 && frame.time[0]! < base.time[0]! ? 1 : 0;
    bars = slice(frame, cut, frame.length);
  }
  // A bucket is closed once its end has passed (stored 1m and 1h bars are closed already).
  const closed = lowerBound(bars.time, bars.length, now - frameMs + 1);
  if (closed < bars.length) bars = slice(bars, 0, closed);
  return { symbol, timeframe, source, bars, cache: new Map() };
}

function slice(series: CandleSeries, from: number, to: number): CandleSeries {
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

function cached<T extends Float64Array | BollingerBands | WatosReport | number>(
  prepared: PreparedSeries,
  key: string,
  compute: () => T,
): T {
  let value = prepared.cache.get(key) as T | undefined;
  if (value === undefined) {
    value = compute();
    prepared.cache.set(key, value);
  }
  return value;
}

const emaOf = (prepared: PreparedSeries, period: number) =>
  cached(prepared, `ema|${period}`, () => ema(prepared.bars.close, period));

/** One condition at bar `index`: its figure (null when it has none), whether it holds, and whether it could be known. */
export interface ConditionResult {
  value: number | null;
  pass: boolean;
  /** False when the history is too short for the figure (an indicator's warm-up, too few bars). */
  known: boolean;
}

const UNKNOWN: ConditionResult = { value: null, pass: false, known: false };
const result = (value: number | null, pass: boolean): ConditionResult => ({ value, pass, known: true });

/** Built-in alerts by plain ticker, newest last. */
export type AlertsByTicker = ReadonlyMap<string, readonly ScanAlert[]>;

export function evaluateCondition(
  prepared: PreparedSeries,
  condition: ScanCondition,
  index: number,
  alerts: AlertsByTicker,
): ConditionResult {
  const { bars, symbol } = prepared;
  const close = bars.close[index]!;
  switch (condition.kind) {
    case 'change': {
      const from = index - condition.bars;
      if (from < 0) return UNKNOWN;
      const change = (close / bars.close[from]! - 1) * 100;
      return result(change, condition.side === 'above' ? change >= condition.percent : change <= -condition.percent);
    }
    case 'rsi': {
      const value = cached(prepared, `rsi|${condition.period}`, () => rsi(bars.close, condition.period))[index]!;
      if (Number.isNaN(value)) return UNKNOWN;
      return result(value, condition.side === 'above' ? value > condition.level : value < condition.level);
    }
    case 'ema_cross': {
      const fast = emaOf(prepared, condition.fast);
      const slow = emaOf(prepared, condition.slow);
      const spread = fast[index]! - slow[index]!;
      if (Number.isNaN(spread) || index < 1) return UNKNOWN;
      let crossed = false;
      for (let at = index; at > index - condition.withinBars && at >= 1 && !crossed; at -= 1) {
        const previous = fast[at - 1]! - slow[at - 1]!;
        const current = fast[at]! - slow[at]!;
        crossed = condition.side === 'above' ? crossesUp(previous, current, 0) : crossesDown(previous, current, 0);
      }
      return result((spread / close) * 100, crossed);
    }
    case 'price_vs_ema': {
      const average = emaOf(prepared, condition.period)[index]!;
      if (Number.isNaN(average)) return UNKNOWN;
      return result((close / average - 1) * 100, condition.side === 'above' ? close > average : close < average);
    }
    case 'bollinger': {
      const bands = cached(prepared, `bb|${condition.period}|${condition.deviations}`, () =>
        bollinger(bars.close, condition.period, condition.deviations),
      );
      const upper = bands.upper[index]!;
      const lower = bands.lower[index]!;
      const middle = bands.middle[index]!;
      if (Number.isNaN(upper)) return UNKNOWN;
      // The close in standard deviations from the middle band (%b's z-score form).
      const deviation = (upper - middle) / condition.deviations;
      const z = deviation > 0 ? (close - middle) / deviation : 0;
      return result(z, condition.side === 'above' ? close > upper : close < lower);
    }
    case 'volume_z': {
      const value = cached(prepared, `vz|${condition.period}`, () => volumeZScore(bars.volume, condition.period))[
        index
      ]!;
      if (Number.isNaN(value)) return UNKNOWN;
      return result(value, value >= condition.threshold);
    }
    case 'builtin': {
      // Bars since the newest alert (of the type) that closed within the bar or before it.
      const frameMs = RULE_TIMEFRAME_MS[prepared.timeframe];
      const end = bars.time[index]! + frameMs;
      const list = alerts.get(symbol.ticker) ?? [];
      for (let at = list.length - 1; at >= 0; at -= 1) {
        const alert = list[at]!;
        if (alert.time > end) continue;
        if (condition.alertType && alert.alertType !== condition.alertType) continue;
        // The bar holding the alert's triggering moment (an alert's time is its bar's close).
        const holding = lowerBound(bars.time, index + 1, alert.time) - 1;
        if (holding < 0) break;
        const since = index - holding;
        return since < condition.withinBars ? result(since, true) : result(null, false);
      }
      return result(null, false);
    }
    case 'watos_edge': {
      const report = cached(prepared, `watos|${index}`, () =>
        watosOdds(slice(bars, 0, index + 1), ANALYSIS_TIMEFRAMES[watosFrame(prepared.timeframe)].horizon),
      );
      const base = report.baseRate.probability;
      if (base === null) return UNKNOWN;
      let best: number | null = null;
      for (const signal of report.signals) {
        const odds = signal.odds;
        if (!signal.active || !odds || odds.probability === null || odds.noEdge !== false) continue;
        // The stated probability of a higher close: a rise edge sits above the base rate, a fall edge below.
        const share = condition.outcome === 'rise' ? odds.probability : 1 - odds.probability;
        const baseShare = condition.outcome === 'rise' ? base : 1 - base;
        if (share > baseShare && (best === null || share > best)) best = share;
      }
      return best === null ? result(null, false) : result(best * 100, true);
    }
    case 'asset_class':
      return result(null, condition.classes.includes(symbol.assetClass));
    case 'price_range':
      return result(
        null,
        (condition.min === undefined || close >= condition.min) &&
          (condition.max === undefined || close <= condition.max),
      );
    case 'session_change': {
      const change = sessionChange(prepared, index);
      if (change === null) return UNKNOWN;
      const percent = change.percent;
      return result(percent, condition.side === 'above' ? percent >= condition.percent : percent <= -condition.percent);
    }
  }
}

/** The analysis timeframe whose WATOS horizon a rule timeframe uses (1D is the analysis's D). */
function watosFrame(timeframe: RuleTimeframe): keyof typeof ANALYSIS_TIMEFRAMES {
  return timeframe === '1D' ? 'D' : timeframe;
}

/**
 * The change from the session's open to the close of bar `index`: the open of the first bar of
 * the session the bar belongs to (stocks: the regular session; futures: Globex; crypto: the UTC
 * day). Null outside a session or when the session's first bar is not held.
 */
export function sessionChange(prepared: PreparedSeries, index: number): { change: number; percent: number } | null {
  const openPrice = cached(prepared, `session|${index}`, () => {
    const { bars, symbol } = prepared;
    const frameMs = RULE_TIMEFRAME_MS[prepared.timeframe];
    const open = sessionAt(symbol.calendar, bars.time[index]!).sessionOpen;
    if (open === undefined) return NaN;
    // The bar that holds the session's open: the first whose end is after it. When it is the
    // first bar held but starts after the open, the session's start was not read.
    const first = lowerBound(bars.time, index + 1, open - frameMs + 1);
    if (first > index || (first === 0 && bars.time[0]! > open)) return NaN;
    return bars.open[first]!;
  });
  if (Number.isNaN(openPrice)) return null;
  const close = prepared.bars.close[index]!;
  return { change: close - openPrice, percent: (close / openPrice - 1) * 100 };
}
