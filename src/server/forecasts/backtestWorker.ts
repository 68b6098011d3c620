// A worker of backtestPool.ts: runs one walk-forward (backtest.ts) on the bars it is given and
// answers the scored report, so the walk (about a second for a 1m history) never holds the
// server's event loop. It keeps nothing between tasks.
import type { CandleSeries } from '../../signals/candles.ts';
import type { ScoreReport } from '../../signals/forecastScore.ts';
import { walkForward } from './backtest.ts';

/** What the pool sends: the grid's bars as columns (copied by structured clone), and the walk's options. */
export interface BacktestTask {
  series: CandleSeries;
  horizon: number;
  signal?: string;
  maxBars?: number;
}

/** walkForward's result with the scorer reported (a class instance does not cross threads). */
export interface PooledBacktest {
  report: ScoreReport;
  pending: number;
  bars: number;
  from: number;
  to: number;
}

/** The walk-forward, reported: what the worker answers, and what the main thread would compute itself. */
export function reportedWalkForward(task: BacktestTask): PooledBacktest {
  const result = walkForward(task.series, task.horizon, { signal: task.signal, maxBars: task.maxBars });
  return {
    report: result.scorer.report(),
    pending: result.pending,
    bars: result.bars,
    from: result.from,
    to: result.to,
  };
}

export default function runBacktest(task: BacktestTask): PooledBacktest {
  return reportedWalkForward(task);
}
