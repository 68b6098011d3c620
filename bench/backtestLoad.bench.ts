// Backtests under load (issue 33): the real app (buildApp on an in-memory PGlite, demo market
// data, NODE_ENV=production, the default worker pool: one worker on a 2-core machine) listening
// on 127.0.0.1, 10 subscribers made through the real flows. Each subscriber asks for uncached
// backtests one after another (its own crypto market on 1m, 5m and 15m: 30 different answers,
// none from the cache; each market's bars loaded just before, as the grid would have) while /healthz is polled, one request at a time. Peer, in the same run:
// /healthz polled the same way with no backtest running. The timing client runs in a worker
// thread, like a browser in its own process, so a blocked server loop cannot also delay the
// clock that measures it. Target: /healthz p99 under 50 ms while the backtests run. Also
// printed: the backtests' total time and each answer's status (all must be 200).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { portOf, stopAfter } from './benchProcess.ts';
import { percentile, report } from './report.ts';
import { subscriberCookie } from './subscriber.ts';

const USERS = 10;
const MARKETS = ['BTC', 'ETH', 'SOL', 'DOGE', 'XRP', 'ADA', 'LTC', 'AVAX', 'LINK', 'DOT'];
const TIMEFRAMES = ['1m', '5m', '15m'];
const PEER_POLLS = 400;
const POLL_GAP_MS = 5;
const TARGET_MS = 50;
const WATCHDOG_MS = 300_000;

interface ClientJob {
  origin: string;
  cookies: string[];
}

interface ClientResult {
  peer: number[];
  underLoad: number[];
  backtestsMs: number;
  statuses: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timedGet(url: string, cookie = ''): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: cookie ? { cookie } : {} });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** The timing client (worker thread): /healthz alone, then /healthz while every user backtests. */
async function runClient(job: ClientJob): Promise<ClientResult> {
  const health = `${job.origin}/healthz`;
  for (let index = 0; index < 20; index += 1) await timedGet(health);
  const peer: number[] = [];
  for (let index = 0; index < PEER_POLLS; index += 1) {
    peer.push((await timedGet(health)).ms);
    await sleep(POLL_GAP_MS);
  }
  // Each market's minutes loaded first (the grid card reads the same bars): the loop time of
  // a cold history load (about 50 ms each, mainThreadWork.bench.ts) is not the backtests'.
  for (const [user, cookie] of job.cookies.entries())
    await timedGet(`${job.origin}/api/watos/${MARKETS[user]}?timeframe=1m`, cookie);
  const statuses: number[] = [];
  let running = true;
  const started = performance.now();
  const users = job.cookies.map(async (cookie, user) => {
    for (const timeframe of TIMEFRAMES) {
      const url = `${job.origin}/api/track-record/backtest?symbol=${MARKETS[user]}&timeframe=${timeframe}`;
      statuses.push((await timedGet(url, cookie)).status);
    }
  });
  const done = Promise.all(users).then(() => {
    running = false;
  });
  const underLoad: number[] = [];
  while (running) {
    underLoad.push((await timedGet(health)).ms);
    await sleep(POLL_GAP_MS);
  }
  await done;
  return { peer, underLoad, backtestsMs: performance.now() - started, statuses };
}

async function main(): Promise<void> {
  stopAfter('backtestLoad', WATCHDOG_MS);
  const database = await openDatabase({});
  await database.migrate();
  const config = loadConfig({
    NODE_ENV: 'production',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'watos-backtest-bench-')),
    LOG_LEVEL: 'warn',
    MARKET_DATA: 'demo',
    // The per-user bounds stay at their defaults but the minute's count: 3 backtests each.
    BACKTEST_RATE_LIMIT_PER_MINUTE: '100',
  });
  const app = await buildApp({ config, database, webRoot: null, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${portOf(app)}`;
  const cookies: string[] = [];
  for (let user = 0; user < USERS; user += 1)
    cookies.push(await subscriberCookie(app, config.publicUrl, database, `backtest-bench-${user}@example.com`));
  console.log(
    `${USERS} subscribers, each 3 uncached backtests in turn (${TIMEFRAMES.join(', ')}), ${config.BACKTEST_WORKERS ?? 'default'} worker(s); /healthz polled one at a time, ${POLL_GAP_MS} ms apart.`,
  );

  // The worker runs this same TypeScript file: a one-line bootstrap imports it once the tsx
  // loader is registered in the worker (a .ts file cannot be a worker's entry point directly).
  const client = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`,
    { eval: true, workerData: { origin, cookies } satisfies ClientJob },
  );
  const result = await new Promise<ClientResult>((resolve, reject) => {
    client.once('message', resolve);
    client.once('error', reject);
  });
  await client.terminate();
  const stats = app.services.backtestPool.stats();
  await app.close();
  await database.close();

  const row = (name: string, values: number[]) =>
    `${name.padEnd(34)} ${String(values.length).padStart(6)} ${[0.5, 0.95, 0.99, 1]
      .map((share) => percentile(values, share).toFixed(2).padStart(8))
      .join(' ')}`;
  console.log('\n                                   polls   p50 ms   p95 ms   p99 ms   max ms');
  console.log(row('/healthz alone (peer)', result.peer));
  console.log(row('/healthz while 10 users backtest', result.underLoad));
  const ok = result.statuses.filter((status) => status === 200).length;
  console.log(
    `\nbacktests: ${result.statuses.length} answered (${ok} with 200: ${result.statuses.join(' ')}) in ${(result.backtestsMs / 1000).toFixed(2)} s; pool: ${JSON.stringify(stats)}`,
  );
  const p99 = percentile(result.underLoad, 0.99);
  const peerP99 = percentile(result.peer, 0.99);
  report({
    figure: '/healthz p99 while 10 users run uncached backtests',
    target: `< ${TARGET_MS} ms, every backtest 200`,
    measured: `${p99.toFixed(2)} ms (p50 ${percentile(result.underLoad, 0.5).toFixed(2)} ms)`,
    peer: `/healthz alone p99 ${peerP99.toFixed(2)} ms`,
    ratio: p99 / peerP99,
    pass: p99 < TARGET_MS && ok === USERS * TIMEFRAMES.length,
  });
  report({
    figure: '30 uncached backtests, 10 users (total s)',
    target: '-',
    measured: `${(result.backtestsMs / 1000).toFixed(2)} s`,
    peer: '-',
    ratio: null,
    pass: null,
  });
}

if (isMainThread) {
  await main();
} else {
  parentPort!.postMessage(await runClient(workerData as ClientJob));
}
