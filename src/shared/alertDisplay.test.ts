import { describe, expect, it } from 'vitest';
import {
  alertDisplayType,
  alertTimeLabel,
  alertTimestampMs,
  parseAlertTimestamp,
  toAlertDisplayItem,
} from './alertDisplay.ts';
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

describe('alertTimestampMs', () => {
  /** The reading it replaced: the text as an ISO date string, real when it reads back the same. */
  const byDateString = (text: string) => {
    const iso = `${text.replace(' ', 'T')}Z`;
    const ms = Date.parse(iso);
    return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== iso.slice(0, 19) ? Number.NaN : ms;
  };

  it.each([
    ['2026-11-27 01:30:05', Date.UTC(2026, 10, 27, 1, 30, 5)],
    ['2024-02-29 23:59:59', Date.UTC(2024, 1, 29, 23, 59, 59)],
    ['2000-02-29 00:00:00', Date.UTC(2000, 1, 29)],
    ['0050-06-01 12:00:00', new Date(Date.UTC(2000, 5, 1, 12)).setUTCFullYear(50)],
  ])('reads %s', (text, ms) => {
    expect(alertTimestampMs(text)).toBe(ms);
    expect(parseAlertTimestamp(text).getTime()).toBe(ms);
  });

  it.each([
    '2026-02-29 10:00:00',
    '1900-02-29 10:00:00',
    '2026-02-30 10:00:00',
    '2026-04-31 10:00:00',
    '2026-13-01 10:00:00',
    '2026-00-10 10:00:00',
    '2026-01-00 10:00:00',
    '2026-01-01 24:00:00',
    '2026-01-01 10:60:00',
    '2026-01-01 10:00:60',
    '2026-01-01T10:00:00',
    '2026-01-01 10:00:0',
    '2026-01-01 10:00:00Z',
    '2026-1a-01 10:00:00',
    '',
  ])('refuses %j', (text) => {
    expect(alertTimestampMs(text)).toBeNaN();
  });

  it('agrees with reading the text as a date string on every day of four years and random times', () => {
    const pad = (value: number, width = 2) => String(value).padStart(width, '0');
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    let checked = 0;
    for (const year of [1900, 2000, 2023, 2024]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const text = `${year}-${pad(month)}-${pad(day)} ${pad(random(26))}:${pad(random(62))}:${pad(random(62))}`;
          expect({ text, ms: alertTimestampMs(text) }).toEqual({ text, ms: byDateString(text) });
          checked++;
        }
      }
    }
    expect(checked).toBe(4 * 14 * 33);
  });
});
