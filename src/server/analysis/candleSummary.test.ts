// The candle summary measures its periods in clock time, so a market with sessions (7 hourly
// bars a US trading day) and a 24/7 one (24 a day) both get a true 24-hour and 7-day change.
import { describe, expect, it } from 'vitest';
import { candleSeries } from '../../signals/candles.ts';
import { summariseCandles } from './candleSummary.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Monday 2026-11-02 14:30 UTC: the US open (09:30 New York, standard time).
const MONDAY_OPEN = Date.UTC(2026, 10, 2, 14, 30);

function bar(time: number, close: number) {
  return { time, open: close, high: close + 1, low: close - 1, close, volume: 10 };
}

describe('summariseCandles', () => {
  it('takes a stock’s 24h and 7d change from the bars that opened a day and a week earlier', () => {
    // Two weeks of sessions, weekdays only, 7 hourly bars a day; the close encodes the bar's time.
    const rows = [];
    for (let day = 0; day < 14; day += 1) {
      const weekday = (day % 7) + 1; // 1 = Monday
      if (weekday > 5) continue;
      for (let hour = 0; hour < 7; hour += 1) {
        const time = MONDAY_OPEN + day * DAY + hour * HOUR;
        rows.push(bar(time, 100 + day * 10 + hour));
      }
    }
    const series = candleSeries(rows);
    const summary = summariseCandles(series, 'AAPL', '1h', 'demo');
    const last = rows.at(-1)!; // Friday of week two, 15:30 New York: day 11, hour 6 -> 216
    expect(last.close).toBe(216);
    const change = (period: string) => summary.changes.find((entry) => entry.period === period)?.percent;
    // 24 hours earlier: Thursday's 15:30 bar (day 10, hour 6 -> 206); a bar count would reach Tuesday.
    expect(change('24h')).toBeCloseTo((216 / 206 - 1) * 100, 10);
    // 7 days earlier: the previous Friday's 15:30 bar (day 4, hour 6 -> 146).
    expect(change('7d')).toBeCloseTo((216 / 146 - 1) * 100, 10);
    expect(change('30d')).toBeUndefined();
    // The 24h range covers the last 24 hours: Thursday's last bar is out (it closed 24 h before), Friday's 7 are in.
    expect(summary.range24h).toEqual({ high: 217, low: 209 });
    expect(summary.assetClass).toBe('stock');
  });

  it('matches bar counting on a 24/7 market', () => {
    const start = Date.UTC(2026, 10, 1);
    const rows = Array.from({ length: 24 * 10 }, (_, index) => bar(start + index * HOUR, 1000 + index));
    const summary = summariseCandles(candleSeries(rows), 'BTC-USD', '1h', 'coinbase');
    const last = rows.length - 1;
    expect(summary.changes.find((entry) => entry.period === '24h')?.percent).toBeCloseTo(
      ((1000 + last) / (1000 + last - 24) - 1) * 100,
      10,
    );
    expect(summary.range24h).toEqual({ high: 1000 + last + 1, low: 1000 + last - 23 - 1 });
  });
});
