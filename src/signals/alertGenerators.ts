// The four alert generators of docs/SPEC.md. Each is a documented rule over a candle series that
// fires once when its condition appears and stays quiet until the condition has reset.
// Messages are written for docs/SPEC.md's display mapping: a momentum slowdown says 'slowdown',
// a bearish trend change says 'bearish'.
//
// Rules (defaults; every parameter can be changed):
// - VolatilitySpike: a bar's true range is at least `factor` (4) times the Wilder ATR(60) of
//   the bars before it. Re-arms when a bar's range falls below `resetFactor` (1.5) times ATR.
// - MomentumShift: the 20-bar rate of change against a threshold of `thresholdAtr` (8) ATRs
//   in percent of price. Rising above it is 'momentum building'; falling back from it (below
//   half of it) or dropping below its negative is a 'momentum slowdown'.
// - Breakout: the close clears the highest high of the previous 60 bars by at least
//   `minClearanceAtr` (0.5) ATRs (a close a hair above the high is noise, not a breakout).
//   Re-arms when the close falls one ATR below the broken level or after 30 bars.
// - TrendChange: EMA(20) against EMA(50), with a dead band of 1 ATR; a flip from one side
//   to the other is a bullish or bearish trend change.
//
// Quiet by design (runAlertGenerators): at most one alert of a type per symbol in
// ALERT_COOLDOWN_MS (4 hours), and pegged assets (stablecoins) get no trend, momentum or
// breakout alerts, their wobble around the peg being none of those: only a volatility spike
// of at least half a percent (a depeg). About 5 alerts per symbol per day on the demo feed's
// one-minute bars (`npm run bench -- alertRate`).
import type { AlertType } from '../shared/constants.ts';
import { symbolByTicker } from '../shared/tickers.ts';
import type { CandleSeries } from './candles.ts';
import { atr, ema, roc } from './indicators.ts';

export interface GeneratedAlert {
  ticker: string;
  alert_type: AlertType;
  message: string;
  /** Close time of the triggering bar, epoch ms. */
  time: number;
  /** Index of the triggering bar in the series. */
  index: number;
}

export interface AlertGenerator {
  readonly type: AlertType;
  /** Calls `emit` for every bar where the rule fires, oldest first. */
  scan(series: CandleSeries, ticker: string, emit: (index: number, message: string) => void): void;
}

function percent(value: number, decimals = 2): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(decimals)}%`;
}

function price(value: number): string {
  if (value >= 100) return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return value >= 1 ? value.toFixed(4) : value.toPrecision(4);
}

export function volatilitySpike({
  atrPeriod = 60,
  factor = 4,
  resetFactor = 1.5,
  minRangePercent = 0,
} = {}): AlertGenerator {
  return {
    type: 'VolatilitySpikeAlertGenerator',
    scan(series, ticker, emit) {
      const average = atr(series.high, series.low, series.close, atrPeriod);
      let armed = true;
      for (let index = atrPeriod; index < series.length; index += 1) {
        const before = average[index - 1]!;
        const previousClose = series.close[index - 1]!;
        const range = Math.max(
          series.high[index]! - series.low[index]!,
          Math.abs(series.high[index]! - previousClose),
          Math.abs(series.low[index]! - previousClose),
        );
        if (!(before > 0)) continue;
        const ratio = range / before;
        if (armed && ratio >= factor && (range / previousClose) * 100 >= minRangePercent) {
          armed = false;
          emit(
            index,
            `${ticker} volatility spike: the bar's range of ${((range / previousClose) * 100).toFixed(2)}% is ${ratio.toFixed(1)}x its ${atrPeriod}-bar average true range`,
          );
        } else if (!armed && ratio < resetFactor) {
          armed = true;
        }
      }
    },
  };
}

export function momentumShift({ rocPeriod = 20, atrPeriod = 60, thresholdAtr = 8 } = {}): AlertGenerator {
  return {
    type: 'MomentumShiftAlertGenerator',
    scan(series, ticker, emit) {
      const change = roc(series.close, rocPeriod);
      const average = atr(series.high, series.low, series.close, atrPeriod);
      let state: 'up' | 'down' | 'flat' | null = null;
      for (let index = Math.max(rocPeriod, atrPeriod); index < series.length; index += 1) {
        const threshold = (thresholdAtr * average[index]! * 100) / series.close[index]!;
        const value = change[index]!;
        if (!Number.isFinite(value) || !(threshold > 0)) continue;
        let next: 'up' | 'down' | 'flat' = state ?? 'flat';
        if (value > threshold) next = 'up';
        else if (value < -threshold) next = 'down';
        else if (Math.abs(value) < threshold / 2) next = 'flat';
        if (state !== null && next !== state) {
          if (next === 'up') {
            emit(
              index,
              `${ticker} momentum building: ${rocPeriod}-bar rate of change ${percent(value)} is above its ${percent(threshold)} threshold`,
            );
          } else if (state === 'up') {
            emit(
              index,
              `${ticker} momentum slowdown: ${rocPeriod}-bar rate of change eased to ${percent(value)} after an up-move`,
            );
          } else if (next === 'down') {
            emit(
              index,
              `${ticker} momentum slowdown: selling pressure took the ${rocPeriod}-bar rate of change to ${percent(value)}`,
            );
          }
        }
        state = next;
      }
    },
  };
}

export function breakout({
  lookback = 60,
  atrPeriod = 60,
  cooldownBars = 30,
  minClearanceAtr = 0.5,
} = {}): AlertGenerator {
  return {
    type: 'BreakoutAlertGenerator',
    scan(series, ticker, emit) {
      const average = atr(series.high, series.low, series.close, atrPeriod);
      let armed = true;
      let brokenLevel = 0;
      let firedAt = -Infinity;
      // Highest high of the previous `lookback` bars, kept with a monotonic deque (O(n)).
      const window: number[] = [];
      for (let index = 0; index < series.length; index += 1) {
        if (index >= lookback && window.length > 0) {
          const level = series.high[window[0]!]!;
          if (!armed && (series.close[index]! < brokenLevel - average[index]! || index - firedAt >= cooldownBars))
            armed = true;
          if (
            armed &&
            Number.isFinite(average[index]) &&
            series.close[index]! > level &&
            series.close[index]! - level >= minClearanceAtr * average[index]!
          ) {
            armed = false;
            brokenLevel = level;
            firedAt = index;
            const clearance = ((series.close[index]! - level) / level) * 100;
            emit(
              index,
              `${ticker} breakout: closed at ${price(series.close[index]!)}, ${clearance.toFixed(2)}% above its ${lookback}-bar high of ${price(level)} (resistance)`,
            );
          }
        }
        while (window.length > 0 && series.high[window[window.length - 1]!]! <= series.high[index]!) window.pop();
        window.push(index);
        if (window[0]! <= index - lookback) window.shift();
      }
    },
  };
}

export function trendChange({ fast = 20, slow = 50, atrPeriod = 60, deadBandAtr = 1 } = {}): AlertGenerator {
  return {
    type: 'TrendChangeAlertGenerator',
    scan(series, ticker, emit) {
      const fastLine = ema(series.close, fast);
      const slowLine = ema(series.close, slow);
      const average = atr(series.high, series.low, series.close, atrPeriod);
      let side: 'up' | 'down' | null = null;
      for (let index = Math.max(slow, atrPeriod); index < series.length; index += 1) {
        const gap = fastLine[index]! - slowLine[index]!;
        const band = deadBandAtr * average[index]!;
        const next: 'up' | 'down' | null = gap > band ? 'up' : gap < -band ? 'down' : side;
        if (side !== null && next !== side) {
          const at = price(series.close[index]!);
          emit(
            index,
            next === 'up'
              ? `${ticker} bullish trend change: EMA ${fast} crossed above EMA ${slow} at ${at}`
              : `${ticker} bearish trend change: EMA ${fast} crossed below EMA ${slow} at ${at}`,
          );
        }
        side = next;
      }
    },
  };
}

const ALERT_GENERATORS: readonly AlertGenerator[] = [volatilitySpike(), momentumShift(), breakout(), trendChange()];

/** The generators that make sense for a symbol: a pegged asset (stablecoin) has no trend or momentum. */
function alertGeneratorsFor(ticker: string): readonly AlertGenerator[] {
  return symbolByTicker(ticker)?.pegged ? PEGGED_GENERATORS : ALERT_GENERATORS;
}

/** A pegged asset: only a move off the peg (a bar's range of half a percent) is news. */
const PEGGED_GENERATORS: readonly AlertGenerator[] = [volatilitySpike({ minRangePercent: 0.5 })];

/** At most one alert of a type per symbol in this long (a trader reads two a day, not sixty). */
export const ALERT_COOLDOWN_MS = 4 * 3_600_000;

/**
 * Runs the generators over a series and returns the alerts of bars at or after `fromIndex`
 * (earlier bars only build each rule's state and its cooldown). `barMs` turns a bar's open
 * time into its close time, which is when the alert was knowable. A generator that fires again
 * within `cooldownMs` of its last alert on this series is not reported.
 */
export function runAlertGenerators(
  series: CandleSeries,
  ticker: string,
  barMs: number,
  fromIndex = 0,
  generators: readonly AlertGenerator[] = alertGeneratorsFor(ticker),
  cooldownMs = ALERT_COOLDOWN_MS,
): GeneratedAlert[] {
  const alerts: GeneratedAlert[] = [];
  for (const generator of generators) {
    let lastTime = -Infinity;
    generator.scan(series, ticker, (index, message) => {
      const time = series.time[index]! + barMs;
      if (time - lastTime < cooldownMs) return;
      lastTime = time;
      if (index >= fromIndex) alerts.push({ ticker, alert_type: generator.type, message, time, index });
    });
  }
  return alerts.sort((a, b) => a.index - b.index);
}
