// When a forecast falls due and what happened (issue 20), pure: no I/O.
//
// A forecast is about the bar that closed at `barTime` on its timeframe and states the odds of
// a higher close `horizon` bars later, counted as the estimator counts them: bars that trade.
// A 24/7 market's due bar closes at barTime + horizon x timeframe; a market with sessions
// skips the buckets without a trading minute (nights, weekends, holidays), so its due bar is
// the horizon-th bucket with trading after the entry bar.
//
// Resolution reads the stored base bars (one-minute for timeframes under an hour, hourly
// otherwise, as the grid builds its bars) of the window after the entry bar and aggregates them
// into timeframe buckets. It is
// - 'resolved' when the due bucket is there and complete (its last base bar stored where the
//   calendar says one trades) and at most GAP_TOLERANCE of the expected buckets in between
//   are missing: rose = the due bucket's close > the entry close;
// - left pending while the store may still be catching up (no stored bar at or after the due
//   bucket) and the due time is less than GIVE_UP_MS ago;
// - 'unresolvable' otherwise (gaps, no candle at the due time, or candles of another feed:
//   a demo forecast is never settled with real prices nor the other way round). Never guessed.
import type { WatosTimeframe } from '../../shared/schemas/chat.ts';
import { nextOpen, type SessionCalendarId } from '../../shared/sessions.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Bar size and the stored base bars each timeframe is built from (as the assistant's tools build them). */
export const FORECAST_TIMEFRAMES = {
  '1m': { ms: MINUTE, base: 60 },
  '5m': { ms: 5 * MINUTE, base: 60 },
  '15m': { ms: 15 * MINUTE, base: 60 },
  '1h': { ms: HOUR, base: 3600 },
  '4h': { ms: 4 * HOUR, base: 3600 },
  '8h': { ms: 8 * HOUR, base: 3600 },
  '12h': { ms: 12 * HOUR, base: 3600 },
  D: { ms: 24 * HOUR, base: 3600 },
} as const satisfies Record<WatosTimeframe, { ms: number; base: 60 | 3600 }>;

/** A forecast is looked at this long after its due bar closed, so the engine has stored that bar. */
export const RESOLVE_GRACE_MS = 2 * MINUTE;
/** Missing due data is waited for this long (an engine catching up after an outage), then given up. */
export const GIVE_UP_MS = 6 * HOUR;
/** Share of the expected buckets between entry and due bar that may be missing (rounded down). */
const GAP_TOLERANCE = 0.1;

export type ForecastSource = 'demo' | 'real';

/** The feed class of a stored candle's source. */
const sourceClass = (source: string): ForecastSource => (source === 'demo' ? 'demo' : 'real');

function bucketOf(time: number, ms: number): number {
  return Math.floor(time / ms) * ms;
}

/** Whether the bucket [open, open + ms) has a trading minute. */
function trades(calendar: SessionCalendarId, open: number, ms: number): boolean {
  return nextOpen(calendar, open) < open + ms;
}

/**
 * Open times of the `horizon` buckets with trading after the entry bucket (the last is the due
 * bar). A 24/7 market steps by the bar size; others jump over closed time with the calendar.
 */
export function expectedBuckets(
  calendar: SessionCalendarId,
  entryOpen: number,
  timeframeMs: number,
  horizon: number,
): number[] {
  const buckets: number[] = [];
  let open = entryOpen;
  while (buckets.length < horizon) {
    open += timeframeMs;
    if (calendar !== 'crypto-24x7' && !trades(calendar, open, timeframeMs))
      open = bucketOf(nextOpen(calendar, open), timeframeMs);
    buckets.push(open);
  }
  return buckets;
}

/** Close time of the due bar of a forecast about the bar closing at `barTime`. */
export function dueTime(calendar: SessionCalendarId, timeframe: WatosTimeframe, barTime: number, horizon: number) {
  const { ms } = FORECAST_TIMEFRAMES[timeframe];
  const buckets = expectedBuckets(calendar, barTime - ms, ms, horizon);
  return buckets[buckets.length - 1]! + ms;
}

export interface PendingForecast {
  id: number;
  timeframe: WatosTimeframe;
  horizonBars: number;
  /** Close time (ms) of the bar the statement is about. */
  barTime: number;
  /** Close time (ms) of the due bar. */
  dueAt: number;
  entryClose: number;
  source: ForecastSource;
  calendar: SessionCalendarId;
}

/** A stored base bar: open time (ms), close and the feed that produced it. */
export interface BaseBar {
  time: number;
  close: number;
  source: string;
}

export type Resolution =
  | { id: number; status: 'resolved'; rose: boolean; exitClose: number }
  | { id: number; status: 'unresolvable'; note: string };

/**
 * Settles one forecast against the stored base bars of its symbol (sorted by time, covering
 * [entry bar close, due time) and, when stored, the bars after it); null while it should stay
 * pending.
 */
export function resolveForecast(forecast: PendingForecast, bars: readonly BaseBar[], now: number): Resolution | null {
  if (now < forecast.dueAt + RESOLVE_GRACE_MS) return null;
  const { ms, base } = FORECAST_TIMEFRAMES[forecast.timeframe];
  const baseMs = base * 1000;
  const entryOpen = forecast.barTime - ms;
  const expected = expectedBuckets(forecast.calendar, entryOpen, ms, forecast.horizonBars);
  const dueOpen = expected[expected.length - 1];

  // The window's buckets: which are present, and the due bucket's last base bar and close.
  // Bars and expected buckets are both in time order: walk them together, counting the
  // expected buckets seen (no per-bucket set: this runs a million times in the bench).
  let seen = 0;
  let cursor = 0;
  let lastSeen = NaN;
  let dueLast = -Infinity;
  let dueClose = NaN;
  let caughtUp = false;
  // Binary search to the first bar after the entry bar: a batch shares one long window of bars.
  let low = 0;
  let high = bars.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (bars[middle]!.time < forecast.barTime) low = middle + 1;
    else high = middle;
  }
  for (let index = low; index < bars.length; index += 1) {
    const bar = bars[index]!;
    if (bar.time >= forecast.dueAt) {
      caughtUp = true;
      break;
    }
    if (sourceClass(bar.source) !== forecast.source)
      return {
        id: forecast.id,
        status: 'unresolvable',
        note: `stored candles come from another feed (${bar.source}, the forecast is ${forecast.source})`,
      };
    const bucket = bucketOf(bar.time, ms);
    while (cursor < expected.length && expected[cursor]! < bucket) cursor += 1;
    if (cursor < expected.length && expected[cursor] === bucket && bucket !== lastSeen) {
      seen += 1;
      lastSeen = bucket;
    }
    if (bucket === dueOpen && bar.time > dueLast) {
      dueLast = bar.time;
      dueClose = bar.close;
    }
  }

  // The store may still be catching up while it holds nothing after the due bar.
  const waiting = !caughtUp && now < forecast.dueAt + GIVE_UP_MS;
  if (dueLast === -Infinity) {
    return waiting ? null : { id: forecast.id, status: 'unresolvable', note: 'no candle at the due time' };
  }
  // The due bar is complete when its last base bar is the last one the calendar trades in it.
  const lastBase = forecast.dueAt - baseMs;
  if (trades(forecast.calendar, lastBase, baseMs) && dueLast < lastBase) {
    return waiting ? null : { id: forecast.id, status: 'unresolvable', note: 'the due bar is incomplete' };
  }
  const missing = expected.length - seen;
  if (missing > Math.floor(expected.length * GAP_TOLERANCE)) {
    return {
      id: forecast.id,
      status: 'unresolvable',
      note: `${missing} of ${expected.length} bars missing in the horizon`,
    };
  }
  return { id: forecast.id, status: 'resolved', rose: dueClose > forecast.entryClose, exitClose: dueClose };
}
