// The backtest states at each bar what the product would have stated then: the same
// estimator over the bars up to that bar only, scored against the bar `horizon` later.
import { describe, expect, it } from 'vitest';
import { candleSeries, type CandleSeries } from '../../signals/candles.ts';
import { ForecastScorer } from '../../signals/forecastScore.ts';
import { watosOdds } from '../../signals/watosOdds.ts';
import { createDemoFeed } from '../market/service.ts';
import { walkForward } from './backtest.ts';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 2, 2, 12);

async function hours(): Promise<CandleSeries> {
  const feed = createDemoFeed({ now: () => now });
  return candleSeries(await feed.candles('ETH-USD', 3600, new Date(now - 40 * 24 * HOUR), new Date(now)));
}

const cut = (series: CandleSeries, length: number): CandleSeries =>
  candleSeries(
    Array.from({ length }, (_, index) => ({
      time: series.time[index]!,
      open: series.open[index]!,
      high: series.high[index]!,
      low: series.low[index]!,
      close: series.close[index]!,
      volume: series.volume[index]!,
    })),
  );

describe('walk-forward backtest', () => {
  it('scores, at every bar, exactly the odds watosOdds states from the bars up to it', async () => {
    const series = await hours();
    const horizon = 24;
    const walked = 120;
    const result = walkForward(series, horizon, { maxBars: walked });
    // The reference: watosOdds computed afresh on each prefix, nothing shared.
    const reference = new ForecastScorer();
    let pending = 0;
    for (let index = series.length - walked; index < series.length; index += 1) {
      const report = watosOdds(cut(series, index + 1), horizon);
      const base = report.baseRate.probability;
      if (base === null) continue;
      for (const signal of report.signals) {
        const probability = signal.odds?.probability;
        if (!signal.active || probability == null || signal.direction === 'neutral') continue;
        if (index + horizon >= series.length) pending += 1;
        else
          reference.add(
            signal.id,
            probability,
            base,
            series.close[index + horizon]! > series.close[index]!,
            signal.direction === 'bullish',
          );
      }
    }
    expect(reference.count).toBeGreaterThan(0);
    expect(result.scorer.report()).toEqual(reference.report());
    expect(result.pending).toBe(pending);
    expect(result.bars).toBe(walked);
  }, 60_000);
});
