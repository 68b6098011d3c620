// Crypto ticks from Coinbase Exchange's public WebSocket feed (issue 34, item 1): ONE upstream
// connection (config COINBASE_WS_URL, default wss://ws-feed.exchange.coinbase.com) carrying every
// crypto symbol asked for, on the `ticker` channel (a message per match, batched in cascades:
// price, time, last_size, trade_id, sequence) and the `heartbeat` channel (a message per product
// each second: sequence, last_trade_id). This module owns the protocol: subscribe and unsubscribe
// diffs on the open connection, resubscription and a gap for every carried symbol after a
// reconnection, ordering and gap detection, and never crashing on what arrives. The connection
// discipline (backoff with full jitter, the silence watchdog: 5 s, five missed heartbeats) is
// reconnectingSocket.ts's.
//
// Ordering and gaps. Coinbase's `sequence` is per product and counts every order-book event, so
// on the ticker channel consecutive messages legitimately skip sequences: a jump is NOT a gap.
// It still orders them: a message whose sequence is not above the last one seen for its product
// is old or a duplicate and is dropped (rejected). Missed ticks show in the trade ids instead: a
// heartbeat says the product's last trade id; if a heartbeat's trade is still newer than every
// ticker seen by the next heartbeat (one second of grace for in-flight tickers), a ticker was lost
// and the product gets onGap. Every reconnection reports onGap for all carried symbols, since
// nothing that traded while the connection was down was seen.
import type WebSocket from 'ws';
import { SYMBOL_TABLE, type MarketSymbol } from '../../../shared/symbolTable.ts';
import type { FeedStats, FeedTick, TickFeed } from './types.ts';
import { listenerSet, SILENT_FEED_LOG, type FeedLog } from './listeners.ts';
import { createReconnectingSocket } from './reconnectingSocket.ts';

export { fullJitterDelay } from './reconnectingSocket.ts';

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
  /** Reconnection delay: uniform in [0, min(cap, base * 2^attempt)] (full jitter); defaults 500 ms, 30 s. */
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

/** Reads a JSON number or numeric string; NaN when it is neither. */
function numeric(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

export function createCoinbaseTickFeed(options: CoinbaseTickFeedOptions): TickFeed {
  const now = options.now ?? Date.now;
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
  /** Products wanted now, and those subscribed on the open connection. */
  let wanted = new Set<string>();
  let subscribed = new Set<string>();
  let products = new Map<string, ProductState>();

  function reportGap(ids: string[]): void {
    if (ids.length === 0) return;
    stats.gaps += 1;
    gapListeners.emit(ids);
  }

  /** Brings the open connection's subscriptions to `wanted`: one unsubscribe and one subscribe at most. */
  function syncSubscriptions(): void {
    if (!upstream.isOpen()) return;
    const add = [...wanted].filter((product) => !subscribed.has(product));
    const remove = [...subscribed].filter((product) => !wanted.has(product));
    if (remove.length > 0) upstream.send({ type: 'unsubscribe', product_ids: remove, channels: CHANNELS });
    if (add.length > 0) upstream.send({ type: 'subscribe', product_ids: add, channels: CHANNELS });
    for (const product of remove) products.delete(product);
    subscribed = new Set(wanted);
  }

  const upstream = createReconnectingSocket({
    url: options.url,
    name: 'coinbase',
    WebSocket: options.WebSocket,
    silenceMs: options.heartbeatTimeoutMs ?? 5000,
    backoffBaseMs: options.backoffBaseMs ?? 500,
    backoffCapMs: options.backoffCapMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    random: options.random ?? Math.random,
    log,
    onOpen(afterLoss) {
      stats.connected = true;
      // Sequences are per connection as far as we are concerned: start afresh.
      subscribed = new Set();
      products = new Map();
      if (afterLoss) {
        stats.reconnects += 1;
        reportGap([...wanted].map((product) => idOf.get(product)!));
      }
      syncSubscriptions();
    },
    onText: handle,
    onDown() {
      stats.connected = false;
      subscribed = new Set();
    },
  });

  function reject(reason: string, detail?: object): void {
    stats.rejected += 1;
    // A flood of garbage must not flood the log too: the counter is the signal.
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
    // The connection works: the next failure starts its backoff from the bottom again.
    if (type === 'subscriptions') return upstream.succeeded();
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
    upstream.succeeded();
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
      const next = new Set<string>();
      for (const id of symbols) {
        const product = productOf.get(id);
        if (product) next.add(product);
      }
      wanted = next;
      // Nothing to carry: no connection (Coinbase drops one without subscriptions anyway).
      upstream.setActive(wanted.size > 0);
      syncSubscriptions();
    },
    onTick: ticks.add,
    onGap: gapListeners.add,
    stats: () => ({ ...stats }),
    async close() {
      ticks.clear();
      gapListeners.clear();
      await upstream.close();
      stats.connected = false;
    },
  };
}
