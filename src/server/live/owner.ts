// The live path on the instance that owns a symbol's shard (issue 34): which symbols each
// upstream feed carries, the forming one-minute bar built from their ticks, and the hand-off of
// every tick to the tick rules and to the coalescing publisher (which puts it on the bus for
// every instance's browsers).
//
// What to carry: the symbols someone watches (the browsers' demand, from every instance) or has
// a tick rule on, restricted to the shards this instance holds; recomputed every second and at
// once when the held shards change. Each symbol goes to the feed that serves its source now
// (Coinbase's stream for crypto, Yahoo's quotes for the other classes, the demo feed when the
// router serves demo data): one upstream connection per feed, whatever the number of browsers.
//
// The forming bar is for the screen and the rules only: it is never stored (the engine stores
// the provider's bars). A tick older than the symbol's newest one is dropped: prices on screen
// and crossings never go back in time.
import type { FeedTick, LiveTick, TickFeed } from './types.ts';
import type { ShardLeases } from './shards.ts';

const MINUTE = 60_000;

export interface LiveOwnerOptions {
  /** The feeds this instance may run, each started (and closed) by its maker. */
  feeds: readonly TickFeed[];
  /** The feed that carries a symbol now (by the market router's current source for it). */
  feedFor(symbol: string): TickFeed;
  shards: ShardLeases;
  /** Symbols wanted anywhere: the browsers' demand and the tick rules' symbols. */
  wanted(): Iterable<string>;
  /** Each tick, in order, with its forming bar (the tick rules, then the publisher). */
  sinks: ReadonlyArray<(tick: LiveTick) => void>;
  log: { warn(details: object, message: string): void };
  recomputeMs?: number;
  /** A feed lost ticks of these symbols (metrics and logs; the engine's pass refills bars). */
  onGap?(feed: string, symbols: readonly string[]): void;
}

export interface LiveOwner {
  /** The symbols each feed carries now. */
  carried(): ReadonlyMap<string, readonly string[]>;
  /** Feeds the owner a tick as if its feed had sent it (TEST_HOOKS' demo tick; tests). */
  accept(tick: FeedTick): LiveTick | null;
  /** Ticks dropped: out of order, or for a symbol this instance no longer carries. */
  dropped(): number;
  close(): void;
}

export function createLiveOwner(options: LiveOwnerOptions): LiveOwner {
  const bars = new Map<string, [number, number, number, number, number, number]>();
  const lastTime = new Map<string, number>();
  let carried = new Map<string, readonly string[]>();
  let droppedTicks = 0;

  function accept(tick: FeedTick): LiveTick | null {
    if (!options.shards.owns(tick.symbol) || !(tick.price > 0) || !Number.isFinite(tick.time)) {
      droppedTicks += 1;
      return null;
    }
    const previous = lastTime.get(tick.symbol);
    if (previous !== undefined && tick.time < previous) {
      droppedTicks += 1;
      return null;
    }
    lastTime.set(tick.symbol, tick.time);
    const minute = Math.floor(tick.time / MINUTE) * MINUTE;
    let bar = bars.get(tick.symbol);
    if (!bar || bar[0] !== minute) {
      bar = [minute, tick.price, tick.price, tick.price, tick.price, tick.size];
      bars.set(tick.symbol, bar);
    } else {
      if (tick.price > bar[2]) bar[2] = tick.price;
      if (tick.price < bar[3]) bar[3] = tick.price;
      bar[4] = tick.price;
      bar[5] += tick.size;
    }
    const live: LiveTick = {
      symbol: tick.symbol,
      price: tick.price,
      time: tick.time,
      source: tick.source,
      delayMinutes: tick.delayMinutes,
      bar: [bar[0], bar[1], bar[2], bar[3], bar[4], bar[5]],
    };
    for (const sink of options.sinks) {
      try {
        sink(live);
      } catch (error) {
        // One consumer failing must not stop the feed or the others.
        options.log.warn({ err: error, symbol: tick.symbol }, 'live path: a tick consumer failed');
      }
    }
    return live;
  }

  const unsubscribe = options.feeds.flatMap((feed) => [
    feed.onTick((tick) => void accept(tick)),
    feed.onGap((symbols) => options.onGap?.(feed.name, symbols)),
  ]);

  function recompute() {
    const perFeed = new Map<TickFeed, string[]>(options.feeds.map((feed) => [feed, []]));
    const seen = new Set<string>();
    for (const symbol of options.wanted()) {
      if (seen.has(symbol) || !options.shards.owns(symbol)) continue;
      seen.add(symbol);
      perFeed.get(options.feedFor(symbol))?.push(symbol);
    }
    const next = new Map<string, readonly string[]>();
    for (const [feed, symbols] of perFeed) {
      symbols.sort();
      const before = carried.get(feed.name);
      if (!before || before.length !== symbols.length || before.some((symbol, index) => symbol !== symbols[index]))
        feed.setSymbols(symbols);
      next.set(feed.name, symbols);
    }
    // Forget the bars of symbols no feed carries any more (another instance may own them now).
    for (const symbol of bars.keys())
      if (!seen.has(symbol)) {
        bars.delete(symbol);
        lastTime.delete(symbol);
      }
    carried = next;
  }

  recompute();
  const timer = setInterval(recompute, options.recomputeMs ?? 1_000);
  timer.unref();
  const stopWatchingShards = options.shards.onChange(recompute);
  return {
    carried: () => carried,
    accept,
    dropped: () => droppedTicks,
    close() {
      clearInterval(timer);
      stopWatchingShards();
      for (const stop of unsubscribe) stop();
      for (const feed of options.feeds) feed.setSymbols([]);
    },
  };
}
