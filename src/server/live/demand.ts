// Which symbols the browsers watch, across instances (issue 34): every instance announces on
// the bus the union of the symbols its live connections carry (live/hub.ts), when it changes
// and every few seconds. The instances that own feeds keep the announcements here and carry
// the union: a symbol someone watches anywhere gets its ticks, and an instance that died
// stops counting once its announcement is not renewed within the time to live.
import type { AlertBus } from '../alerts/service.ts';

/** How long an instance's announcement counts without being renewed (it renews every 5 s). */
const DEMAND_TTL_MS = 15_000;

export interface DemandBook {
  /** An instance's whole set now (an empty one withdraws it); true when the union changed. */
  note(instanceId: string, symbols: readonly string[]): boolean;
  /** Forgets announcements older than the time to live; true when the union changed. */
  prune(): boolean;
  /** The union of the live announcements, sorted. */
  symbols(): string[];
}

export function createDemandBook(options: { ttlMs?: number; now?: () => number } = {}): DemandBook {
  const ttlMs = options.ttlMs ?? DEMAND_TTL_MS;
  const now = options.now ?? Date.now;
  const byInstance = new Map<string, { symbols: ReadonlySet<string>; at: number }>();
  let union: string[] = [];

  /** Recomputes the union; true when it differs from the last one. */
  function refresh(): boolean {
    const all = new Set<string>();
    for (const { symbols } of byInstance.values()) for (const symbol of symbols) all.add(symbol);
    const next = [...all].sort();
    const changed = next.length !== union.length || next.some((symbol, index) => symbol !== union[index]);
    union = next;
    return changed;
  }

  /** Drops the announcements older than the time to live; true when one was dropped. */
  function dropExpired(): boolean {
    const oldest = now() - ttlMs;
    let dropped = false;
    for (const [instanceId, entry] of byInstance) {
      if (entry.at < oldest) {
        byInstance.delete(instanceId);
        dropped = true;
      }
    }
    return dropped;
  }

  return {
    note(instanceId, symbols) {
      if (symbols.length === 0) byInstance.delete(instanceId);
      else byInstance.set(instanceId, { symbols: new Set(symbols), at: now() });
      dropExpired();
      return refresh();
    },
    prune: () => dropExpired() && refresh(),
    symbols: () => [...union],
  };
}

/**
 * Keeps a demand book from the bus and calls onChange with the union whenever it changes (an
 * announcement, or one expiring: checked every sweepMs). Returns the stop function.
 */
export function followDemand(
  bus: Pick<AlertBus, 'subscribeDemand'>,
  onChange: (symbols: string[]) => void,
  options: { ttlMs?: number; sweepMs?: number; now?: () => number } = {},
): () => void {
  const book = createDemandBook(options);
  const stop = bus.subscribeDemand((instanceId, symbols) => {
    if (book.note(instanceId, symbols)) onChange(book.symbols());
  });
  const sweep = setInterval(() => {
    if (book.prune()) onChange(book.symbols());
  }, options.sweepMs ?? 1_000);
  sweep.unref();
  return () => {
    stop();
    clearInterval(sweep);
  };
}
