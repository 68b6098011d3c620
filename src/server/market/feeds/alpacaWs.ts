// US-stock and ETF trades from Alpaca's market-data WebSocket (issue 34, item 1: a licensed
// streaming provider, used only when a key is configured; Yahoo stays the keyless default). One
// connection (Alpaca allows one per feed and key) to wss://stream.data.alpaca.markets/v2/iex (the
// free IEX feed; /v2/sip for the consolidated tape), speaking Alpaca's v2 protocol: every server
// message is a JSON array of objects tagged `T`: `success` (msg `connected`, then
// `authenticated`), `error` (code and msg: 402 auth failed, 406 connection limit exceeded, 405
// symbol limit exceeded...), `subscription` (the current lists) and `t`, a trade (S symbol,
// p price, s size, t RFC 3339 time with nanoseconds, i trade id). We answer `connected` with
// {action:'auth', key, secret}, `authenticated` with {action:'subscribe', trades:[...]}, and send
// subscribe and unsubscribe diffs while open. This module owns that protocol; the connection
// discipline is reconnectingSocket.ts's. Alpaca sends nothing while no carried stock trades (nights,
// weekends), so liveness is a WebSocket ping every 10 s whose pong must come back. Trades carry no
// sequence: a reconnection is the only gap we can see, reported for every carried symbol. A trade
// stamped before the symbol's newest one (a late report) is dropped, so the last price never steps
// back. Symbols: the table's stock and ETF ids are Alpaca's (BRK.B as Alpaca writes it).
import type WebSocket from 'ws';
import { SYMBOL_TABLE, type MarketSymbol } from '../../../shared/symbolTable.ts';
import type { FeedStats, FeedTick, TickFeed } from './types.ts';
import { listenerSet, SILENT_FEED_LOG, type FeedLog } from './listeners.ts';
import { createReconnectingSocket } from './reconnectingSocket.ts';

const ALPACA_IEX_URL = 'wss://stream.data.alpaca.markets/v2/iex';

export interface AlpacaTickFeedOptions {
  /** Default the IEX feed. */
  url?: string;
  key: string;
  secret: string;
  WebSocket?: typeof WebSocket;
  now?: () => number;
  /** WebSocket ping interval (default 10 s); no message nor pong for silenceMs (default 25 s) reconnects. */
  pingMs?: number;
  silenceMs?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  connectTimeoutMs?: number;
  random?: () => number;
  /** The universe (default the symbol table): only its stock and ETF rows are carried. */
  symbols?: readonly MarketSymbol[];
  log?: FeedLog;
}

export function createAlpacaTickFeed(options: AlpacaTickFeedOptions): TickFeed {
  const now = options.now ?? Date.now;
  const log = options.log ?? SILENT_FEED_LOG;
  const carriable = new Set(
    (options.symbols ?? SYMBOL_TABLE)
      .filter((row) => row.assetClass === 'stock' || row.assetClass === 'etf')
      .map((row) => row.id),
  );
  const ticks = listenerSet<FeedTick>(log, 'alpaca tick');
  const gapListeners = listenerSet<readonly string[]>(log, 'alpaca gap');
  const stats: FeedStats = { connected: false, reconnects: 0, gaps: 0, rejected: 0, lastTickAt: null };
  let wanted = new Set<string>();
  let subscribed = new Set<string>();
  let authenticated = false;
  /** Newest trade time per symbol, to drop late reports. */
  const newest = new Map<string, number>();
  /** The open connection replaced a lost one: report the gap once it is authenticated and subscribed. */
  let gapPending = false;

  function syncSubscriptions(): void {
    if (!authenticated) return;
    const add = [...wanted].filter((symbol) => !subscribed.has(symbol));
    const remove = [...subscribed].filter((symbol) => !wanted.has(symbol));
    if (remove.length > 0) upstream.send({ action: 'unsubscribe', trades: remove });
    if (add.length > 0) upstream.send({ action: 'subscribe', trades: add });
    for (const symbol of remove) newest.delete(symbol);
    subscribed = new Set(wanted);
  }

  const upstream = createReconnectingSocket({
    url: options.url ?? ALPACA_IEX_URL,
    name: 'alpaca',
    WebSocket: options.WebSocket,
    silenceMs: options.silenceMs ?? 25_000,
    pingMs: options.pingMs ?? 10_000,
    backoffBaseMs: options.backoffBaseMs ?? 500,
    backoffCapMs: options.backoffCapMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    random: options.random ?? Math.random,
    log,
    onOpen(afterLoss) {
      authenticated = false;
      subscribed = new Set();
      if (afterLoss) {
        stats.reconnects += 1;
        gapPending = true;
      }
    },
    onText: handle,
    onDown() {
      authenticated = false;
      stats.connected = false;
      subscribed = new Set();
    },
  });

  function reject(reason: string, detail?: object): void {
    stats.rejected += 1;
    if (stats.rejected <= 10 || stats.rejected % 1000 === 0) log.warn({ ...detail, rejected: stats.rejected }, reason);
  }

  function control(message: Record<string, unknown>): void {
    if (message.T === 'error') {
      log.warn({ code: message.code, msg: message.msg }, 'Alpaca stream error');
      return;
    }
    if (message.T === 'subscription') {
      upstream.succeeded();
      return;
    }
    if (message.T !== 'success') return;
    if (message.msg === 'connected') {
      upstream.send({ action: 'auth', key: options.key, secret: options.secret });
    } else if (message.msg === 'authenticated') {
      authenticated = true;
      stats.connected = true;
      syncSubscriptions();
      if (gapPending) {
        gapPending = false;
        stats.gaps += 1;
        gapListeners.emit([...wanted]);
      }
    }
  }

  function trade(message: Record<string, unknown>): void {
    const symbol = message.S;
    if (typeof symbol !== 'string' || !subscribed.has(symbol))
      return reject('Alpaca sent an unknown symbol', { symbol });
    const price = message.p;
    const time = typeof message.t === 'string' ? Date.parse(message.t) : Number.NaN;
    if (typeof price !== 'number' || !(price > 0) || !Number.isFinite(price) || !Number.isFinite(time)) {
      return reject('Alpaca sent a trade without a valid price or time', { symbol });
    }
    const previous = newest.get(symbol);
    if (previous !== undefined && time < previous) return reject('Alpaca sent a trade older than the last', { symbol });
    newest.set(symbol, time);
    const size = typeof message.s === 'number' && Number.isFinite(message.s) && message.s > 0 ? message.s : 0;
    stats.lastTickAt = now();
    upstream.succeeded();
    ticks.emit({ symbol, price, time, size, source: 'alpaca', delayMinutes: 0 });
  }

  function handle(text: string): void {
    let batch: unknown;
    try {
      batch = JSON.parse(text);
    } catch {
      return reject('Alpaca sent malformed JSON');
    }
    if (!Array.isArray(batch)) return reject('Alpaca sent a non-array');
    for (const entry of batch as unknown[]) {
      if (typeof entry !== 'object' || entry === null) {
        reject('Alpaca sent a non-object');
        continue;
      }
      const message = entry as Record<string, unknown>;
      // Quotes, bars and whatever else appears are not ours to read.
      if (message.T === 't') trade(message);
      else control(message);
    }
  }

  return {
    name: 'alpaca',
    setSymbols(symbols) {
      wanted = new Set(symbols.filter((symbol) => carriable.has(symbol)));
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
