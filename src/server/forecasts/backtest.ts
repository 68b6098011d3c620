// The walk-forward backtest (issue 20), pure: at every bar of the stored history (the newest
// BACKTEST_MAX_BARS), the odds the product would have stated then, from the bars up to that
// bar only, with the product's own estimator (watosOdds), scored against what followed with
// the same scorer as the live record. A bar whose horizon has not passed yet counts as pending.
import { ForecastScorer } from '../../signals/forecastScore.ts';
import { seriesPrefix, type CandleSeries } from '../../signals/candles.ts';
import type { WatosHistory, WatosId } from '../../signals/watos.ts';
import { watosHistory } from '../../signals/watos.ts';
import { watosOdds } from '../../signals/watosOdds.ts';

/** Bars walked at most (the newest ones): bounds the cost of one backtest. */
const BACKTEST_MAX_BARS = 1500;

export interface BacktestResult {
  scorer: ForecastScorer;
  /** Statements whose horizon had not passed at the end of the history. */
  pending: number;
  /** Bars walked (statement points looked at). */
  bars: number;
  /** Open time (ms) of the first and last bar walked. */
  from: number;
  to: number;
}

function prefixHistory(history: WatosHistory, length: number): WatosHistory {
  const states = {} as WatosHistory['states'];
  const values = {} as WatosHistory['values'];
  for (const id of Object.keys(history.states) as WatosId[]) {
    states[id] = history.states[id].subarray(0, length);
    values[id] = history.values[id].subarray(0, length);
  }
  return { states, values };
}

/**
 * Walks the series forward. The signal states at a bar depend only on the bars up to it (the
 * engine is causal: swings count once confirmed), so one history over the whole series, cut to
 * each prefix, is what the product computed at that bar; a test holds this.
 */
export function walkForward(
  series: CandleSeries,
  horizon: number,
  options: { signal?: string; maxBars?: number } = {},
): BacktestResult {
  const scorer = new ForecastScorer();
  const history = watosHistory(series);
  const maxBars = options.maxBars ?? BACKTEST_MAX_BARS;
  const start = Math.max(1, series.length - maxBars);
  let pending = 0;
  for (let index = start; index < series.length; index += 1) {
    const length = index + 1;
    const report = watosOdds(seriesPrefix(series, length), horizon, prefixHistory(history, length));
    const base = report.baseRate.probability;
    if (base === null) continue;
    for (const signal of report.signals) {
      if (options.signal && signal.id !== options.signal) continue;
      const probability = signal.odds?.probability;
      if (!signal.active || probability === null || probability === undefined || signal.direction === 'neutral')
        continue;
      if (index + horizon >= series.length) {
        pending += 1;
        continue;
      }
      const rose = series.close[index + horizon]! > series.close[index]!;
      scorer.add(signal.id, probability, base, rose, signal.direction === 'bullish');
    }
  }
  return {
    scorer,
    pending,
    bars: Math.max(0, series.length - start),
    from: series.length > start ? series.time[start]! : NaN,
    to: series.length > 0 ? series.time[series.length - 1]! : NaN,
  };
}
