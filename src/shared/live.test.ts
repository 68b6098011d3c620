// The state a live price shows (issue 34, item 3): Live, Delayed N min and Demo from the newest
// tick while it is fresh; Stale once silent STALE_AFTER_MS while the market trades (a symbol with
// no tick yet counts from when it was put on screen); nothing while the market is closed, with a
// delayed feed's market judged at the time its prices are from.
import { describe, expect, it } from 'vitest';
import { liveStateLabel, liveStateOf } from './live.ts';
import { STALE_AFTER_MS } from './schemas/live.ts';

// Wednesday 2026-11-25: 15:00 UTC is 10:00 in New York (regular session), 21:30 UTC is 16:30 (closed).
const OPEN = Date.parse('2026-11-25T15:00:00Z');
const AFTER_CLOSE = Date.parse('2026-11-25T21:30:00Z');
const REAL = { source: 'coinbase', delayMinutes: 0 } as const;
const base = { staleAfterMs: STALE_AFTER_MS } as const;

describe('liveStateOf', () => {
  it('names a fresh tick by its source and delay', () => {
    const at = { ...base, since: OPEN - 1000, now: OPEN, calendar: 'us-equities' } as const;
    expect(liveStateOf({ ...at, tick: REAL })).toEqual({ kind: 'live' });
    expect(liveStateOf({ ...at, tick: { source: 'yahoo', delayMinutes: 15 } })).toEqual({
      kind: 'delayed',
      minutes: 15,
    });
    expect(liveStateOf({ ...at, tick: { source: 'demo', delayMinutes: 0 } })).toEqual({ kind: 'demo' });
    expect(liveStateOf({ ...at, tick: null })).toBeNull();
  });

  it('is Stale from STALE_AFTER_MS of silence while the market is open, counting from the last tick', () => {
    const since = OPEN - STALE_AFTER_MS;
    expect(liveStateOf({ ...base, tick: REAL, since: since + 1, now: OPEN, calendar: 'us-equities' })).toEqual({
      kind: 'live',
    });
    expect(liveStateOf({ ...base, tick: REAL, since, now: OPEN, calendar: 'us-equities' })).toEqual({
      kind: 'stale',
      since,
    });
    // Never a tick since the symbol came on screen: Stale all the same.
    expect(liveStateOf({ ...base, tick: null, since, now: OPEN, calendar: 'crypto-24x7' })).toEqual({
      kind: 'stale',
      since,
    });
  });

  it('says nothing for a silent symbol whose market is closed (crypto never closes)', () => {
    const since = AFTER_CLOSE - 10 * 60_000;
    expect(liveStateOf({ ...base, tick: REAL, since, now: AFTER_CLOSE, calendar: 'us-equities' })).toBeNull();
    expect(liveStateOf({ ...base, tick: REAL, since, now: AFTER_CLOSE, calendar: 'crypto-24x7' })).toEqual({
      kind: 'stale',
      since,
    });
  });

  it('judges a delayed feed’s market at the time its prices are from', () => {
    // 16:10 in New York: closed, but a 15-minute feed is still at 15:55, in the session.
    const now = Date.parse('2026-11-25T21:10:00Z');
    const since = now - STALE_AFTER_MS;
    const delayed = { source: 'yahoo', delayMinutes: 15 } as const;
    expect(liveStateOf({ ...base, tick: delayed, since, now, calendar: 'us-equities' })).toEqual({
      kind: 'stale',
      since,
    });
    expect(liveStateOf({ ...base, tick: REAL, since, now, calendar: 'us-equities' })).toBeNull();
  });
});

describe('liveStateLabel', () => {
  it('writes each state as rows and charts show it', () => {
    expect(liveStateLabel({ kind: 'live' })).toBe('Live');
    expect(liveStateLabel({ kind: 'delayed', minutes: 15 })).toBe('Delayed 15 min');
    expect(liveStateLabel({ kind: 'demo' })).toBe('Demo');
    expect(liveStateLabel({ kind: 'stale', since: OPEN })).toBe('Stale');
  });
});
