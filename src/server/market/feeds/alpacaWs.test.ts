// The Alpaca tick feed against a local fake of Alpaca's v2 market-data stream (`ws`'s own server
// speaking the documented messages: `connected`, auth, `authenticated` or error 402, subscription
// lists, trade arrays): the handshake, trades read, subscription diffs, a reconnection with
// re-auth, resubscription and a gap, pings keeping a quiet connection alive, garbage and late
// trades, and a close that leaves nothing open.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FeedTick, TickFeed } from '../../live/types.ts';
import { createAlpacaTickFeed, type AlpacaTickFeedOptions } from './alpacaWs.ts';
import { messageText } from './listeners.ts';

const KEY = 'PKTEST';
const SECRET = 'secret-test';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Alpaca's v2 stream, as documented, for one key. */
async function startFakeAlpaca() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake is not listening on a port');
  const sockets: WebSocket[] = [];
  const received: Array<{ connection: number; message: Record<string, unknown> }> = [];
  let trades = new Set<string>();
  let pings = 0;
  server.on('connection', (socket) => {
    sockets.push(socket);
    const connection = sockets.length;
    let authenticated = false;
    socket.on('ping', () => {
      pings += 1;
    });
    socket.send(JSON.stringify([{ T: 'success', msg: 'connected' }]));
    socket.on('message', (data) => {
      const message = JSON.parse(messageText(data)) as Record<string, unknown>;
      received.push({ connection, message });
      if (message.action === 'auth') {
        if (message.key !== KEY || message.secret !== SECRET) {
          socket.send(JSON.stringify([{ T: 'error', code: 402, msg: 'auth failed' }]));
          socket.close();
          return;
        }
        authenticated = true;
        socket.send(JSON.stringify([{ T: 'success', msg: 'authenticated' }]));
        return;
      }
      if (!authenticated) return socket.send(JSON.stringify([{ T: 'error', code: 401, msg: 'not authenticated' }]));
      const list = Array.isArray(message.trades) ? (message.trades as string[]) : [];
      if (message.action === 'subscribe') trades = new Set([...trades, ...list]);
      if (message.action === 'unsubscribe') trades = new Set([...trades].filter((symbol) => !list.includes(symbol)));
      socket.send(JSON.stringify([{ T: 'subscription', trades: [...trades], quotes: [], bars: [] }]));
    });
  });
  const open = () => sockets.filter((socket) => socket.readyState === socket.OPEN);
  return {
    url: `ws://127.0.0.1:${address.port}`,
    received: () => [...received],
    trades: () => [...trades].sort(),
    connectionCount: () => sockets.length,
    openCount: () => open().length,
    pings: () => pings,
    send: (payload: unknown) => {
      for (const socket of open()) socket.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
    },
    dropAll: () => {
      trades = new Set();
      for (const socket of open()) socket.terminate();
    },
    close: async () => {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type FakeAlpaca = Awaited<ReturnType<typeof startFakeAlpaca>>;
let fake: FakeAlpaca | null = null;
let feed: TickFeed | null = null;
afterEach(async () => {
  await feed?.close();
  await fake?.close();
  feed = null;
  fake = null;
});

async function start(overrides: Partial<AlpacaTickFeedOptions> = {}) {
  fake = await startFakeAlpaca();
  const warnings: Array<[object, string]> = [];
  feed = createAlpacaTickFeed({
    url: fake.url,
    key: KEY,
    secret: SECRET,
    backoffBaseMs: 20,
    backoffCapMs: 100,
    log: { info: () => undefined, warn: (fields, message) => warnings.push([fields, message]) },
    ...overrides,
  });
  const ticks: FeedTick[] = [];
  const gaps: string[][] = [];
  feed.onTick((tick) => ticks.push(tick));
  feed.onGap((symbols) => gaps.push([...symbols]));
  return { fake, feed, ticks, gaps, warnings };
}

const trade = (symbol: string, price: unknown, time: string, size = 100) => ({
  T: 't',
  S: symbol,
  i: 52983525029461,
  x: 'V',
  p: price,
  s: size,
  c: ['@'],
  t: time,
  z: 'C',
});

describe('Alpaca tick feed', () => {
  it('authenticates, subscribes to the trades of the stocks and ETFs only, and reads trades', async () => {
    const h = await start();
    h.feed.setSymbols(['AAPL', 'SPY', 'BTC-USD', 'SPX', 'ES1!']);
    await waitFor(() => h.fake.trades().length === 2, 'the subscription');
    expect(h.fake.received().map((entry) => entry.message)).toEqual([
      { action: 'auth', key: KEY, secret: SECRET },
      { action: 'subscribe', trades: ['AAPL', 'SPY'] },
    ]);
    h.fake.send([
      trade('AAPL', 255.12, '2026-01-14T15:10:00.123456789Z', 50),
      trade('SPY', 670.5, '2026-01-14T15:10:00.5Z'),
      { T: 'q', S: 'AAPL', bp: 255.1, ap: 255.13 },
    ]);
    await waitFor(() => h.ticks.length === 2, 'two ticks');
    expect(h.ticks).toEqual([
      {
        symbol: 'AAPL',
        price: 255.12,
        time: Date.parse('2026-01-14T15:10:00.123Z'),
        size: 50,
        source: 'alpaca',
        delayMinutes: 0,
      },
      {
        symbol: 'SPY',
        price: 670.5,
        time: Date.parse('2026-01-14T15:10:00.5Z'),
        size: 100,
        source: 'alpaca',
        delayMinutes: 0,
      },
    ]);
    expect(h.feed.stats()).toMatchObject({ connected: true, reconnects: 0, gaps: 0, rejected: 0 });
  });

  it('changes subscriptions on the open connection', async () => {
    const h = await start();
    h.feed.setSymbols(['AAPL', 'SPY']);
    await waitFor(() => h.fake.trades().length === 2, 'the subscription');
    h.feed.setSymbols(['SPY', 'MSFT']);
    await waitFor(() => h.fake.trades().join() === 'MSFT,SPY', 'the new subscription');
    expect(
      h.fake
        .received()
        .map((entry) => entry.message)
        .slice(2),
    ).toEqual([
      { action: 'unsubscribe', trades: ['AAPL'] },
      { action: 'subscribe', trades: ['MSFT'] },
    ]);
    expect(h.fake.connectionCount()).toBe(1);
  });

  it('logs a refused key and stays disconnected, without ticks', async () => {
    const h = await start({ secret: 'wrong' });
    h.feed.setSymbols(['AAPL']);
    await waitFor(() => h.warnings.some(([, message]) => message === 'Alpaca stream error'), 'the auth error');
    expect(h.warnings.find(([, message]) => message === 'Alpaca stream error')![0]).toEqual({
      code: 402,
      msg: 'auth failed',
    });
    expect(h.feed.stats().connected).toBe(false);
    expect(h.fake.trades()).toEqual([]);
  });

  it('reconnects after a drop: authenticates again, resubscribes and reports a gap', async () => {
    const h = await start();
    h.feed.setSymbols(['AAPL', 'SPY']);
    await waitFor(() => h.fake.trades().length === 2, 'the subscription');
    h.fake.dropAll();
    await waitFor(() => h.fake.connectionCount() === 2 && h.fake.trades().length === 2, 'the resubscription');
    await waitFor(() => h.gaps.length === 1, 'the gap');
    expect(
      h.fake
        .received()
        .filter((entry) => entry.connection === 2)
        .map((entry) => entry.message),
    ).toEqual([
      { action: 'auth', key: KEY, secret: SECRET },
      { action: 'subscribe', trades: ['AAPL', 'SPY'] },
    ]);
    expect(h.gaps).toEqual([['AAPL', 'SPY']]);
    expect(h.feed.stats()).toMatchObject({ connected: true, reconnects: 1, gaps: 1 });
  });

  it('keeps a quiet connection alive by ping, and counts garbage and late trades as rejected', async () => {
    const h = await start({ pingMs: 40, silenceMs: 150 });
    h.feed.setSymbols(['AAPL']);
    await waitFor(() => h.fake.trades().length === 1, 'the subscription');
    // No message for several silence periods: the pongs keep it open.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.fake.pings()).toBeGreaterThan(3);
    expect(h.fake.connectionCount()).toBe(1);

    h.fake.send([trade('AAPL', 250, '2026-01-14T15:10:01Z')]);
    h.fake.send('{"T":"t"');
    h.fake.send({ T: 't' });
    h.fake.send([42, trade('TSLA', 400, '2026-01-14T15:10:01Z'), trade('AAPL', 'x', '2026-01-14T15:10:02Z')]);
    h.fake.send([trade('AAPL', 249, '2026-01-14T15:10:00Z'), trade('AAPL', 251, '2026-01-14T15:10:01Z')]);
    h.fake.send([trade('AAPL', 252, 'later')]);
    h.fake.send([trade('AAPL', 253, '2026-01-14T15:10:03Z')]);
    await waitFor(() => h.ticks.length === 3, 'the ticks');
    // Same time as the newest is not late: 251 is kept; 249 (a second older) is dropped.
    expect(h.ticks.map((tick) => tick.price)).toEqual([250, 251, 253]);
    expect(h.feed.stats().rejected).toBe(7);
  });

  it('closes its connection and opens none after close', async () => {
    const h = await start({ pingMs: 20, silenceMs: 100 });
    h.feed.setSymbols(['AAPL']);
    await waitFor(() => h.fake.trades().length === 1, 'the subscription');
    await h.feed.close();
    await waitFor(() => h.fake.openCount() === 0, 'the server to see the close');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(h.fake.connectionCount()).toBe(1);
    expect(h.feed.stats().connected).toBe(false);
  });
});
