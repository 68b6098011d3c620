// Resolution on crafted candles: the exact horizon, gaps, missing and incomplete due bars,
// another feed's candles, and a market with sessions.
import { describe, expect, it } from 'vitest';
import {
  dueTime,
  expectedBuckets,
  GIVE_UP_MS,
  RESOLVE_GRACE_MS,
  resolveForecast,
  type BaseBar,
  type PendingForecast,
} from './resolution.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T = Date.UTC(2026, 2, 2, 12); // a Monday, 12:00 UTC: the close of the entry bar

function forecast(overrides: Partial<PendingForecast> = {}): PendingForecast {
  return {
    id: 1,
    timeframe: '1h',
    horizonBars: 3,
    barTime: T,
    dueAt: T + 3 * HOUR,
    entryClose: 100,
    source: 'demo',
    calendar: 'crypto-24x7',
    ...overrides,
  };
}

/** Hourly bars opening at T + k hours with the given closes. */
const hours = (closes: Array<number | null>, source = 'demo'): BaseBar[] =>
  closes.flatMap((close, k) => (close === null ? [] : [{ time: T + k * HOUR, close, source }]));

describe('forecast resolution', () => {
  it('uses the close of exactly the horizon-th bar after the entry bar, once its grace has passed', () => {
    // Bars after the entry: T (1st), T+1h (2nd), T+2h (3rd = due, close 105); T+3h is past the horizon.
    const bars = hours([101, 99, 105, 90]);
    const due = T + 3 * HOUR;
    expect(dueTime('crypto-24x7', '1h', T, 3)).toBe(due);
    expect(resolveForecast(forecast(), bars, due + RESOLVE_GRACE_MS - 1)).toBeNull();
    expect(resolveForecast(forecast(), bars, due + RESOLVE_GRACE_MS)).toEqual({
      id: 1,
      status: 'resolved',
      rose: true,
      exitClose: 105,
    });
    // The bar after the due one (90) is never used; an equal close is not a rise.
    expect(resolveForecast(forecast(), hours([101, 99, 100, 120]), due + HOUR)).toMatchObject({
      status: 'resolved',
      rose: false,
      exitClose: 100,
    });
  });

  it('marks gaps beyond the tolerance unresolvable and tolerates a few', () => {
    const horizon = 24;
    const base = { horizonBars: horizon, dueAt: T + horizon * HOUR };
    const closes = Array.from({ length: horizon + 1 }, (_, k) => 100 + k);
    const withHoles = (holes: number[]) => hours(closes.map((close, k) => (holes.includes(k) ? null : close)));
    const late = T + 30 * HOUR;
    // 10% of 24 bars, rounded down: 2 missing bars are tolerated, 3 are not.
    expect(resolveForecast(forecast(base), withHoles([5, 9]), late)).toMatchObject({
      status: 'resolved',
      rose: true,
      exitClose: 123,
    });
    expect(resolveForecast(forecast(base), withHoles([5, 9, 14]), late)).toEqual({
      id: 1,
      status: 'unresolvable',
      note: '3 of 24 bars missing in the horizon',
    });
  });

  it('waits for a missing due bar while the store may catch up, then gives up; never guesses', () => {
    const due = T + 3 * HOUR;
    const notYet = hours([101, 99]);
    expect(resolveForecast(forecast(), notYet, due + HOUR)).toBeNull();
    expect(resolveForecast(forecast(), notYet, due + GIVE_UP_MS)).toEqual({
      id: 1,
      status: 'unresolvable',
      note: 'no candle at the due time',
    });
    // The store has bars after the due time but not the due bar: a gap, settled at once.
    expect(resolveForecast(forecast(), hours([101, 99, null, 104]), due + HOUR)).toMatchObject({
      status: 'unresolvable',
      note: 'no candle at the due time',
    });
  });

  it('does not settle on an incomplete due bar (built from one-minute bars)', () => {
    // 5m timeframe, horizon 2: due bucket T+5m..T+10m; its last minute (T+9m) is missing.
    const minutes = (from: number, to: number): BaseBar[] =>
      Array.from({ length: to - from }, (_, k) => ({
        time: T + (from + k) * MINUTE,
        close: 100 + from + k,
        source: 'demo',
      }));
    const fiveMinute = forecast({ timeframe: '5m', horizonBars: 2, dueAt: T + 10 * MINUTE });
    const complete = minutes(0, 12);
    expect(resolveForecast(fiveMinute, complete, T + 20 * MINUTE)).toEqual({
      id: 1,
      status: 'resolved',
      rose: true,
      exitClose: 109,
    });
    const cut = [...minutes(0, 9), ...minutes(10, 12)];
    expect(resolveForecast(fiveMinute, cut, T + 20 * MINUTE)).toMatchObject({
      status: 'unresolvable',
      note: 'the due bar is incomplete',
    });
  });

  it('never settles a demo forecast with real prices (or the other way round)', () => {
    expect(resolveForecast(forecast(), hours([101, 99, 105], 'coinbase'), T + 4 * HOUR)).toMatchObject({
      status: 'unresolvable',
      note: 'stored candles come from another feed (coinbase, the forecast is demo)',
    });
    expect(
      resolveForecast(forecast({ source: 'real' }), hours([101, 99, 105], 'coinbase'), T + 4 * HOUR),
    ).toMatchObject({ status: 'resolved', rose: true });
  });

  it('counts only buckets that trade for a market with sessions (a stock over a weekend)', () => {
    // Friday 2026-03-06, the 15:00 ET (20:00 UTC) hourly bar closes the session at 21:00 UTC.
    const friday = Date.UTC(2026, 2, 6, 21);
    // Monday 2026-03-09 (New York on daylight time): the session opens 09:30 ET = 13:30 UTC.
    const monday = (hour: number) => Date.UTC(2026, 2, 9, hour);
    expect(expectedBuckets('us-equities', friday - HOUR, HOUR, 2)).toEqual([monday(13), monday(14)]);
    const due = dueTime('us-equities', '1h', friday, 2);
    expect(due).toBe(monday(15));
    const stock = forecast({ barTime: friday, horizonBars: 2, dueAt: due, calendar: 'us-equities' });
    const bars: BaseBar[] = [
      { time: monday(13), close: 98, source: 'yahoo' },
      { time: monday(14), close: 97, source: 'yahoo' },
      { time: monday(15), close: 120, source: 'yahoo' },
    ];
    expect(resolveForecast({ ...stock, source: 'real' }, bars, monday(16))).toEqual({
      id: 1,
      status: 'resolved',
      rose: false,
      exitClose: 97,
    });
  });
});
