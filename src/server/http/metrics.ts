// The server's health in Prometheus text format at GET /metrics, with prom-client: its default
// Node metrics (event-loop delay, heap, GC, handles) and the HTTP request durations by route
// pattern and status class, all prefixed `watos_`; the composition root (app.ts) adds the
// features' own (open alert streams, rule passes, the delivery queue) to the same registry.
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
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

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
