// What a row, a chart or a card says about its live price (issue 34, item 3): Live, Delayed N
// min, Demo or Stale, from the newest tick of its symbol, when it arrived and whether its market
// trades now. Pure and zod-free (the dashboard's first paint uses it; the wire shapes and
// STALE_AFTER_MS are in schemas/live.ts, whose value the caller passes in).
import type { LiveState, LiveTick } from './schemas/live.ts';
import { sessionAt, type SessionCalendarId } from './sessions.ts';

export interface LiveStateInput {
  /** The newest tick of the symbol, if one arrived since it was put on screen. */
  tick: Pick<LiveTick, 'source' | 'delayMinutes'> | null;
  /** When that tick arrived (epoch ms), else when the symbol was put on screen. */
  since: number;
  now: number;
  calendar: SessionCalendarId;
  /** A symbol whose market is open and whose feed has been silent this long is Stale. */
  staleAfterMs: number;
}

/**
 * The state to show, or null when the live path has nothing to say: no tick yet (and not silent
 * long enough to be Stale), or silent while the market is closed (the screen then keeps its own
 * closed or last-close wording: a closed market is quiet, not stale). A delayed feed's market is
 * judged at the time its prices are from (a 15-minute delay still trades 15 minutes after the
 * close and is still quiet 15 minutes after the open).
 */
export function liveStateOf({ tick, since, now, calendar, staleAfterMs }: LiveStateInput): LiveState | null {
  if (now - since < staleAfterMs) {
    if (!tick) return null;
    if (tick.source === 'demo') return { kind: 'demo' };
    if (tick.delayMinutes > 0) return { kind: 'delayed', minutes: tick.delayMinutes };
    return { kind: 'live' };
  }
  const pricedAt = now - (tick?.delayMinutes ?? 0) * 60_000;
  return sessionAt(calendar, pricedAt).open ? { kind: 'stale', since } : null;
}

/** The label of a state, as rows and charts show it. */
export function liveStateLabel(state: LiveState): string {
  switch (state.kind) {
    case 'live':
      return 'Live';
    case 'delayed':
      return `Delayed ${state.minutes} min`;
    case 'demo':
      return 'Demo';
    case 'stale':
      return 'Stale';
  }
}
