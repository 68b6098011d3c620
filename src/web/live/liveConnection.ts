// The one live connection of a dashboard tab (issue 34, item 2), without React: one EventSource
// on GET /api/live carrying the ticks of the symbols on screen, the market's alerts and this
// trader's rule firings (src/shared/schemas/live.ts). Components register the symbols they show
// (reference-counted); the union goes to the server with PUT /api/live/subscriptions, debounced,
// on the open connection (no reconnect). Ticks are kept per symbol in a store that components
// read with useSyncExternalStore, each listening to its own symbol only, so a tick re-renders the
// rows that show it and nothing else.
//
// Reconnects are the browser's: EventSource reopens by itself with Last-Event-ID (the server
// replays the alerts and firings missed) after the `retry` the server asked for (a minute when it
// ended the stream for too many tabs). It reopens the URL it was made with, so each `hello`
// compares the set the server carries with the one wanted now and sends the difference.
import type { z } from 'zod';
import type { LiveAlert } from '../../shared/schemas/alerts.ts';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';
import type { LiveState, LiveTick } from '../../shared/schemas/live.ts';
import { liveStateOf } from '../../shared/live.ts';
import { resolveSymbol } from '../../shared/symbols.ts';
import { apiSend } from '../api/http.ts';

/** The modules with the wire schemas, imported once, before the connection opens (zod stays off the first paint). */
export interface LiveSchemas {
  live: typeof import('../../shared/schemas/live.ts');
  alerts: typeof import('../../shared/schemas/alerts.ts');
  rules: typeof import('../../shared/schemas/alertRules.ts');
}

async function loadLiveSchemas(): Promise<LiveSchemas> {
  const [live, alerts, rules] = await Promise.all([
    import('../../shared/schemas/live.ts'),
    import('../../shared/schemas/alerts.ts'),
    import('../../shared/schemas/alertRules.ts'),
  ]);
  return { live, alerts, rules };
}

/** The newest tick of a symbol and how it arrived. */
export interface TickEntry {
  tick: LiveTick;
  /** When it reached this tab (epoch ms): staleness is judged from here, not the provider's stamp. */
  receivedAt: number;
  /** The price shown before it, for the flash's direction (null for the first tick). */
  previousPrice: number | null;
}

/** connecting: opening or reopening; open: the server said hello; closed: ended for good (access ended, or unmounted). */
export type LiveStatus = 'connecting' | 'open' | 'closed';

/** Why the server ended a stream for good: the auth state must be re-read (the guard then shows login or plans). */
const ACCESS_ENDED = new Set(['signed-out', 'subscription-ended']);

/** How long registrations settle before the new set is sent: a list mounting row by row sends one PUT. */
const SUBSCRIBE_DEBOUNCE_MS = 100;
/** How often the states are re-judged (a silent symbol turns Stale within this of STALE_AFTER_MS). */
const STATE_CLOCK_MS = 1000;

type Listener<T> = (value: T) => void;

export interface LiveConnectionOptions {
  /** Called once when the server ended the stream because the session or subscription ended. */
  onAccessEnded?: () => void;
  /** The schemas (tests may pass them; the dashboard imports them on demand). */
  schemas?: () => Promise<LiveSchemas>;
}

function parseData(event: Event): unknown {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as unknown;
  } catch {
    return undefined;
  }
}

/** The canonical id a live symbol goes by (BTC for BTC-USD, NASDAQ:AAPL for AAPL), or null for one the table does not know. */
export function liveSymbolId(symbol: string): string | null {
  return resolveSymbol(symbol)?.id ?? null;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((entry) => set.has(entry));
}

export class LiveConnection {
  private readonly options: LiveConnectionOptions;
  private schemas: LiveSchemas | null = null;
  private source: EventSource | null = null;
  private stopped = false;
  /** Counts start() calls: a start whose schemas arrive after a later start (React's StrictMode remount) opens nothing. */
  private generation = 0;
  private connectionId: string | null = null;
  /** The symbols the server carries for this connection (from hello or the last PUT's answer). */
  private carried: string[] = [];
  private statusValue: LiveStatus = 'connecting';

  /** Registered symbols (canonical ids) with their counts and when each was first put on screen. */
  private readonly wanted = new Map<string, { count: number; since: number }>();
  private syncTimer: ReturnType<typeof setTimeout> | null = null;
  private syncing = false;
  private syncAgain = false;

  private readonly ticks = new Map<string, TickEntry>();
  private readonly tickListeners = new Map<string, Set<() => void>>();
  private readonly statusListeners = new Set<() => void>();
  private readonly alertListeners = new Set<Listener<LiveAlert>>();
  private readonly firingListeners = new Set<Listener<RuleFiring>>();
  private readonly clockListeners = new Set<() => void>();
  private clock: ReturnType<typeof setInterval> | null = null;

  constructor(options: LiveConnectionOptions = {}) {
    this.options = options;
  }

  /** Loads the schemas and opens the stream with the symbols registered by then. */
  async start(): Promise<void> {
    if (typeof EventSource === 'undefined') return;
    const run = ++this.generation;
    this.stopped = false;
    try {
      this.schemas = await (this.options.schemas ?? loadLiveSchemas)();
    } catch (error) {
      // The chunk could not be fetched (offline, a new deploy): the screen keeps its polling.
      console.error('Live connection: the event schemas could not be loaded', error);
      return;
    }
    if (this.stopped || run !== this.generation) return;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = null;
    this.connectionId = null;
    this.carried = [];
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    this.setStatus('closed');
  }

  get status(): LiveStatus {
    return this.statusValue;
  }

  /** The symbols wanted now, in registration order, at most LIVE_SYMBOLS_MAX. */
  wantedSymbols(): string[] {
    const all = [...this.wanted.keys()];
    return this.schemas ? all.slice(0, this.schemas.live.LIVE_SYMBOLS_MAX) : all;
  }

  /** Puts symbols on screen; returns the function that takes them off. Unknown symbols are ignored. */
  register(symbols: readonly string[]): () => void {
    const ids = [...new Set(symbols.map(liveSymbolId).filter((id): id is string => id !== null))];
    let changed = false;
    for (const id of ids) {
      const entry = this.wanted.get(id);
      if (entry) entry.count += 1;
      else {
        this.wanted.set(id, { count: 1, since: Date.now() });
        changed = true;
      }
    }
    if (changed) this.scheduleSync();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      let dropped = false;
      for (const id of ids) {
        const entry = this.wanted.get(id);
        if (!entry) continue;
        entry.count -= 1;
        if (entry.count > 0) continue;
        this.wanted.delete(id);
        // Its next tick starts afresh (no stale flash from a price seen minutes ago).
        this.ticks.delete(id);
        dropped = true;
      }
      if (dropped) this.scheduleSync();
    };
  }

  tick(id: string): TickEntry | undefined {
    return this.ticks.get(id);
  }

  subscribeTick(id: string, listener: () => void): () => void {
    let listeners = this.tickListeners.get(id);
    if (!listeners) this.tickListeners.set(id, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.tickListeners.delete(id);
    };
  }

  /** Listens to one symbol's ticks and to the state clock (a silent symbol turning Stale). */
  subscribeState(id: string, listener: () => void): () => void {
    const unsubscribeTick = this.subscribeTick(id, listener);
    this.clockListeners.add(listener);
    this.clock ??= setInterval(() => {
      for (const each of [...this.clockListeners]) each();
    }, STATE_CLOCK_MS);
    return () => {
      unsubscribeTick();
      this.clockListeners.delete(listener);
      if (this.clockListeners.size === 0 && this.clock) {
        clearInterval(this.clock);
        this.clock = null;
      }
    };
  }

  /**
   * The state of a registered symbol now: null before its first tick (until it has been silent
   * STALE_AFTER_MS), for a symbol the table does not know, and before the schemas arrived.
   * Judged to the second, so that a snapshot read twice in one render agrees.
   */
  state(id: string): LiveState | null {
    const market = resolveSymbol(id);
    const registered = this.wanted.get(id);
    if (!market || !registered || !this.schemas || this.statusValue === 'closed') return null;
    const entry = this.ticks.get(id);
    return liveStateOf({
      tick: entry?.tick ?? null,
      since: entry?.receivedAt ?? registered.since,
      now: Math.floor(Date.now() / 1000) * 1000,
      calendar: market.calendar,
      staleAfterMs: this.schemas.live.STALE_AFTER_MS,
    });
  }

  subscribeStatus(listener: () => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onAlert(listener: Listener<LiveAlert>): () => void {
    this.alertListeners.add(listener);
    return () => this.alertListeners.delete(listener);
  }

  onRuleFiring(listener: Listener<RuleFiring>): () => void {
    this.firingListeners.add(listener);
    return () => this.firingListeners.delete(listener);
  }

  private setStatus(status: LiveStatus) {
    if (this.statusValue === status) return;
    this.statusValue = status;
    for (const listener of [...this.statusListeners]) listener();
  }

  private open() {
    const symbols = this.wantedSymbols();
    const query = symbols.length > 0 ? `?${new URLSearchParams({ symbols: symbols.join(',') }).toString()}` : '';
    const source = new EventSource(`/api/live${query}`);
    this.source = source;
    this.setStatus('connecting');
    source.addEventListener('hello', (event) => this.onHello(event));
    source.addEventListener('ticks', (event) => this.onTicks(event));
    source.addEventListener('alert', (event) => this.onAlertEvent(event));
    source.addEventListener('rule', (event) => this.onRuleEvent(event));
    source.addEventListener('end', (event) => this.onEnd(event));
    // The browser is reconnecting (or gave up): subscription changes wait for the next hello.
    source.addEventListener('error', () => {
      if (this.stopped) return;
      this.connectionId = null;
      this.setStatus(source.readyState === 2 ? 'closed' : 'connecting');
    });
  }

  private parse<S extends z.ZodType>(schema: S, event: Event, what: string): z.output<S> | undefined {
    const parsed = schema.safeParse(parseData(event));
    if (parsed.success) return parsed.data;
    console.warn(`Live connection: an unreadable ${what} event was ignored`, parsed.error.issues);
    return undefined;
  }

  private onHello(event: Event) {
    const hello = this.parse(this.schemas!.live.liveHello, event, 'hello');
    if (!hello) return;
    this.connectionId = hello.connection;
    this.carried = hello.symbols;
    this.setStatus('open');
    // A reconnect reopened the first URL: send what is on screen now, if it differs.
    if (!sameSet(this.carried, this.wantedSymbols())) this.scheduleSync();
  }

  private onTicks(event: Event) {
    const ticks = this.parse(this.schemas!.live.liveTick.array(), event, 'ticks');
    if (!ticks) return;
    const receivedAt = Date.now();
    for (const tick of ticks) {
      // Only what is on screen: a tick sent before an unsubscription took effect is dropped.
      if (!this.wanted.has(tick.symbol)) continue;
      const previous = this.ticks.get(tick.symbol);
      if (previous && tick.time < previous.tick.time) continue;
      this.ticks.set(tick.symbol, { tick, receivedAt, previousPrice: previous?.tick.price ?? null });
      for (const listener of [...(this.tickListeners.get(tick.symbol) ?? [])]) listener();
    }
  }

  private onAlertEvent(event: Event) {
    const alert = this.parse(this.schemas!.alerts.liveAlert, event, 'alert');
    if (!alert) return;
    for (const listener of [...this.alertListeners]) listener(alert);
  }

  private onRuleEvent(event: Event) {
    const firing = this.parse(this.schemas!.rules.ruleFiring, event, 'rule');
    if (!firing) return;
    for (const listener of [...this.firingListeners]) listener(firing);
  }

  private onEnd(event: Event) {
    const reason = this.parse(this.schemas!.alerts.alertStreamEnd, event, 'end')?.reason;
    this.connectionId = null;
    if (reason && ACCESS_ENDED.has(reason)) {
      this.stop();
      this.options.onAccessEnded?.();
      return;
    }
    // Too many tabs, a restart: the browser reopens after the server's retry (a minute for too many).
    this.setStatus('connecting');
  }

  private scheduleSync() {
    if (this.stopped) return;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      void this.sync();
    }, SUBSCRIBE_DEBOUNCE_MS);
  }

  /** Sends the wanted set on the open connection; one request at a time, the newest set last. */
  private async sync(): Promise<void> {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    const connection = this.connectionId;
    const symbols = this.wantedSymbols();
    if (!connection || !this.schemas || sameSet(this.carried, symbols)) return;
    this.syncing = true;
    try {
      const answer = await apiSend('PUT', '/api/live/subscriptions', this.schemas.live.liveSubscriptionsResponse, {
        connection,
        symbols,
      });
      if (this.connectionId === connection) this.carried = answer.symbols;
    } catch (error) {
      // The connection ended meanwhile (its hello will send the set again), or the server refused
      // it: the screen keeps its polled prices.
      console.warn('Live connection: the subscription change was not applied', error);
    } finally {
      this.syncing = false;
      if (this.syncAgain) {
        this.syncAgain = false;
        void this.sync();
      }
    }
  }
}
