// The Coinbase WebSocket feed against a local fake of Coinbase Exchange's feed (`ws`'s own
// server speaking the documented shapes, fakeCoinbaseWs.ts): what it subscribes to, the ticks it
// reads, subscription diffs on the open socket, reconnection with resubscription and a gap after
// a drop or a silence, garbage and out-of-order messages, a 10,000-message burst, and a close
// that leaves nothing behind.
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedTick, TickFeed } from '../../live/types.ts';
import { createCoinbaseTickFeed, fullJitterDelay, type CoinbaseTickFeedOptions } from './coinbaseWs.ts';
import { startFakeCoinbaseWs, type FakeCoinbaseWs } from '../../testing/fakeCoinbaseWs.ts';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let fake: FakeCoinbaseWs | null = null;
let feed: TickFeed | null = null;
afterEach(async () => {
  await feed?.close();
  await fake?.close();
  feed = null;
  fake = null;
});

interface Harness {
  fake: FakeCoinbaseWs;
  feed: TickFeed;
  ticks: FeedTick[];
  gaps: string[][];
  warnings: string[];
}

async function start(
  fakeOptions: { heartbeatMs?: number } = {},
  feedOptions: Partial<CoinbaseTickFeedOptions> = {},
): Promise<Harness> {
  fake = await startFakeCoinbaseWs({ heartbeatMs: 1000, ...fakeOptions });
  const warnings: string[] = [];
  feed = createCoinbaseTickFeed({
    url: fake.url,
    backoffBaseMs: 20,
    backoffCapMs: 100,
    log: { info: () => undefined, warn: (_fields, message) => warnings.push(message) },
    ...feedOptions,
  });
  const ticks: FeedTick[] = [];
  const gaps: string[][] = [];
  feed.onTick((tick) => ticks.push(tick));
  feed.onGap((symbols) => gaps.push([...symbols]));
  return { fake, feed, ticks, gaps, warnings };
}

const subscribes = (h: Harness, connection: number) =>
  h.fake
    .received()
    .filter((entry) => entry.connection === connection)
    .map((entry) => entry.message);

describe('Coinbase WebSocket feed', () => {
  it('subscribes once to ticker and heartbeat for the crypto symbols and reads tickers', async () => {
    const h = await start();
    h.feed.setSymbols(['BTC-USD', 'ETH-USD', 'AAPL']);
    await waitFor(() => h.fake.subscribed().length === 2, 'the subscription');
    expect(subscribes(h, 1)).toEqual([
      { type: 'subscribe', product_ids: ['BTC-USD', 'ETH-USD'], channels: ['ticker', 'heartbeat'] },
    ]);
    h.fake.ticker('BTC-USD', { price: '97123.45', sequence: 10, time: '2026-01-14T15:10:00.123456Z', size: 0.5 });
    h.fake.ticker('ETH-USD', { price: '3321.1', sequence: 7, time: '2026-01-14T15:10:01Z', size: 2 });
    await waitFor(() => h.ticks.length === 2, 'two ticks');
    expect(h.ticks).toEqual([
      {
        symbol: 'BTC-USD',
        price: 97123.45,
        time: Date.parse('2026-01-14T15:10:00.123Z'),
        size: 0.5,
        source: 'coinbase',
        delayMinutes: 0,
      },
      {
        symbol: 'ETH-USD',
        price: 3321.1,
        time: Date.parse('2026-01-14T15:10:01Z'),
        size: 2,
        source: 'coinbase',
        delayMinutes: 0,
      },
    ]);
    expect(h.feed.stats()).toMatchObject({ connected: true, reconnects: 0, gaps: 0, rejected: 0 });
    expect(h.feed.stats().lastTickAt).not.toBeNull();
  });

  it('changes subscriptions on the open socket, without reconnecting', async () => {
    const h = await start();
    h.feed.setSymbols(['BTC-USD', 'ETH-USD']);
    await waitFor(() => h.fake.subscribed().length === 2, 'the subscription');
    h.feed.setSymbols(['ETH-USD', 'SOL-USD', 'LTC-USD']);
    await waitFor(() => h.fake.subscribed().join() === 'ETH-USD,LTC-USD,SOL-USD', 'the new subscription');
    expect(subscribes(h, 1).slice(1)).toEqual([
      { type: 'unsubscribe', product_ids: ['BTC-USD'], channels: ['ticker', 'heartbeat'] },
      { type: 'subscribe', product_ids: ['SOL-USD', 'LTC-USD'], channels: ['ticker', 'heartbeat'] },
    ]);
    expect(h.fake.connectionCount()).toBe(1);
    // Nothing left to carry: the connection is closed, and opened again when there is.
    h.feed.setSymbols([]);
    await waitFor(() => h.fake.openCount() === 0, 'the idle close');
    expect(h.feed.stats().connected).toBe(false);
    h.feed.setSymbols(['BTC-USD']);
    await waitFor(() => h.fake.subscribed().join() === 'BTC-USD', 'the second connection');
    expect(h.feed.stats()).toMatchObject({ connected: true, reconnects: 0, gaps: 0 });
  });

  it('reconnects after a drop, resubscribes everything and reports a gap for every carried symbol', async () => {
    const h = await start();
    h.feed.setSymbols(['BTC-USD', 'ETH-USD']);
    await waitFor(() => h.fake.subscribed().length === 2, 'the subscription');
    h.fake.dropAll();
    await waitFor(() => h.fake.connectionCount() === 2 && h.fake.subscribed().length === 2, 'the resubscription');
    expect(subscribes(h, 2)).toEqual([
      { type: 'subscribe', product_ids: ['BTC-USD', 'ETH-USD'], channels: ['ticker', 'heartbeat'] },
    ]);
    expect(h.gaps).toEqual([['BTC-USD', 'ETH-USD']]);
    expect(h.feed.stats()).toMatchObject({ connected: true, reconnects: 1, gaps: 1 });
    // Sequences start afresh on the new connection: a lower one than before is not "old".
    h.fake.ticker('BTC-USD', { price: 1, sequence: 1 });
    await waitFor(() => h.ticks.length === 1, 'a tick on the new connection');
  });

  it('ends a silent connection after the heartbeat timeout, reconnects and reports a gap', async () => {
    const h = await start({ heartbeatMs: 20 }, { heartbeatTimeoutMs: 250 });
    h.feed.setSymbols(['BTC-USD']);
    await waitFor(() => h.fake.subscribed().length === 1, 'the subscription');
    h.fake.silence(true);
    await waitFor(() => h.fake.connectionCount() === 2, 'the reconnection');
    h.fake.silence(false);
    await waitFor(() => h.gaps.length === 1 && h.feed.stats().connected, 'the gap');
    expect(h.gaps).toEqual([['BTC-USD']]);
    expect(h.warnings).toContain('upstream silent too long: reconnecting');
    expect(h.feed.stats().reconnects).toBe(1);
  });

  it('counts garbage, unknown products and old or repeated sequences as rejected, and keeps going', async () => {
    const h = await start();
    h.feed.setSymbols(['BTC-USD']);
    await waitFor(() => h.fake.subscribed().length === 1, 'the subscription');
    h.fake.ticker('BTC-USD', { price: 100, sequence: 1000 });
    h.fake.raw('{"type":"ticker","product_id":"BTC-USD","price":"1'); // truncated JSON
    h.fake.raw('[1,2,3]');
    h.fake.raw(JSON.stringify({ type: 'ticker', product_id: 'DOGE-EUR', sequence: 2000, price: '1', time: 'x' }));
    h.fake.ticker('BTC-USD', { price: 'NaN', sequence: 1001 });
    h.fake.ticker('BTC-USD', { price: -5, sequence: 1002 });
    h.fake.raw(JSON.stringify({ type: 'ticker', product_id: 'BTC-USD', price: '101', sequence: 1003, time: 'soon' }));
    h.fake.ticker('BTC-USD', { price: 99, sequence: 1000 }); // repeated
    h.fake.ticker('BTC-USD', { price: 98, sequence: 999 }); // older
    h.fake.raw(
      JSON.stringify({ type: 'error', message: 'Failed to subscribe', reason: 'FOO-USD is not a valid product' }),
    );
    h.fake.raw(JSON.stringify({ type: 'status', products: [] })); // a type we do not read: ignored
    h.fake.ticker('BTC-USD', { price: 102, sequence: 1010 });
    await waitFor(() => h.ticks.length === 2, 'the last tick');
    expect(h.ticks.map((tick) => tick.price)).toEqual([100, 102]);
    expect(h.feed.stats()).toMatchObject({ connected: true, rejected: 8, reconnects: 0 });
    expect(h.warnings).toContain('Coinbase feed error');
  });

  it('reports a gap when a heartbeat shows a trade no ticker brought', async () => {
    const h = await start();
    h.feed.setSymbols(['BTC-USD', 'ETH-USD']);
    await waitFor(() => h.fake.subscribed().length === 2, 'the subscription');
    h.fake.ticker('BTC-USD', { price: 100, sequence: 50, tradeId: 500 });
    h.fake.heartbeat('BTC-USD', 500);
    h.fake.ticker('BTC-USD', { price: 101, sequence: 60, tradeId: 501 });
    h.fake.heartbeat('BTC-USD', 501);
    h.fake.heartbeat('BTC-USD', 501);
    await waitFor(() => h.ticks.length === 2, 'the ticks');
    expect(h.gaps).toEqual([]);
    // Trades 502 and 503 happened; their tickers never came.
    h.fake.heartbeat('BTC-USD', 503);
    h.fake.heartbeat('BTC-USD', 503);
    await waitFor(() => h.gaps.length === 1, 'the gap');
    expect(h.gaps).toEqual([['BTC-USD']]);
    h.fake.heartbeat('BTC-USD', 503);
    h.fake.ticker('BTC-USD', { price: 103, sequence: 1000, tradeId: 504 });
    await waitFor(() => h.ticks.length === 3, 'the next tick');
    expect(h.feed.stats()).toMatchObject({ gaps: 1, rejected: 0 });
  });

  it('takes a 10,000-message burst and ends on the newest price of every product', async () => {
    const h = await start();
    const products = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'LTC-USD'];
    h.feed.setSymbols(products);
    await waitFor(() => h.fake.subscribed().length === 4, 'the subscription');
    const newest = new Map<string, number>();
    for (let index = 0; index < 10_000; index += 1) {
      const product = products[index % 4]!;
      const price = (100 + index / 100).toFixed(2);
      newest.set(product, Number(price));
      h.fake.ticker(product, { price, sequence: 10 + index, tradeId: 10 + index });
    }
    await waitFor(() => h.ticks.length === 10_000, 'the burst', 20_000);
    const last = new Map(h.ticks.map((tick) => [tick.symbol, tick.price]));
    expect(last).toEqual(newest);
    expect(h.feed.stats()).toMatchObject({ connected: true, rejected: 0, gaps: 0, reconnects: 0 });
  });

  it('leaves no socket and no timer after close', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const h = await start({ heartbeatMs: 20 }, { heartbeatTimeoutMs: 200 });
    h.feed.setSymbols(['BTC-USD']);
    await waitFor(() => h.fake.subscribed().length === 1, 'the subscription');
    // Running now: the feed's watchdog and the fake's heartbeat interval (and whatever else runs).
    const running = timers();
    await h.feed.close();
    expect(timers()).toBeLessThanOrEqual(running - 1);
    await waitFor(() => h.fake.openCount() === 0, 'the server to see the close');
    expect(h.feed.stats().connected).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.fake.connectionCount()).toBe(1);
    await h.fake.close();
    fake = null;
    feed = null;
    expect(timers()).toBeLessThanOrEqual(running - 2);
  });

  it('spreads reconnections with full jitter under a cap', () => {
    expect(fullJitterDelay(0, 500, 30_000, () => 0.5)).toBe(250);
    expect(fullJitterDelay(3, 500, 30_000, () => 1)).toBe(4000);
    expect(fullJitterDelay(10, 500, 30_000, () => 1)).toBe(30_000);
    expect(fullJitterDelay(1000, 500, 30_000, () => 0.25)).toBe(7500);
  });
});
