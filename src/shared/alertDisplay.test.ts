import { describe, expect, it } from 'vitest';
import { alertDisplayType, alertTimeLabel, parseAlertTimestamp, toAlertDisplayItem } from './alertDisplay.ts';
import { extractTicker, mentionsWatos } from './chatSignals.ts';

describe('alertDisplayType (docs/SPEC.md section 4)', () => {
  it.each([
    ['VolatilitySpikeAlertGenerator', 'ATR jumped 3.1x', 'caution'],
    ['MomentumShiftAlertGenerator', 'Momentum slowdown: ROC fell from 4% to 1%', 'caution'],
    ['MomentumShiftAlertGenerator', 'Momentum turned up', 'bullish'],
    ['BreakoutAlertGenerator', 'Broke resistance at 65,000', 'bullish'],
    ['TrendChangeAlertGenerator', 'Bearish trend change: EMA 20 crossed below EMA 50', 'bearish'],
    ['TrendChangeAlertGenerator', 'Trend turned BEARISH', 'bearish'],
    ['TrendChangeAlertGenerator', 'Bullish trend change', 'bullish'],
    ['VolatilitySpike', 'short name', 'caution'],
    ['SomethingElse', 'bullish words do not matter', 'caution'],
  ])('%s "%s" is %s', (type, message, expected) => {
    expect(alertDisplayType(type, message)).toBe(expected);
  });

  it('maps "slowdown" case-sensitively for momentum, as docs/SPEC.md says', () => {
    expect(alertDisplayType('MomentumShiftAlertGenerator', 'SLOWDOWN')).toBe('bullish');
  });

  it('builds the display item with market crypto and UTC parsing', () => {
    const item = toAlertDisplayItem({
      ticker: 'ETH',
      alert_type: 'BreakoutAlertGenerator',
      message: 'Breakout',
      timestamp: '2026-03-04 05:06:07',
    });
    expect(item).toMatchObject({
      symbol: 'ETH',
      market: 'crypto',
      type: 'bullish',
      content: 'Breakout',
      alertType: 'BreakoutAlertGenerator',
    });
    expect(parseAlertTimestamp('2026-03-04 05:06:07').toISOString()).toBe('2026-03-04T05:06:07.000Z');
  });
});

describe('alertTimeLabel', () => {
  it("shows today's alerts by time, this week's with the weekday, older ones with the date", () => {
    const now = new Date(2026, 10, 25, 10, 0, 0); // Wednesday, local time
    const stamp = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
    const today = new Date(2026, 10, 25, 8, 30, 0);
    expect(alertTimeLabel(stamp(today), now)).toBe(today.toLocaleTimeString());
    const friday = new Date(2026, 10, 20, 20, 59, 0);
    const fridayLabel = alertTimeLabel(stamp(friday), now);
    expect(fridayLabel).toBe(
      `${friday.toLocaleDateString(undefined, { weekday: 'short' })} ${friday.toLocaleTimeString()}`,
    );
    expect(fridayLabel).not.toBe(friday.toLocaleTimeString());
    const older = new Date(2026, 10, 10, 9, 0, 0);
    expect(alertTimeLabel(stamp(older), now)).toBe(older.toLocaleString());
  });
});

describe('chat signals', () => {
  it('finds WATOS mentions case-insensitively', () => {
    expect(mentionsWatos('Here is the WATOS grid')).toBe(true);
    expect(mentionsWatos('these Trading Signals look strong')).toBe(true);
    expect(mentionsWatos('Opportunity signals for SOL')).toBe(true);
    expect(mentionsWatos('The price of BTC is up')).toBe(false);
  });

  it('takes the first run of 2 to 5 capitals, or BTC', () => {
    expect(extractTicker('Odds for ETH look good')).toBe('ETH');
    expect(extractTicker('what about sol and AAPL?')).toBe('AAPL');
    expect(extractTicker('ABCDEFG then DOGE')).toBe('DOGE');
    expect(extractTicker('no tickers here')).toBe('BTC');
  });
});
