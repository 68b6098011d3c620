// API throughput under load: the real app (buildApp on an in-memory PGlite, demo market data,
// a subscriber registered, verified and paid through the real flows) listening on 127.0.0.1,
// hit by autocannon with 50 connections for 10 s a route: the cached price snapshot
// GET /external-api/coinbase-prices and the alert log GET /external-api/alert (the dashboard's
// default filters: 10 rows of the last hour, with the start and end times the page sends; and
// 50 rows), all behind the session + subscription guard. Peer, measured in the same run and
// process: a bare Fastify hello-world route. Targets: the prices route at >= 80% of
// hello-world's req/s, each alert-log case at >= 50%; zero non-2xx answers on every route. autocannon fires from a worker thread so the load generator
// does not share the servers' thread; everything stays on loopback and the run is bounded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import Fastify from 'fastify';
import { buildApp } from '../src/server/app.ts';
import { saveAlerts, type NewAlert } from '../src/server/alerts/service.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase, type DatabaseHandle } from '../src/server/db/client.ts';
import { ALERT_LOG_DEFAULT_WINDOW_MS, ALERT_TYPES, CRYPTO_SYMBOLS } from '../src/shared/constants.ts';
import { formatAlertTimestamp } from '../src/shared/alertDisplay.ts';
import { report } from './report.ts';
import { subscriberCookie } from './subscriber.ts';
import { portOf, stopAfter } from './benchProcess.ts';

const CONNECTIONS = 50;
const DURATION_S = 10;
const WARMUP_S = 2;
const PRICES_TARGET = 0.8;
const ALERT_LOG_TARGET = 0.5;
const ALERTS = 1_000;
/** The whole bench must end well within this, or it stops with an error. */
const WATCHDOG_MS = 180_000;

stopAfter('api', WATCHDOG_MS);

/** Alerts spread over the last 50 minutes, so the alert log's default one-hour window has rows. */
async function seedAlerts(database: DatabaseHandle): Promise<void> {
  const now = Date.now();
  const batch: NewAlert[] = Array.from({ length: ALERTS }, (_, index) => ({
    ticker: CRYPTO_SYMBOLS[index % CRYPTO_SYMBOLS.length].replace(/-USD$/, ''),
    alertType: ALERT_TYPES[index % ALERT_TYPES.length],
    message: `Bench alert ${index}`,
    timestamp: new Date(now - (index * 50 * 60_000) / ALERTS),
    source: 'demo',
  }));
  for (let start = 0; start < batch.length; start += 200)
    await saveAlerts(database.db, batch.slice(start, start + 200));
}

async function load(title: string, url: string, headers: Record<string, string> = {}): Promise<Result> {
  const check = await fetch(url, { headers });
  if (check.status !== 200) throw new Error(`${title}: GET ${url} answered ${check.status} before the load started`);
  await check.arrayBuffer();
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_S, workers: 1 });
  return autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S, workers: 1, title });
}

const dataDir = mkdtempSync(join(tmpdir(), 'watos-api-bench-'));
const database = await openDatabase({});
await database.migrate();
const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir, LOG_LEVEL: 'warn', MARKET_DATA: 'demo' });
const app = await buildApp({ config, database, webRoot: null });
await app.listen({ host: '127.0.0.1', port: 0 });
const appUrl = `http://127.0.0.1:${portOf(app)}`;

const hello = Fastify({ logger: false });
hello.get('/', () => Promise.resolve({ hello: 'world' }));
await hello.listen({ host: '127.0.0.1', port: 0 });
const helloUrl = `http://127.0.0.1:${portOf(hello)}/`;

const cookie = await subscriberCookie(app, config.publicUrl, database, 'bench@example.com');
await seedAlerts(database);
const alertPath = '/external-api/alert?max_count=50';
// What the dashboard's alert log asks on load (alertQueryString with the default filters).
const loadedAt = Date.now();
const defaultPath = `/external-api/alert?${new URLSearchParams({
  max_count: '10',
  start_time: formatAlertTimestamp(new Date(loadedAt - ALERT_LOG_DEFAULT_WINDOW_MS)),
  end_time: formatAlertTimestamp(new Date(loadedAt)),
}).toString()}`;
const sample = (await (await fetch(`${appUrl}${alertPath}`, { headers: { cookie } })).json()) as { alerts?: unknown[] };
if (!sample.alerts || sample.alerts.length === 0) throw new Error('The alert log returned no rows to benchmark');

console.log(
  `autocannon: ${CONNECTIONS} connections, ${DURATION_S} s a route (after ${WARMUP_S} s of warm-up), load from a worker thread, 127.0.0.1.`,
);
console.log(
  `Subscriber signed in through the real flows; ${ALERTS} alerts stored, the alert route returns ${sample.alerts.length} rows a request.\n`,
);

const peer = await load('hello-world (bare Fastify)', helloUrl);
const prices = await load('GET /external-api/coinbase-prices', `${appUrl}/external-api/coinbase-prices`, { cookie });
const alertDefault = await load('GET /external-api/alert (dashboard default)', `${appUrl}${defaultPath}`, {
  cookie,
});
const alertLog = await load(`GET ${alertPath}`, `${appUrl}${alertPath}`, { cookie });

console.log('route                                       req/s   p50 ms   p99 ms  non-2xx  errors  vs hello-world');
for (const result of [peer, prices, alertDefault, alertLog]) {
  console.log(
    `${(result.title ?? result.url).padEnd(40)} ${result.requests.average.toFixed(0).padStart(8)} ${result.latency.p50.toFixed(1).padStart(8)} ${result.latency.p99.toFixed(1).padStart(8)} ${String(result.non2xx).padStart(8)} ${String(result.errors + result.timeouts).padStart(7)} ${(result.requests.average / peer.requests.average).toFixed(2).padStart(14)}`,
  );
}

const clean = (result: Result) => result.non2xx === 0 && result.errors === 0 && result.timeouts === 0;
const pricesRatio = prices.requests.average / peer.requests.average;
console.log(
  `\ntarget: prices route >= ${PRICES_TARGET * 100}% of hello-world: ${pricesRatio >= PRICES_TARGET ? 'met' : 'NOT met'} (${(pricesRatio * 100).toFixed(0)}%)`,
);
console.log(
  `target: zero non-2xx and errors on every route: ${[peer, prices, alertDefault, alertLog].every(clean) ? 'met' : 'NOT met'}`,
);
for (const result of [alertDefault, alertLog]) {
  const ratio = result.requests.average / peer.requests.average;
  console.log(
    `target: ${result.title} >= ${ALERT_LOG_TARGET * 100}% of hello-world: ${ratio >= ALERT_LOG_TARGET ? 'met' : 'NOT met'} (${(ratio * 100).toFixed(0)}%)`,
  );
}

const measured = (result: Result) =>
  `${result.requests.average.toFixed(0)} req/s (p50 ${result.latency.p50.toFixed(1)} ms, p99 ${result.latency.p99.toFixed(1)} ms, ${result.non2xx} non-2xx)`;
const peerText = `hello-world ${peer.requests.average.toFixed(0)} req/s`;
report({
  figure: 'GET /external-api/coinbase-prices req/s',
  target: `>= ${PRICES_TARGET * 100}% of hello-world, 0 non-2xx`,
  measured: measured(prices),
  peer: peerText,
  ratio: pricesRatio,
  pass: pricesRatio >= PRICES_TARGET && clean(prices) && clean(peer),
});
for (const [figure, result] of [
  ['GET /external-api/alert req/s (dashboard default)', alertDefault],
  ['GET /external-api/alert req/s (50 rows)', alertLog],
] as const) {
  const ratio = result.requests.average / peer.requests.average;
  report({
    figure,
    target: `>= ${ALERT_LOG_TARGET * 100}% of hello-world, 0 non-2xx`,
    measured: measured(result),
    peer: peerText,
    ratio,
    pass: ratio >= ALERT_LOG_TARGET && clean(result),
  });
}

await hello.close();
await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
