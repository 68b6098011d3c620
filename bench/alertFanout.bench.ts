// The alert stream's fan-out: the real app (buildApp on an in-memory PGlite, demo market
// data) with STREAMS open GET /api/alerts/stream connections (FANOUT_USERS subscribers, each
// with STREAMS / FANOUT_USERS tabs open, every stream passing the dashboard gate and the
// stream registry's access checks), read from a worker thread. Alerts are pushed through the
// app's own alert bus, as the engine pushes them, in bursts of BURST; the next burst goes when
// every stream has received the previous one. Figures: alert events delivered per second
// across all streams, and the time from a burst's publication until the last stream has it
// (p50/p95). Peer, in the same run and process: a bare Fastify hello-world's responses per
// second under autocannon (50 connections, from a worker thread). Each delivered event is a
// write to an open socket where each hello-world answer is a request read and a response
// written; the target is the issue's: fan-out at least 80% of hello-world's rate, for single
// alerts (one write per stream per alert) and for a burst (written together per stream).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildApp } from '../src/server/app.ts';
import type { LiveAlert } from '../src/server/alerts/bus.ts';
import { resolveAuthSecret } from '../src/server/auth/service.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { ALERT_TYPES } from '../src/shared/constants.ts';
import { formatAlertTimestamp } from '../src/shared/alertDisplay.ts';
import { percentile, report } from './report.ts';
import { grantedSubscriberCookies } from './subscriber.ts';
import { portOf, stopAfter } from './benchProcess.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
const USERS = Number(process.env.FANOUT_USERS ?? 200);
const PHASE_MS = 8_000;
const TARGET = 0.8;
const WATCHDOG_MS = 240_000;

stopAfter('alertFanout', WATCHDOG_MS);

const dataDir = mkdtempSync(join(tmpdir(), 'watos-fanout-bench-'));
const database = await openDatabase({});
await database.migrate();
const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir, LOG_LEVEL: 'warn', MARKET_DATA: 'demo' });
const app = await buildApp({ config, database, webRoot: null });
await app.listen({ host: '127.0.0.1', port: 0 });

const hello = Fastify({ logger: false });
hello.get('/', () => Promise.resolve({ hello: 'world' }));
await hello.listen({ host: '127.0.0.1', port: 0 });

const users = await grantedSubscriberCookies(app, USERS, resolveAuthSecret(config));
const cookies = Array.from({ length: STREAMS }, (_, index) => users[index % USERS]);

const worker = new Worker(new URL('./streamClients.mjs', import.meta.url), {
  workerData: { port: portOf(app), path: '/api/alerts/stream', cookies },
});
type WorkerMessage =
  { type: 'open'; count: number } | { type: 'reached'; total: number; at: number } | { type: 'failed'; error: string };
let waiting: ((message: WorkerMessage) => void) | null = null;
let failure: string | null = null;
worker.on('message', (message: WorkerMessage) => {
  if (message.type === 'failed') failure ??= message.error;
  waiting?.(message);
});
worker.on('error', (error) => {
  failure ??= error.message;
});
function next(type: WorkerMessage['type']): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no '${type}' from the stream readers in 60 s (${failure ?? 'no error'})`)),
      60_000,
    );
    waiting = (message) => {
      if (message.type === type) {
        clearTimeout(timer);
        waiting = null;
        resolve(message);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        waiting = null;
        reject(new Error(message.error));
      }
    };
  });
}
await next('open');
if (failure) throw new Error(failure);

let id = 0;
let delivered = 0;
function alertBurst(size: number): LiveAlert[] {
  return Array.from({ length: size }, () => {
    id += 1;
    return {
      id,
      source: 'demo',
      ticker: 'BTC',
      alert_type: ALERT_TYPES[id % ALERT_TYPES.length],
      message: `Fan-out bench alert ${id}: price crossed a level`,
      timestamp: formatAlertTimestamp(new Date()),
    };
  });
}

/** Pushes bursts for PHASE_MS; each burst after every stream got the one before. */
async function phase(burst: number): Promise<{ rate: number; latencies: number[] }> {
  const latencies: number[] = [];
  const started = performance.now();
  const startDelivered = delivered;
  while (performance.now() - started < PHASE_MS) {
    const alerts = alertBurst(burst);
    const at = performance.timeOrigin + performance.now();
    const reached = next('reached');
    await app.services.alertBus.publish(alerts);
    worker.postMessage({ type: 'expect', total: id });
    const done = (await reached) as { at: number };
    latencies.push(done.at - at);
    delivered += burst * STREAMS;
  }
  const seconds = (performance.now() - started) / 1000;
  return { rate: (delivered - startDelivered) / seconds, latencies };
}

console.log(`${STREAMS} alert streams open (${USERS} subscribers), read from a worker thread; 127.0.0.1.`);
await phase(1); // warm-up
const single = await phase(1);
const burst = await phase(20);
const peer = await autocannon({
  url: `http://127.0.0.1:${portOf(hello)}/`,
  connections: 50,
  duration: PHASE_MS / 1000,
  workers: 1,
});
const helloRate = peer.requests.average;

console.log('case                                   events/s   burst p50 ms   burst p95 ms   vs hello-world');
for (const [title, result] of [
  ['one alert a publish', single],
  ['20 alerts a publish', burst],
] as const) {
  console.log(
    `${title.padEnd(36)} ${result.rate.toFixed(0).padStart(10)} ${percentile(result.latencies, 0.5).toFixed(1).padStart(14)} ${percentile(result.latencies, 0.95).toFixed(1).padStart(14)} ${(result.rate / helloRate).toFixed(2).padStart(16)}`,
  );
}
console.log(`hello-world (bare Fastify, autocannon 50 connections): ${helloRate.toFixed(0)} req/s`);

for (const [title, result] of [
  ['one alert a publish', single],
  ['20 alerts a publish', burst],
] as const) {
  const ratio = result.rate / helloRate;
  report({
    figure: `alert stream fan-out, ${STREAMS} streams, ${title} (events delivered/s)`,
    target: `>= ${TARGET * 100}% of hello-world's req/s`,
    measured: `${result.rate.toFixed(0)} events/s (burst to last stream p50 ${percentile(result.latencies, 0.5).toFixed(1)} ms, p95 ${percentile(result.latencies, 0.95).toFixed(1)} ms)`,
    peer: `hello-world ${helloRate.toFixed(0)} req/s`,
    ratio,
    pass: ratio >= TARGET && failure === null,
  });
}

worker.postMessage({ type: 'close' });
await hello.close();
await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
