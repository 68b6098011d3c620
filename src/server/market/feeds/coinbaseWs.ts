// Crypto ticks from Coinbase Exchange's public WebSocket feed (issue 34, item 1): ONE upstream
// connection (config COINBASE_WS_URL, default wss://ws-feed.exchange.coinbase.com) carrying every
// crypto symbol asked for, on the `ticker` channel (a message per match, batched in cascades:
// price, time, last_size, trade_id, sequence) and the `heartbeat` channel (a message per product
// each second: sequence, last_trade_id). This module owns that connection: subscribe and
// unsubscribe diffs on the open socket, reconnection with exponential backoff and full jitter,
// the silence watchdog, ordering and gap detection, and never crashing on what arrives.
//
// Ordering and gaps. Coinbase's `sequence` is per product and counts every order-book event, so
// on the ticker channel consecutive messages legitimately skip sequences: a jump is NOT a gap.
// It still orders them: a message whose sequence is not above the last one seen for its product
// is old or a duplicate and is dropped (rejected). Missed ticks show in the trade ids instead: a
// heartbeat says the product's last trade id; if a heartbeat's trade is still newer than every
// ticker seen by the next heartbeat (one second of grace for in-flight tickers), a ticker was lost
// and the product gets onGap. Every reconnection reports onGap for all carried symbols, since
// nothing that traded while the connection was down was seen.
import WebSocket from 'ws';
import { SYMBOL_TABLE, type MarketSymbol } from '../../../shared/symbolTable.ts';
// Type-only import of the live path's feed contract (see demoTicks.ts on the boundary rule).
// eslint-disable-next-line boundaries/dependencies
import type { FeedStats, FeedTick, TickFeed } from '../../live/types.ts';
import { listenerSet, messageText, SILENT_FEED_LOG, type FeedLog } from './listeners.ts';

const CHANNELS = ['ticker', 'heartbeat'];

export interface CoinbaseTickFeedOptions {
  /** The feed's URL (config.COINBASE_WS_URL). */
  url: string;
  /** The WebSocket client class (default `ws`'s). */
  WebSocket?: typeof WebSocket;
  /** Stamps lastTickAt (default Date.now). */
  now?: () => number;
  /** Silence (no message at all) longer than this ends the connection (default 5 s: five heartbeats). */
  heartbeatTimeoutMs?: number;
  /** Reconnection delay: uniform in [0, min(cap, base * 2^attempt)] (full jitter). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Opening handshake limit (default 10 s). */
  connectTimeoutMs?: number;
  random?: () => number;
  /** The universe (default the symbol table): only its crypto rows are carried. */
  symbols?: readonly MarketSymbol[];
  log?: FeedLog;
}

interface ProductState {
  /** Highest sequence seen on this connection. */
  sequence: number | null;
  /** Highest trade id a ticker (or the first heartbeat's baseline) covered. */
  tradeId: number | null;
  /** The previous heartbeat's last trade id, checked at the next heartbeat. */
  heartbeatTradeId: number | null;
}

/** Full jitter (uniform in [0, min(cap, base * 2^attempt)]): reconnecting clients spread out. */
export function fullJitterDelay(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  return random() * Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
}

/** Reads a JSON number or numeric string; NaN when it is neither. */
function numeric(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

export function createCoinbaseTickFeed(options: CoinbaseTickFeedOptions): TickFeed {
  const Client = options.WebSocket ?? WebSocket;
  const now = options.now ?? Date.now;
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 5000;
  const backoffBaseMs = options.backoffBaseMs ?? 500;
  const backoffCapMs = options.backoffCapMs ?? 30_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const random = options.random ?? Math.random;
  const log = options.log ?? SILENT_FEED_LOG;
  // Canonical id <-> Coinbase product id (the same for every row of the table today).
  const productOf = new Map<string, string>();
  const idOf = new Map<string, string>();
  for (const row of options.symbols ?? SYMBOL_TABLE) {
    if (row.assetClass !== 'crypto') continue;
    productOf.set(row.id, row.providerSymbol);
    idOf.set(row.providerSymbol, row.id);
  }

  const ticks = listenerSet<FeedTick>(log, 'coinbase tick');
  const gapListeners = listenerSet<readonly string[]>(log, 'coinbase gap');
  const stats: FeedStats = { connected: false, reconnects: 0, gaps: 0, rejected: 0, lastTickAt: null };
  /** Products wanted now, and those subscribed on the open socket. */
  let wanted = new Set<string>();
  let subscribed = new Set<string>();
  let products = new Map<string, ProductState>();
  let socket: WebSocket | null = null;
  let open = false;
  let attempt = 0;
  /** A connection was lost (not closed by us): the next open is a reconnection with a gap. */
  let lost = false;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let watchdog: NodeJS.Timeout | null = null;
  let lastMessageAt = 0;

  function reportGap(ids: string[]): void {
    if (ids.length === 0) return;
    stats.gaps += 1;
    gapListeners.emit(ids);
  }

  function send(type: 'subscribe' | 'unsubscribe', productIds: string[]): void {
    if (productIds.length === 0 || !socket || !open) return;
    socket.send(JSON.stringify({ type, product_ids: productIds, channels: CHANNELS }));
  }

  /** Brings the open socket's subscriptions to `wanted`: one subscribe and one unsubscribe at most. */
  function syncSubscriptions(): void {
    if (!open) return;
    const add = [...wanted].filter((product) => !subscribed.has(product));
    const remove = [...subscribed].filter((product) => !wanted.has(product));
    send('unsubscribe', remove);
    send('subscribe', add);
    for (const product of remove) products.delete(product);
    subscribed = new Set(wanted);
  }

  function checkSilence(): void {
    watchdog = null;
    if (!socket || !open) return;
    const silentFor = performance.now() - lastMessageAt;
    if (silentFor < heartbeatTimeoutMs) {
      watchdog = setTimeout(checkSilence, heartbeatTimeoutMs - silentFor);
      return;
    }
    log.warn({ silentMs: Math.round(silentFor) }, 'Coinbase feed silent past the heartbeat timeout: reconnecting');
    // terminate: a silent peer would never answer a closing handshake; 'close' reconnects.
    socket.terminate();
  }

  function scheduleReconnect(): void {
    if (closed || wanted.size === 0 || reconnectTimer) return;
    const delay = fullJitterDelay(attempt, backoffBaseMs, backoffCapMs, random);
    attempt += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
  }

  function connect(): void {
    if (closed || socket || wanted.size === 0) return;
    let client: WebSocket;
    try {
      client = new Client(options.url, { handshakeTimeout: connectTimeoutMs });
    } catch (error) {
      log.warn({ err: error }, 'Coinbase feed could not connect');
      scheduleReconnect();
      return;
    }
    socket = client;
    client.on('open', () => {
      if (client !== socket) return;
      open = true;
      stats.connected = true;
      subscribed = new Set();
      products = new Map();
      if (lost) {
        stats.reconnects += 1;
        lost = false;
        reportGap([...wanted].map((product) => idOf.get(product)!));
      }
      syncSubscriptions();
      lastMessageAt = performance.now();
      checkSilence();
    });
    client.on('message', (data: WebSocket.RawData) => {
      if (client !== socket) return;
      lastMessageAt = performance.now();
      handle(messageText(data));
    });
    client.on('error', (error: Error) => {
      log.warn({ err: error }, 'Coinbase feed connection failed');
    });
    client.on('close', () => {
      if (client !== socket) return;
      socket = null;
      open = false;
      stats.connected = false;
      subscribed = new Set();
      if (watchdog) clearTimeout(watchdog);
      watchdog = null;
      if (closed || wanted.size === 0) return;
      lost = true;
      scheduleReconnect();
    });
  }

  function reject(reason: string, detail?: object): void {
    stats.rejected += 1;
    // At debug volume a flood of garbage would flood the log too: the counter is the signal.
    if (stats.rejected <= 10 || stats.rejected % 1000 === 0) log.warn({ ...detail, rejected: stats.rejected }, reason);
  }

  function handle(text: string): void {
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return reject('Coinbase sent a non-object');
      message = parsed as Record<string, unknown>;
    } catch {
      return reject('Coinbase sent malformed JSON');
    }
    const type = message.type;
    if (type === 'error') {
      log.warn({ message: message.message, reason: message.reason }, 'Coinbase feed error');
      return;
    }
    if (type === 'subscriptions') {
      // The connection works: the next failure starts its backoff from the bottom again.
      attempt = 0;
      return;
    }
    // New message types may appear at any time; Coinbase asks clients to ignore them.
    if (type !== 'ticker' && type !== 'heartbeat') return;
    const product = message.product_id;
    const id = typeof product === 'string' && subscribed.has(product) ? idOf.get(product) : undefined;
    if (id === undefined || typeof product !== 'string') return reject('Coinbase sent an unknown product', { product });
    const sequence = numeric(message.sequence);
    if (!Number.isSafeInteger(sequence)) return reject('Coinbase sent no sequence', { product });
    let state = products.get(product);
    if (!state) {
      state = { sequence: null, tradeId: null, heartbeatTradeId: null };
      products.set(product, state);
    }
    if (state.sequence !== null && sequence <= state.sequence) {
      return reject('Coinbase sent an old or repeated message', { product, sequence, last: state.sequence });
    }
    if (type === 'heartbeat') {
      state.sequence = sequence;
      const lastTradeId = numeric(message.last_trade_id);
      if (!Number.isSafeInteger(lastTradeId)) return;
      // The first heartbeat is the baseline: trades before we subscribed were not ours to see.
      if (state.tradeId === null) state.tradeId = lastTradeId;
      if (state.heartbeatTradeId !== null && state.heartbeatTradeId > state.tradeId) {
        log.warn({ product, missedThrough: state.heartbeatTradeId, seen: state.tradeId }, 'Coinbase ticker missed');
        state.tradeId = state.heartbeatTradeId;
        reportGap([id]);
      }
      state.heartbeatTradeId = lastTradeId;
      return;
    }
    const price = numeric(message.price);
    const time = typeof message.time === 'string' ? Date.parse(message.time) : Number.NaN;
    if (!(price > 0) || !Number.isFinite(price) || !Number.isFinite(time)) {
      return reject('Coinbase sent a ticker without a valid price or time', { product });
    }
    state.sequence = sequence;
    const tradeId = numeric(message.trade_id);
    if (Number.isSafeInteger(tradeId) && (state.tradeId === null || tradeId > state.tradeId)) state.tradeId = tradeId;
    const size = numeric(message.last_size);
    stats.lastTickAt = now();
    attempt = 0;
    ticks.emit({
      symbol: id,
      price,
      time,
      size: Number.isFinite(size) && size > 0 ? size : 0,
      source: 'coinbase',
      delayMinutes: 0,
    });
  }

  return {
    name: 'coinbase',
    setSymbols(symbols) {
      if (closed) return;
      const next = new Set<string>();
      for (const id of symbols) {
        const product = productOf.get(id);
        if (product) next.add(product);
      }
      wanted = next;
      if (wanted.size === 0) {
        // Nothing to carry: Coinbase drops a connection without subscriptions anyway.
        if (reconnectTimer) clearTimeout(reconnectTimer);
        if (watchdog) clearTimeout(watchdog);
        reconnectTimer = null;
        watchdog = null;
        lost = false;
        // Forgotten before it closes, so its 'close' neither reconnects nor touches the next socket.
        const client = socket;
        socket = null;
        open = false;
        stats.connected = false;
        client?.close();
        return;
      }
      if (socket) syncSubscriptions();
      else if (!reconnectTimer) connect();
    },
    onTick: ticks.add,
    onGap: gapListeners.add,
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      if (watchdog) clearTimeout(watchdog);
      reconnectTimer = null;
      watchdog = null;
      ticks.clear();
      gapListeners.clear();
      const client = socket;
      if (!client) return;
      await new Promise<void>((resolve) => {
        client.once('close', () => resolve());
        client.terminate();
      });
      stats.connected = false;
    },
  };
}
