// API throughput under load: the real app (buildApp on an in-memory PGlite, demo market data,
// a subscriber registered, verified and paid through the real flows) listening on 127.0.0.1,
// hit by autocannon with 50 connections, three rounds of 4 s a route, taking turns: the cached price snapshot
// GET /external-api/coinbase-prices and the alert log GET /external-api/alert (the dashboard's
// default filters: 10 rows of the last hour, with the start and end times the page sends; and
// 50 rows), all behind the session + subscription guard. Peer, measured in the same run and
// process: a bare Fastify hello-world route. Targets: the prices route at >= 80% of
// hello-world's req/s, each alert-log case at >= 50%; zero non-2xx answers on every route. autocannon fires from a worker thread so the load generator
// does not share the servers' thread; everything stays on loopback and the run is bounded.
// LOG_LEVEL is warn, as for a busy deployment: between changes of their data, the price polls and
// the alert log's repeated queries are then prepared answers (src/server/http/preparedAnswers.ts,
// Fastify's own bytes kept once it has answered), and the run prints how many were.
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
/** Each route is measured in ROUNDS rounds of ROUND_S seconds, the routes taking turns. */
const ROUNDS = 3;
const ROUND_S = 4;
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

interface Route {
  title: string;
  url: string;
  headers: Record<string, string>;
  rounds: Result[];
  /** Requests of the measured rounds answered as prepared answers. */
  prepared: number;
}

/** A route's rounds together: requests over the seconds they took, the worst p99. */
interface Measured {
  title: string;
  reqPerSec: number;
  total: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  prepared: number;
}

const route = (title: string, url: string, headers: Record<string, string> = {}): Route => ({
  title,
  url,
  headers,
  rounds: [],
  prepared: 0,
});

async function warmUp({ title, url, headers }: Route): Promise<void> {
  const check = await fetch(url, { headers });
  if (check.status !== 200) throw new Error(`${title}: GET ${url} answered ${check.status} before the load started`);
  await check.arrayBuffer();
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_S, workers: 1 });
}

async function measureRound(target: Route, prepared: () => number): Promise<void> {
  const before = prepared();
  const { url, headers, title } = target;
  target.rounds.push(
    await autocannon({ url, headers, connections: CONNECTIONS, duration: ROUND_S, workers: 1, title }),
  );
  target.prepared += prepared() - before;
}

function summary(target: Route): Measured {
  const sum = (pick: (result: Result) => number) => target.rounds.reduce((total, result) => total + pick(result), 0);
  const p50s = target.rounds.map((result) => result.latency.p50).sort((a, b) => a - b);
  return {
    title: target.title,
    reqPerSec: sum((result) => result.requests.total) / sum((result) => result.duration),
    total: sum((result) => result.requests.total),
    p50: p50s[Math.floor(p50s.length / 2)],
    p99: Math.max(...target.rounds.map((result) => result.latency.p99)),
    non2xx: sum((result) => result.non2xx),
    errors: sum((result) => result.errors + result.timeouts),
    prepared: target.prepared,
  };
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
  `autocannon: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_S} s a route, the routes taking turns (after ${WARMUP_S} s of warm-up each), load from a worker thread, 127.0.0.1.`,
);
console.log(
  `Subscriber signed in through the real flows; ${ALERTS} alerts stored, the alert route returns ${sample.alerts.length} rows a request.\n`,
);

const helloRoute = route('hello-world (bare Fastify)', helloUrl);
const routes = [
  helloRoute,
  route('GET /external-api/coinbase-prices', `${appUrl}/external-api/coinbase-prices`, { cookie }),
  route('GET /external-api/alert (dashboard default)', `${appUrl}${defaultPath}`, { cookie }),
  route(`GET ${alertPath}`, `${appUrl}${alertPath}`, { cookie }),
];
const preparedCount = () => app.services.prepared.answered;
for (const target of routes) await warmUp(target);
// Taking turns, so a slower or busier moment of the machine falls on every route alike.
for (let round = 0; round < ROUNDS; round++) {
  for (const target of routes) await measureRound(target, target === helloRoute ? () => 0 : preparedCount);
}
const [peer, prices, alertDefault, alertLog] = routes.map(summary);

console.log(
  'route                                          req/s   p50 ms   p99 ms  non-2xx  errors  vs hello-world (each round)',
);
for (const [index, result] of [peer, prices, alertDefault, alertLog].entries()) {
  const perRound = routes[index].rounds
    .map((round, at) =>
      (
        round.requests.total /
        round.duration /
        (helloRoute.rounds[at].requests.total / helloRoute.rounds[at].duration)
      ).toFixed(2),
    )
    .join(' ');
  console.log(
    `${result.title.padEnd(44)} ${result.reqPerSec.toFixed(0).padStart(8)} ${result.p50.toFixed(1).padStart(8)} ${result.p99.toFixed(1).padStart(8)} ${String(result.non2xx).padStart(8)} ${String(result.errors).padStart(7)} ${(result.reqPerSec / peer.reqPerSec).toFixed(2).padStart(6)} (${perRound})`,
  );
}

console.log(
  '\nprepared answers during the rounds, beside the answers autocannon counted (the others went through Fastify: a snapshot refresh, a new alert, a grant renewed every 5 s):',
);
for (const result of [prices, alertDefault, alertLog]) {
  console.log(`  ${result.title.padEnd(44)} ${result.prepared} prepared, ${result.total} counted`);
}

const clean = (result: Measured) => result.non2xx === 0 && result.errors === 0;
const pricesRatio = prices.reqPerSec / peer.reqPerSec;
console.log(
  `\ntarget: prices route >= ${PRICES_TARGET * 100}% of hello-world: ${pricesRatio >= PRICES_TARGET ? 'met' : 'NOT met'} (${(pricesRatio * 100).toFixed(0)}%)`,
);
console.log(
  `target: zero non-2xx and errors on every route: ${[peer, prices, alertDefault, alertLog].every(clean) ? 'met' : 'NOT met'}`,
);
for (const result of [alertDefault, alertLog]) {
  const ratio = result.reqPerSec / peer.reqPerSec;
  console.log(
    `target: ${result.title} >= ${ALERT_LOG_TARGET * 100}% of hello-world: ${ratio >= ALERT_LOG_TARGET ? 'met' : 'NOT met'} (${(ratio * 100).toFixed(0)}%)`,
  );
}

const measured = (result: Measured) =>
  `${result.reqPerSec.toFixed(0)} req/s (p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.non2xx} non-2xx)`;
const peerText = `hello-world ${peer.reqPerSec.toFixed(0)} req/s`;
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
  const ratio = result.reqPerSec / peer.reqPerSec;
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
