// The signals on the server's demo feed (moved from src/signals, which may import only src/shared):
// every alert generator fires over a day of demo minutes, on every asset class within days of
// sessions, and WATOS odds measured on demo history.
import { describe, expect, it } from 'vitest';
import { ALERT_TYPES } from '../../shared/constants.ts';
import { runAlertGenerators } from '../../signals/alertGenerators.ts';
import { candleSeries } from '../../signals/candles.ts';
import { watosHistory } from '../../signals/watos.ts';
import { MIN_SAMPLES, watosOdds } from '../../signals/watosOdds.ts';
import { DemoAsset, DEMO_EPOCH, aggregate } from './demoFeed.ts';
import type { CandleRow } from './types.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('runAlertGenerators on the demo feed', () => {
  it('fires every generator over a day of demo minutes, stamped at bar close, and only from fromIndex', () => {
    const asset = new DemoAsset('ETH-USD');
    const rows = Array.from({ length: 1440 }, () => asset.next());
    const series = candleSeries(rows);
    const alerts = runAlertGenerators(series, 'ETH', MINUTE);
    const types = new Set(alerts.map((alert) => alert.alert_type));
    expect(types).toEqual(
      new Set([
        'VolatilitySpikeAlertGenerator',
        'MomentumShiftAlertGenerator',
        'BreakoutAlertGenerator',
        'TrendChangeAlertGenerator',
      ]),
    );
    expect(alerts.every((alert) => alert.time === series.time[alert.index]! + MINUTE)).toBe(true);
    const late = runAlertGenerators(series, 'ETH', MINUTE, 1000);
    expect(late).toEqual(alerts.filter((alert) => alert.index >= 1000));
  });
});

describe('runAlertGenerators on every asset class of the demo feed', () => {
  // Ten calendar days from the epoch: seven US equity sessions (the first opens on Tuesday 2024-01-02),
  // eight Globex sessions, ten days of crypto.
  const DAYS = 10;

  it.each(['AAPL', 'SPY', 'SPX', 'ES1!', 'MES1!', 'BTC-USD'])(
    `fires all four generators on %s within ${DAYS} days of one-minute bars`,
    (productId) => {
      const asset = new DemoAsset(productId);
      const rows: CandleRow[] = [];
      // A cursor skips closed time, so the bar after the last one wanted may lie days later.
      for (let bar = asset.next(); bar.time < DEMO_EPOCH + DAYS * DAY; bar = asset.next()) rows.push(bar);
      const alerts = runAlertGenerators(candleSeries(rows), productId, MINUTE);
      expect(new Set(alerts.map((alert) => alert.alert_type))).toEqual(new Set(ALERT_TYPES));
      expect(alerts.every((alert) => alert.time <= DEMO_EPOCH + DAYS * DAY)).toBe(true);
    },
  );
});

describe('watosOdds on demo history', () => {
  it('gives measured probabilities with sample sizes, or says there is not enough history', () => {
    const asset = new DemoAsset('SOL-USD');
    const minutes = Array.from({ length: 90 * 1440 }, () => asset.next());
    const series = candleSeries(aggregate(minutes, 3600));
    const report = watosOdds(series, 24);
    expect(report.horizon).toBe(24);
    expect(report.baseRate.samples).toBe(series.length - 24);
    expect(report.baseRate.probability).toBeGreaterThan(0.3);
    expect(report.baseRate.probability).toBeLessThan(0.7);
    for (const signal of report.signals) {
      if (!signal.active) {
        expect(signal.odds).toBeNull();
        continue;
      }
      if (signal.odds!.probability === null) {
        expect(signal.odds!.reason).toBe('not enough history');
        expect(signal.odds!.samples).toBeLessThan(MIN_SAMPLES);
      } else {
        expect(signal.odds!.samples).toBeGreaterThanOrEqual(MIN_SAMPLES);
        const [low, high] = signal.odds!.interval!;
        expect(low).toBeLessThanOrEqual(signal.odds!.probability);
        expect(high).toBeGreaterThanOrEqual(signal.odds!.probability);
      }
    }
    const history = watosHistory(series);
    const activeSomewhere = Object.values(history.states).filter((states) => states.some((state) => state !== 0));
    expect(activeSomewhere).toHaveLength(6);
  });
});
