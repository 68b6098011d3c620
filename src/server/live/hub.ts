// The live connections of this instance and what each watches (issue 34). Tick batches come
// from the bus (whichever instance owns the symbols' feeds published them, coalesced, through
// publisher.ts); each connection watching a symbol gets its tick as pending, latest wins. On
// the next macrotask after a batch (setImmediate: every batch that arrived in the same turn
// of the event loop goes in one frame, and a tick waits no timer) each connection with
// pending ticks writes ONE `ticks` frame, unless its socket is backed up
// (`writableNeedDrain`): then it keeps only the newest tick of each symbol and writes again on
// 'drain'. A slow browser so costs at most one pending tick per watched symbol, never a
// growing queue. Connections are indexed by symbol, so a batch costs O(watchers of its
// symbols), not O(connections).
//
// The hub also announces this instance's demand (the union of watched symbols) on the bus
// when it changes and every few seconds, so the owners of those symbols' feeds carry them
// (demand.ts), and keeps the last tick of each symbol so that a new subscriber sees a price
// at once.
import { randomBytes, randomUUID } from 'node:crypto';
import type { LiveTick } from '../../shared/schemas/live.ts';
import type { AlertBus } from '../alerts/service.ts';
import { noLiveMetrics, type LiveMetrics } from '../http/metrics.ts';

/** How often the demand is renewed (the owners forget it after demand.ts's DEMAND_TTL_MS). */
const DEMAND_EVERY_MS = 5_000;
/** A change of demand goes out this soon, so many subscriptions changing at once are one message. */
const DEMAND_DEBOUNCE_MS = 50;
/** Last ticks kept for new subscribers: far above the symbol table, a bound against strays. */
const MAX_KNOWN_SYMBOLS = 20_000;

/** The socket a connection writes to (a ServerResponse, or any Writable). */
interface LiveSink {
  readonly writableNeedDrain: boolean;
  readonly destroyed: boolean;
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
}

interface LiveConnection {
  readonly id: string;
  readonly userId: string;
  /** Canonical ids carried now, in the order asked. */
  symbols(): readonly string[];
  /** Carries exactly these from now on; a symbol new to it gets its last tick at once. */
  setSymbols(symbols: readonly string[]): void;
  /** Stops carrying anything (the stream ended). */
  close(): void;
}

interface LiveHubStats {
  connections: number;
  /** Connections whose socket is backed up, waiting for 'drain'. */
  backedUp: number;
  /** Ticks waiting to be written, over all connections (at most one per watched symbol). */
  pendingTicks: number;
}

export interface LiveHub {
  /** This instance's name in demand announcements. */
  readonly instanceId: string;
  open(options: { userId: string; symbols: readonly string[]; sink: LiveSink }): LiveConnection;
  /** The open connection of this id, if any. */
  connection(id: string): LiveConnection | undefined;
  lastTick(symbol: string): LiveTick | undefined;
  /** The union of the symbols the connections carry (this instance's demand), sorted. */
  watched(): string[];
  stats(): LiveHubStats;
  /** Stops listening and withdraws the demand; connections are ended by their streams. */
  close(): Promise<void>;
}

export interface LiveHubOptions {
  bus: Pick<AlertBus, 'subscribeTicks' | 'publishDemand'>;
  metrics?: LiveMetrics;
  instanceId?: string;
  demandEveryMs?: number;
  /** A demand announcement the bus refused (it is renewed anyway). */
  onError?: (error: unknown) => void;
}

/** A tick's JSON, made once per tick however many connections carry it. */
const tickJson = new WeakMap<LiveTick, string>();
function jsonOf(tick: LiveTick): string {
  let json = tickJson.get(tick);
  if (json === undefined) {
    json = JSON.stringify(tick);
    tickJson.set(tick, json);
  }
  return json;
}

interface Watcher {
  readonly id: string;
  readonly userId: string;
  readonly sink: LiveSink;
  symbols: string[];
  /** Symbol -> newest tick not yet written. */
  readonly pending: Map<string, LiveTick>;
  waitingForDrain: boolean;
  closed: boolean;
  readonly onDrain: () => void;
}

export function createLiveHub(options: LiveHubOptions): LiveHub {
  const { bus, metrics = noLiveMetrics, onError = () => undefined } = options;
  const instanceId = options.instanceId ?? randomUUID();
  const byId = new Map<string, Watcher>();
  const bySymbol = new Map<string, Set<Watcher>>();
  const lastTicks = new Map<string, LiveTick>();
  /** Connections with pending ticks, written on the next macrotask. */
  const dirty = new Set<Watcher>();
  let flushScheduled = false;
  let demandTimer: NodeJS.Timeout | null = null;
  let closed = false;

  function flush(watcher: Watcher) {
    if (watcher.closed || watcher.pending.size === 0 || watcher.sink.destroyed) return;
    if (watcher.sink.writableNeedDrain) {
      if (!watcher.waitingForDrain) {
        watcher.waitingForDrain = true;
        watcher.sink.once('drain', watcher.onDrain);
      }
      return;
    }
    let body = '';
    for (const tick of watcher.pending.values()) body += body === '' ? jsonOf(tick) : `,${jsonOf(tick)}`;
    metrics.ticksSent(watcher.pending.size);
    watcher.pending.clear();
    watcher.sink.write(`event: ticks\ndata: [${body}]\n\n`);
  }

  function flushDirty() {
    flushScheduled = false;
    for (const watcher of dirty) flush(watcher);
    dirty.clear();
  }

  function markDirty(watcher: Watcher) {
    dirty.add(watcher);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushDirty);
    }
  }

  /** Queues a tick for a connection, replacing (and counting) an older one still waiting. */
  function offer(watcher: Watcher, tick: LiveTick): number {
    const superseded = watcher.pending.has(tick.symbol) ? 1 : 0;
    watcher.pending.set(tick.symbol, tick);
    // A connection waiting for 'drain' is written by its drain listener.
    if (!watcher.waitingForDrain) markDirty(watcher);
    return superseded;
  }

  const stopTicks = bus.subscribeTicks((ticks) => {
    const now = Date.now();
    let superseded = 0;
    for (const tick of ticks) {
      metrics.tickReceived(tick.source, now - tick.time - tick.delayMinutes * 60_000);
      const known = lastTicks.get(tick.symbol);
      // A late tick (two owners during a shard handover) must not undo a newer price.
      if (known && known.time > tick.time) continue;
      if (!known && lastTicks.size >= MAX_KNOWN_SYMBOLS) {
        const oldest = lastTicks.keys().next();
        if (!oldest.done) lastTicks.delete(oldest.value);
      }
      lastTicks.set(tick.symbol, tick);
      const watchers = bySymbol.get(tick.symbol);
      if (!watchers) continue;
      for (const watcher of watchers) superseded += offer(watcher, tick);
    }
    if (superseded > 0) metrics.ticksSuperseded(superseded);
  });

  function announce() {
    if (demandTimer) clearTimeout(demandTimer);
    demandTimer = null;
    bus.publishDemand(instanceId, [...bySymbol.keys()].sort()).catch(onError);
  }
  function demandChanged() {
    if (closed || demandTimer) return;
    demandTimer = setTimeout(announce, DEMAND_DEBOUNCE_MS);
    demandTimer.unref();
  }
  const renew = setInterval(() => {
    if (bySymbol.size > 0) announce();
  }, options.demandEveryMs ?? DEMAND_EVERY_MS);
  renew.unref();

  function watch(watcher: Watcher, symbol: string) {
    let watchers = bySymbol.get(symbol);
    if (!watchers) {
      watchers = new Set();
      bySymbol.set(symbol, watchers);
      demandChanged();
    }
    watchers.add(watcher);
    const known = lastTicks.get(symbol);
    if (known) offer(watcher, known);
  }

  function unwatch(watcher: Watcher, symbol: string) {
    const watchers = bySymbol.get(symbol);
    watcher.pending.delete(symbol);
    if (!watchers) return;
    watchers.delete(watcher);
    if (watchers.size === 0) {
      bySymbol.delete(symbol);
      demandChanged();
    }
  }

  const connections = new Map<string, LiveConnection>();

  function handle(watcher: Watcher): LiveConnection {
    return {
      id: watcher.id,
      userId: watcher.userId,
      symbols: () => watcher.symbols,
      setSymbols(symbols) {
        if (watcher.closed) return;
        const next = [...new Set(symbols)];
        const keep = new Set(next);
        const had = new Set(watcher.symbols);
        for (const symbol of watcher.symbols) if (!keep.has(symbol)) unwatch(watcher, symbol);
        watcher.symbols = next;
        for (const symbol of next) if (!had.has(symbol)) watch(watcher, symbol);
      },
      close() {
        if (watcher.closed) return;
        watcher.closed = true;
        for (const symbol of watcher.symbols) unwatch(watcher, symbol);
        watcher.pending.clear();
        dirty.delete(watcher);
        if (watcher.waitingForDrain) watcher.sink.removeListener('drain', watcher.onDrain);
        byId.delete(watcher.id);
        connections.delete(watcher.id);
        metrics.connections(-1);
      },
    };
  }

  return {
    instanceId,
    open({ userId, symbols, sink }) {
      const watcher: Watcher = {
        id: randomBytes(18).toString('base64url'),
        userId,
        sink,
        symbols: [],
        pending: new Map(),
        waitingForDrain: false,
        closed: false,
        onDrain: () => {
          watcher.waitingForDrain = false;
          flush(watcher);
        },
      };
      const connection = handle(watcher);
      byId.set(watcher.id, watcher);
      connections.set(watcher.id, connection);
      metrics.connections(1);
      connection.setSymbols(symbols);
      return connection;
    },
    connection: (id) => connections.get(id),
    lastTick: (symbol) => lastTicks.get(symbol),
    watched: () => [...bySymbol.keys()].sort(),
    stats() {
      let backedUp = 0;
      let pendingTicks = 0;
      for (const watcher of byId.values()) {
        if (watcher.waitingForDrain) backedUp += 1;
        pendingTicks += watcher.pending.size;
      }
      return { connections: byId.size, backedUp, pendingTicks };
    },
    async close() {
      if (closed) return;
      closed = true;
      stopTicks();
      clearInterval(renew);
      if (demandTimer) clearTimeout(demandTimer);
      // Withdrawn at once, so the owners need not wait for it to expire.
      await bus.publishDemand(instanceId, []).catch(onError);
    },
  };
}
