// The live path of one instance, put together (issue 34): the shards it holds (PostgreSQL
// advisory locks; every shard with the embedded database), the upstream feeds of its shards'
// watched and ruled symbols, the owner that builds each tick's forming bar and hands it to the
// tick rules and to the coalescing publisher, and the demand (the symbols every instance's
// browsers watch) that says what to carry. main.ts starts it once the market sources are pinned.
import type { LiveTick } from '../../shared/schemas/live.ts';
import type { MarketSource } from '../../shared/schemas/market.ts';
import type { AlertBus } from '../alerts/service.ts';
import type { LiveMetrics } from '../http/metrics.ts';
import { registerFeedMetrics } from '../http/metrics.ts';
import type { Registry } from 'prom-client';
import { followDemand } from './demand.ts';
import { createLiveFeeds, type LiveFeedsOptions } from './feeds.ts';
import { createLiveOwner, type LiveOwner } from './owner.ts';
import { createTickPublisher } from './publisher.ts';
import { createAllShards, createPostgresShards, type ShardLeases } from './shards.ts';

export { createAllShards, createPostgresShards, shardOf, type ShardLeases } from './shards.ts';

export interface LivePathOptions {
  config: LiveFeedsOptions['config'] & { DATABASE_URL?: string; redisPrefix: string };
  /** Where each symbol's stored bars come from (the engine's pinned router). */
  sourceOf(symbol: string): MarketSource;
  bus: AlertBus;
  /** The rules runtime's tick side. */
  rules: { onTick(tick: LiveTick): void; tickSymbols(): ReadonlySet<string> };
  metrics?: { registry: Registry; live?: LiveMetrics };
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  /**
   * The instance's shards, shared with the alert engine (main.ts creates them and closes them
   * after both stopped). Absent: the live path makes its own (PostgreSQL leases with
   * DATABASE_URL, else every shard) and closes them itself.
   */
  shards?: ShardLeases;
  /** Tests: short Coinbase heartbeat and backoff timings (live/faults.test.ts). */
  coinbaseTimings?: LiveFeedsOptions['coinbaseTimings'];
}

export interface LivePath {
  owner: LiveOwner;
  shards: ShardLeases;
  close(): Promise<void>;
}

export function startLivePath(options: LivePathOptions): LivePath {
  const { config, log } = options;
  // Whoever creates the shards closes them.
  const ownShards = !options.shards;
  const shards =
    options.shards ??
    (config.DATABASE_URL
      ? createPostgresShards({ databaseUrl: config.DATABASE_URL, group: config.redisPrefix.replace(/:$/, ''), log })
      : createAllShards());
  const feeds = createLiveFeeds({
    config,
    sourceOf: (symbol) => options.sourceOf(symbol),
    log,
    ...(options.coinbaseTimings ? { coinbaseTimings: options.coinbaseTimings } : {}),
  });
  let lastPublishWarning = -Infinity;
  const publisher = createTickPublisher({
    bus: options.bus,
    metrics: options.metrics?.live,
    onError: (error) => {
      // Redis or PostgreSQL away: the next batch carries newer ticks; say so once a minute.
      if (Date.now() - lastPublishWarning < 60_000) return;
      lastPublishWarning = Date.now();
      log.warn({ err: error }, 'live path: could not publish ticks');
    },
  });
  let demanded: readonly string[] = [];
  const stopDemand = followDemand(options.bus, (symbols) => {
    demanded = symbols;
  });
  const owner = createLiveOwner({
    feeds: feeds.feeds,
    feedFor: (symbol) => feeds.feedFor(symbol),
    shards,
    wanted: function* () {
      yield* demanded;
      yield* options.rules.tickSymbols();
    },
    sinks: [(tick) => options.rules.onTick(tick), (tick) => publisher.push(tick)],
    log,
    onGap: (feed, symbols) =>
      log.info({ feed, symbols: symbols.length }, 'live path: a feed may have missed ticks; the engine refills bars'),
  });
  if (options.metrics)
    registerFeedMetrics(options.metrics.registry, () => feeds.feeds.map((feed) => [feed.name, feed.stats()] as const));
  return {
    owner,
    shards,
    async close() {
      stopDemand();
      owner.close();
      await feeds.close();
      await publisher.close();
      if (ownShards) await shards.close();
    },
  };
}
