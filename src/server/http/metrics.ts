// The server's health in Prometheus text format at GET /metrics, with prom-client: its default
// Node metrics (event-loop delay, heap, GC, handles) and the HTTP request durations by route
// pattern and status class, all prefixed `watos_`; the composition root (app.ts) adds the
// features' own (open alert streams, rule passes, the delivery queue) to the same registry.
// The live path's (issue 34) are made here too, behind small interfaces its parts update:
// LiveMetrics (the hub and the tick publisher) and the feeds' stats read when scraped.
//
// Not public: without METRICS_TOKEN nothing is registered (GET /metrics is the API's 404, no
// timing hook runs); with it, the route answers only `Authorization: Bearer <METRICS_TOKEN>`
// (compared in constant time), 401 otherwise. It is an app route like /healthz: outside the
// dashboard's session gate and without a rate limit (a scraper polls it), and, being a GET,
// untouched by the CSRF guard; the request guards and security headers apply as everywhere.
// One registry per app (never prom-client's global one): tests build several apps at once.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const METRICS_PREFIX = 'watos_';

/** Request duration buckets in seconds: 5 ms up to 10 s (a chart's first answer is ~50 ms). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A registry holding prom-client's default Node metrics, prefixed; one per app instance. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX });
  return registry;
}

interface MetricsOptions {
  /** METRICS_TOKEN; without one, GET /metrics does not exist. */
  token: string | undefined;
  /** The app's registry (createMetricsRegistry); required with a token. */
  registry: Registry | null;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the Authorization header carries the token; constant time in the token's content. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header?.trim() ?? '');
  // Hashed first: timingSafeEqual needs equal lengths, and the hash hides the token's length.
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

async function metricsPlugin(app: FastifyInstance, options: MetricsOptions): Promise<void> {
  const { token, registry } = options;
  if (!token || !registry) return;

  const requestDuration = new Histogram({
    name: `${METRICS_PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method, route pattern and status class',
    // The route pattern ('/api/files/:id'), never the raw URL: the labels stay a bounded set.
    labelNames: ['method', 'route', 'status_class'],
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  // A callback hook: it runs on every answer.
  app.addHook('onResponse', (request, reply, done) => {
    requestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_class: `${Math.floor(reply.statusCode / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });

  app.get('/metrics', async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send({ error: 'A valid metrics token is required.' });
    }
    const body = await registry.metrics();
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(body);
  });
}

export const metrics = fp(metricsPlugin, { name: 'watos-metrics', fastify: '5.x' });

/**
 * What the live path counts (live/hub.ts, live/publisher.ts). noLiveMetrics when GET /metrics
 * is off; createLiveMetrics otherwise.
 */
export interface LiveMetrics {
  /** A live connection opened (+1) or closed (-1) in this process. */
  connections(delta: 1 | -1): void;
  /** A tick arrived here from the bus, `lagMs` after its time stamp (less the exchange's delay). */
  tickReceived(source: string, lagMs: number): void;
  /** Ticks replaced at the publisher by a newer one of their symbol before they went out. */
  ticksCoalesced(count: number): void;
  /** Ticks replaced at a connection by a newer one before they were written (slow browser). */
  ticksSuperseded(count: number): void;
  /** Ticks written to browsers. */
  ticksSent(count: number): void;
}

export const noLiveMetrics: LiveMetrics = {
  connections: () => undefined,
  tickReceived: () => undefined,
  ticksCoalesced: () => undefined,
  ticksSuperseded: () => undefined,
  ticksSent: () => undefined,
};

/** Tick lag buckets in seconds: 5 ms up to 1 minute (a stalled feed shows in the top bucket). */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createLiveMetrics(registry: Registry): LiveMetrics {
  const open = new Gauge({
    name: `${METRICS_PREFIX}live_connections_open`,
    help: 'Live connections (GET /api/live) open in this process',
    registers: [registry],
  });
  const received = new Counter({
    name: `${METRICS_PREFIX}live_ticks_received_total`,
    help: 'Ticks this process received from the bus, by source',
    labelNames: ['source'],
    registers: [registry],
  });
  const lag = new Histogram({
    name: `${METRICS_PREFIX}live_tick_lag_seconds`,
    help: "Time from a tick's time stamp (less the exchange's delay) to its arrival here from the bus, by source",
    labelNames: ['source'],
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const coalesced = new Counter({
    name: `${METRICS_PREFIX}live_ticks_coalesced_total`,
    help: 'Ticks replaced by a newer one of their symbol at the publisher before they went on the bus',
    registers: [registry],
  });
  const superseded = new Counter({
    name: `${METRICS_PREFIX}live_ticks_superseded_total`,
    help: 'Ticks replaced by a newer one at a live connection before they were written (slow or backed-up browsers)',
    registers: [registry],
  });
  const sent = new Counter({
    name: `${METRICS_PREFIX}live_ticks_sent_total`,
    help: 'Ticks written to live connections',
    registers: [registry],
  });
  return {
    connections: (delta) => open.inc(delta),
    tickReceived(source, lagMs) {
      received.inc({ source });
      lag.observe({ source }, Math.max(0, lagMs) / 1000);
    },
    ticksCoalesced: (count) => coalesced.inc(count),
    ticksSuperseded: (count) => superseded.inc(count),
    ticksSent: (count) => sent.inc(count),
  };
}

/** A feed's stats as live/types.ts's FeedStats gives them (the fields read here). */
export interface FeedStatsReading {
  connected: boolean;
  reconnects: number;
  gaps: number;
  rejected: number;
  lastTickAt: number | null;
}

/**
 * The upstream feeds' health, read from `read` (feed name -> stats) when scraped:
 * watos_feed_connected, watos_feed_reconnects_total, watos_feed_gaps_total,
 * watos_feed_rejected_total and watos_feed_last_tick_age_seconds, each labelled `feed`.
 */
export function registerFeedMetrics(
  registry: Registry,
  read: () => Iterable<readonly [string, FeedStatsReading]>,
  now: () => number = Date.now,
): void {
  const gauge = (name: string, help: string, value: (stats: FeedStatsReading) => number | null) =>
    new Gauge({
      name: `${METRICS_PREFIX}${name}`,
      help,
      labelNames: ['feed'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [feed, stats] of read()) {
          const reading = value(stats);
          if (reading !== null) this.set({ feed }, reading);
        }
      },
    });
  // Counters whose totals the feeds keep: each scrape sets them to the feed's own count.
  const total = (name: string, help: string, value: (stats: FeedStatsReading) => number) =>
    new Counter({
      name: `${METRICS_PREFIX}${name}`,
      help,
      labelNames: ['feed'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [feed, stats] of read()) this.inc({ feed }, value(stats));
      },
    });
  gauge('feed_connected', 'Whether the upstream feed is connected (polling feeds: the last poll answered)', (stats) =>
    stats.connected ? 1 : 0,
  );
  total('feed_reconnects_total', 'Upstream (re)connections of the feed after the first', (stats) => stats.reconnects);
  total(
    'feed_gaps_total',
    'Sequence gaps and silences of the feed that needed a refill from REST',
    (stats) => stats.gaps,
  );
  total('feed_rejected_total', 'Messages of the feed that could not be read', (stats) => stats.rejected);
  gauge('feed_last_tick_age_seconds', 'Seconds since the feed last gave a tick', (stats) =>
    stats.lastTickAt === null ? null : Math.max(0, now() - stats.lastTickAt) / 1000,
  );
}
