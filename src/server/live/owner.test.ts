// The live owner: each feed carries the wanted symbols of the held shards, ticks get their
// forming one-minute bar and reach every sink in order, and stale or foreign ticks are dropped.
import { describe, expect, it } from 'vitest';
import { createLiveOwner } from './owner.ts';
import type { ShardLeases } from './shards.ts';
import type { FeedStats, FeedTick, LiveTick, TickFeed } from './types.ts';

/** A feed the test drives by hand: it records what it was asked to carry. */
function handFeed(name: string) {
  const tickListeners = new Set<(tick: FeedTick) => void>();
  const gapListeners = new Set<(symbols: readonly string[]) => void>();
  const asked: string[][] = [];
  const feed: TickFeed & { asked: string[][]; send(tick: FeedTick): void; gap(symbols: string[]): void } = {
    name,
    asked,
    setSymbols: (symbols) => void asked.push([...symbols]),
    onTick: (listener) => {
      tickListeners.add(listener);
      return () => void tickListeners.delete(listener);
    },
    onGap: (listener) => {
      gapListeners.add(listener);
      return () => void gapListeners.delete(listener);
    },
    stats: (): FeedStats => ({ connected: true, reconnects: 0, gaps: 0, rejected: 0, lastTickAt: null }),
    close: async () => undefined,
    send: (tick) => tickListeners.forEach((listener) => listener(tick)),
    gap: (symbols) => gapListeners.forEach((listener) => listener(symbols)),
  };
  return feed;
}

function handShards(owned: Set<string>) {
  const listeners = new Set<(held: ReadonlySet<number>) => void>();
  const shards: ShardLeases & { move(next: string[]): void } = {
    held: () => new Set([0]),
    owns: (symbol) => owned.has(symbol),
    onChange: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close: async () => undefined,
    move(next) {
      owned.clear();
      for (const symbol of next) owned.add(symbol);
      listeners.forEach((listener) => listener(new Set([0])));
    },
  };
  return shards;
}

const tick = (symbol: string, price: number, time: number, size = 1): FeedTick => ({
  symbol,
  price,
  time,
  size,
  source: 'demo',
  delayMinutes: 0,
});

describe('live owner', () => {
  it('gives each feed the wanted symbols of the held shards, and follows shard moves', () => {
    const crypto = handFeed('coinbase');
    const quotes = handFeed('yahoo');
    const shards = handShards(new Set(['BTC-USD', 'AAPL']));
    const owner = createLiveOwner({
      feeds: [crypto, quotes],
      feedFor: (symbol) => (symbol.endsWith('-USD') ? crypto : quotes),
      shards,
      wanted: () => ['AAPL', 'BTC-USD', 'ETH-USD', 'MSFT', 'AAPL'],
      sinks: [],
      log: { warn: () => undefined },
    });
    expect(owner.carried().get('coinbase')).toEqual(['BTC-USD']);
    expect(owner.carried().get('yahoo')).toEqual(['AAPL']);
    shards.move(['ETH-USD', 'MSFT', 'AAPL']);
    expect(crypto.asked.at(-1)).toEqual(['ETH-USD']);
    expect(quotes.asked.at(-1)).toEqual(['AAPL', 'MSFT']);
    // Unchanged sets are not sent again.
    expect(quotes.asked).toHaveLength(2);
    owner.close();
    expect(crypto.asked.at(-1)).toEqual([]);
  });

  it('builds the forming minute bar and hands ticks to every sink, even after one fails', () => {
    const feed = handFeed('demo');
    const got: LiveTick[] = [];
    const warnings: string[] = [];
    const owner = createLiveOwner({
      feeds: [feed],
      feedFor: () => feed,
      shards: handShards(new Set(['AAPL'])),
      wanted: () => ['AAPL'],
      sinks: [
        () => {
          throw new Error('rules down');
        },
        (live) => got.push(live),
      ],
      log: { warn: (_details, message) => warnings.push(message) },
    });
    const minute = Date.UTC(2026, 10, 27, 15, 30);
    feed.send(tick('AAPL', 100, minute + 1_000, 5));
    feed.send(tick('AAPL', 101.5, minute + 2_000, 2));
    feed.send(tick('AAPL', 99.25, minute + 3_000, 1));
    feed.send(tick('AAPL', 100.5, minute + 4_000, 1));
    expect(got.map((live) => live.price)).toEqual([100, 101.5, 99.25, 100.5]);
    expect(got.at(-1)!.bar).toEqual([minute, 100, 101.5, 99.25, 100.5, 9]);
    // A new minute starts a new bar at the tick's price.
    feed.send(tick('AAPL', 102, minute + 60_500, 3));
    expect(got.at(-1)!.bar).toEqual([minute + 60_000, 102, 102, 102, 102, 3]);
    expect(warnings).toHaveLength(5);
    owner.close();
  });

  it('drops ticks that go back in time, are not priced, or belong to another instance', () => {
    const feed = handFeed('demo');
    const got: LiveTick[] = [];
    const owner = createLiveOwner({
      feeds: [feed],
      feedFor: () => feed,
      shards: handShards(new Set(['AAPL'])),
      wanted: () => ['AAPL'],
      sinks: [(live) => got.push(live)],
      log: { warn: () => undefined },
    });
    const at = Date.UTC(2026, 10, 27, 15, 30, 10);
    feed.send(tick('AAPL', 100, at));
    feed.send(tick('AAPL', 99, at - 1));
    feed.send(tick('AAPL', Number.NaN, at + 1));
    feed.send(tick('AAPL', 0, at + 2));
    feed.send(tick('MSFT', 400, at + 3));
    feed.send(tick('AAPL', 100.25, at));
    expect(got.map((live) => live.price)).toEqual([100, 100.25]);
    expect(owner.dropped()).toBe(4);
    owner.close();
  });

  it('reports gaps with the feed that had them', () => {
    const feed = handFeed('coinbase');
    const gaps: string[] = [];
    const owner = createLiveOwner({
      feeds: [feed],
      feedFor: () => feed,
      shards: handShards(new Set()),
      wanted: () => [],
      sinks: [],
      log: { warn: () => undefined },
      onGap: (name, symbols) => gaps.push(`${name}:${symbols.join(',')}`),
    });
    feed.gap(['BTC-USD', 'ETH-USD']);
    expect(gaps).toEqual(['coinbase:BTC-USD,ETH-USD']);
    owner.close();
  });
});
