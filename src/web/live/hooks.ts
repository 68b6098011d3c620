// The live connection for components (LiveProvider.tsx mounts it). Each hook works outside the
// provider too (tests of one panel, pages without it): it then has nothing to report and the
// component shows its polled figures.
import { useCallback, useContext, useEffect, useRef, useSyncExternalStore } from 'react';
import type { LiveAlert } from '../../shared/schemas/alerts.ts';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';
import type { LiveState } from '../../shared/schemas/live.ts';
import { LiveContext } from './liveContext.ts';
import { liveSymbolId, type LiveStatus, type TickEntry } from './liveConnection.ts';

/** Puts `symbols` on this tab's live connection while mounted (the provider sends the union). */
export function useLiveTicks(symbols: readonly string[]): void {
  const connection = useContext(LiveContext);
  // A new array of the same symbols (every render of a list) changes nothing.
  const key = symbols.join('\n');
  useEffect(() => {
    if (!connection || key === '') return;
    return connection.register(key.split('\n'));
  }, [connection, key]);
}

/**
 * The newest tick of one symbol (any form the symbol table resolves), registered while mounted;
 * re-renders the calling component on that symbol's ticks only.
 */
export function useLiveTick(symbol: string | null | undefined): TickEntry | undefined {
  const connection = useContext(LiveContext);
  const id = symbol ? liveSymbolId(symbol) : null;
  useLiveTicks(id ? [id] : []);
  const subscribe = useCallback(
    (listener: () => void) => (connection && id ? connection.subscribeTick(id, listener) : () => undefined),
    [connection, id],
  );
  return useSyncExternalStore(
    subscribe,
    () => (connection && id ? connection.tick(id) : undefined),
    () => undefined,
  );
}

/**
 * Calls `listener` with each tick of one symbol without re-rendering (the chart draws them on
 * its canvas); registers the symbol while mounted.
 */
export function useLiveTickListener(symbol: string | null | undefined, listener: (entry: TickEntry) => void): void {
  const connection = useContext(LiveContext);
  const id = symbol ? liveSymbolId(symbol) : null;
  useLiveTicks(id ? [id] : []);
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => {
    if (!connection || !id) return;
    return connection.subscribeTick(id, () => {
      const entry = connection.tick(id);
      if (entry) latest.current(entry);
    });
  }, [connection, id]);
}

/** A state as a comparable snapshot (useSyncExternalStore compares snapshots with Object.is). */
function stateKey(state: LiveState | null): string {
  if (!state) return '';
  if (state.kind === 'delayed') return `delayed:${state.minutes}`;
  if (state.kind === 'stale') return `stale:${state.since}`;
  return state.kind;
}

function fromKey(key: string): LiveState | null {
  const [kind, value] = key.split(':');
  if (kind === 'delayed') return { kind, minutes: Number(value) };
  if (kind === 'stale') return { kind, since: Number(value) };
  if (kind === 'live' || kind === 'demo') return { kind };
  return null;
}

/**
 * What one symbol's price is now: Live, Delayed N min, Demo, Stale (silent STALE_AFTER_MS while
 * its market is open), or null (no tick yet, its market closed, or no live connection). Turns
 * Stale by itself and back to Live on the next tick; re-renders only when the state changes.
 */
export function useLiveState(symbol: string | null | undefined): LiveState | null {
  const connection = useContext(LiveContext);
  const id = symbol ? liveSymbolId(symbol) : null;
  useLiveTicks(id ? [id] : []);
  const subscribe = useCallback(
    (listener: () => void) => (connection && id ? connection.subscribeState(id, listener) : () => undefined),
    [connection, id],
  );
  const key = useSyncExternalStore(
    subscribe,
    () => (connection && id ? stateKey(connection.state(id)) : ''),
    () => '',
  );
  return fromKey(key);
}

/** The connection's status, or null outside the dashboard. */
export function useLiveStatus(): LiveStatus | null {
  const connection = useContext(LiveContext);
  const subscribe = useCallback(
    (listener: () => void) => (connection ? connection.subscribeStatus(listener) : () => undefined),
    [connection],
  );
  return useSyncExternalStore(
    subscribe,
    () => connection?.status ?? null,
    () => null,
  );
}

/** Calls the newest `listener` with each market alert on the live connection while mounted. */
export function useLiveAlerts(listener: (alert: LiveAlert) => void): void {
  const connection = useContext(LiveContext);
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => connection?.onAlert((alert) => latest.current(alert)), [connection]);
}

/** Calls the newest `listener` with each of this trader's rule firings while mounted. */
export function useLiveRuleFirings(listener: (firing: RuleFiring) => void): void {
  const connection = useContext(LiveContext);
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => connection?.onRuleFiring((firing) => latest.current(firing)), [connection]);
}
