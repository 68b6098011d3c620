// A local fake of Coinbase Exchange's public WebSocket feed (wss://ws-feed.exchange.coinbase.com)
// on 127.0.0.1, for tests and fault journeys only (the fakeYahoo pattern): `ws`'s own server
// speaking the documented message shapes. It answers subscribe and unsubscribe with a
// `subscriptions` message (or an `error` for a product it does not list), sends a `heartbeat`
// per subscribed product on a timer, and lets a test send tickers, garbage, drop every
// connection or fall silent.
import { WebSocketServer, type WebSocket } from 'ws';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { messageText } from '../market/feeds/listeners.ts';

const CHANNELS = ['ticker', 'heartbeat'] as const;

interface FakeTicker {
  price: number | string;
  sequence: number;
  /** Default now. */
  time?: string;
  size?: number;
  tradeId?: number;
}

interface Connection {
  socket: WebSocket;
  products: Set<string>;
  /** Per product: sequence and last trade id the heartbeats report. */
  sequences: Map<string, number>;
  lastTrades: Map<string, number>;
}

export interface FakeCoinbaseWs {
  url: string;
  /** Connections accepted so far (open or not). */
  connectionCount(): number;
  /** Connections open now. */
  openCount(): number;
  /** Every message clients sent, parsed, oldest first, with the connection's number (1-based). */
  received(): Array<{ connection: number; message: Record<string, unknown> }>;
  /** Products the newest open connection is subscribed to, sorted. */
  subscribed(): string[];
  /** Products each open connection is subscribed to, sorted (oldest connection first). */
  subscribedPerConnection(): string[][];
  /** A ticker to every open connection subscribed to the product (raw JSON otherwise). */
  ticker(product: string, ticker: FakeTicker): void;
  /** Sends this text as is to every open connection. */
  raw(text: string): void;
  /** A heartbeat for the product with this last trade id (and the next sequence). */
  heartbeat(product: string, lastTradeId: number): void;
  /** Stops (true) or resumes the automatic heartbeats: a connection that stays open but silent. */
  silence(silent: boolean): void;
  /** Closes every connection at the TCP level, as a network failure does. */
  dropAll(): void;
  close(): Promise<void>;
}

const PRODUCTS = new Set(SYMBOL_TABLE.filter((row) => row.assetClass === 'crypto').map((row) => row.providerSymbol));

export async function startFakeCoinbaseWs(options: { heartbeatMs?: number } = {}): Promise<FakeCoinbaseWs> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake is not listening on a port');
  const connections: Connection[] = [];
  const log: Array<{ connection: number; message: Record<string, unknown> }> = [];
  let silent = false;

  const send = (connection: Connection, message: unknown) => {
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(JSON.stringify(message));
  };

  server.on('connection', (socket) => {
    const connection: Connection = { socket, products: new Set(), sequences: new Map(), lastTrades: new Map() };
    connections.push(connection);
    const number = connections.length;
    socket.on('message', (data) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(messageText(data)) as Record<string, unknown>;
      } catch {
        send(connection, { type: 'error', message: 'Malformed JSON' });
        return;
      }
      log.push({ connection: number, message });
      const products = Array.isArray(message.product_ids) ? (message.product_ids as unknown[]).map(String) : [];
      const unknown = products.filter((product) => !PRODUCTS.has(product));
      if (unknown.length > 0) {
        send(connection, {
          type: 'error',
          message: 'Failed to subscribe',
          reason: `${unknown[0]} is not a valid product`,
        });
        return;
      }
      if (message.type === 'subscribe') for (const product of products) connection.products.add(product);
      else if (message.type === 'unsubscribe') for (const product of products) connection.products.delete(product);
      else return send(connection, { type: 'error', message: `Unknown type ${String(message.type)}` });
      const ids = [...connection.products];
      send(connection, { type: 'subscriptions', channels: CHANNELS.map((name) => ({ name, product_ids: ids })) });
    });
  });

  const timer = setInterval(() => {
    if (silent) return;
    for (const connection of connections) {
      for (const product of connection.products) {
        const sequence = (connection.sequences.get(product) ?? 0) + 1;
        connection.sequences.set(product, sequence);
        send(connection, {
          type: 'heartbeat',
          sequence,
          last_trade_id: connection.lastTrades.get(product) ?? 1,
          product_id: product,
          time: new Date().toISOString(),
        });
      }
    }
  }, options.heartbeatMs ?? 50);

  const open = () => connections.filter((connection) => connection.socket.readyState === connection.socket.OPEN);

  return {
    url: `ws://127.0.0.1:${address.port}`,
    connectionCount: () => connections.length,
    openCount: () => open().length,
    received: () => [...log],
    subscribed: () => [...(open().at(-1)?.products ?? [])].sort(),
    subscribedPerConnection: () => open().map((connection) => [...connection.products].sort()),
    ticker(product, ticker) {
      for (const connection of open()) {
        if (!connection.products.has(product)) continue;
        // Later heartbeats carry this sequence on (Coinbase's sequence is per product).
        connection.sequences.set(product, Math.max(connection.sequences.get(product) ?? 0, ticker.sequence));
        connection.lastTrades.set(product, ticker.tradeId ?? ticker.sequence);
        send(connection, {
          type: 'ticker',
          sequence: ticker.sequence,
          product_id: product,
          price: String(ticker.price),
          open_24h: '1',
          volume_24h: '1000.0',
          low_24h: '1',
          high_24h: '2',
          volume_30d: '30000.0',
          best_bid: String(ticker.price),
          best_ask: String(ticker.price),
          side: 'buy',
          time: ticker.time ?? new Date().toISOString(),
          trade_id: ticker.tradeId ?? ticker.sequence,
          last_size: String(ticker.size ?? 0.01),
        });
      }
    },
    raw(text) {
      for (const connection of open()) connection.socket.send(text);
    },
    heartbeat(product, lastTradeId) {
      for (const connection of open()) {
        const sequence = (connection.sequences.get(product) ?? 0) + 1;
        connection.sequences.set(product, sequence);
        connection.lastTrades.set(product, lastTradeId);
        send(connection, {
          type: 'heartbeat',
          sequence,
          last_trade_id: lastTradeId,
          product_id: product,
          time: new Date().toISOString(),
        });
      }
    },
    silence(value) {
      silent = value;
    },
    dropAll() {
      for (const connection of open()) connection.socket.terminate();
    },
    async close() {
      clearInterval(timer);
      for (const connection of connections) connection.socket.terminate();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
