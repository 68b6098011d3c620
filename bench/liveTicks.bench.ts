// The live path under 1,000 open streams (issue 34, "Tick to browser" and "Memory flat"): the
// real app (buildApp on an in-memory PGlite, demo market data), LIVE_STREAMS (1,000)
// GET /api/live connections read over real sockets from a worker thread, each watching 10
// symbols of the symbol table; ticks for a universe of LIVE_UNIVERSE (500) symbols (the table's
// 209 and made-up ones nobody watches, which still cross the bus), LIVE_TICK_RATE (4) a second
// each, stamped with the time they are pushed into the owner's tick publisher
// (createTickPublisher, its default 100 ms coalescing). Figure: the tick's age when its frame
// is parsed in the client, p95 (and p50), over LIVE_PHASE_MS (10 s) after a warm-up.
//   1. One instance, the in-process bus. Target p95 <= 250 ms. Peer, same run, running
//      alongside: the bare bus round trip (the same in-process bus code, one listener, a batch
//      of the publisher's size every 100 ms).
//   2. Memory: the same streams read nothing for LIVE_IDLE_MS (30 s) while the ticks go on;
//      the process's growth after a full GC (the larger of RSS and heap+external; server and
//      readers together). Target under 50 MB. The ticks superseded at backed-up connections
//      meanwhile are read from /metrics.
//   3. Two instances through Redis (LIVE_REDIS_URL, else TEST_REDIS_URL, else
//      redis://127.0.0.1:6379; skipped when none answers): the publisher on instance A, half
//      the streams on A and half on B. Target p95 <= 500 ms. Peer: the bare Redis bus round
//      trip (two buses on two connections, the same batches).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Redis } from 'ioredis';
import { buildApp, type App } from '../src/server/app.ts';
import { createAlertBus, type AlertBus, type LiveTick } from '../src/server/alerts/bus.ts';
import { resolveAuthSecret } from '../src/server/auth/service.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { createTickPublisher } from '../src/server/live/publisher.ts';
import { createRedis } from '../src/server/redis.ts';
import { SYMBOL_TABLE } from '../src/shared/symbols.ts';
import { portOf, stopAfter } from './benchProcess.ts';
import { percentile, report } from './report.ts';
import { grantedSubscriberCookies } from './subscriber.ts';

const STREAMS = Number(process.env.LIVE_STREAMS ?? 1_000);
const USERS = Math.ceil(STREAMS / 5);
const SYMBOLS_PER_STREAM = 10;
const UNIVERSE = Math.max(Number(process.env.LIVE_UNIVERSE ?? 500), SYMBOL_TABLE.length);
const TICK_RATE = Number(process.env.LIVE_TICK_RATE ?? 4);
const PHASE_MS = Number(process.env.LIVE_PHASE_MS ?? 10_000);
const WARM_MS = 3_000;
const IDLE_MS = Number(process.env.LIVE_IDLE_MS ?? 30_000);
const REDIS_URL = process.env.LIVE_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const METRICS_TOKEN = 'live-ticks-bench-metrics-token-000';
/** One secret for every instance: a session made on one is good on the other, as in a deployment. */
const AUTH_SECRET = 'live-ticks-bench-auth-secret-0123456789abcdef';
const TARGET_ONE_MS = 250;
const TARGET_REDIS_MS = 500;
const MEMORY_TARGET_MB = 50;

stopAfter('liveTicks', 300_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const fixed = (value: number) => value.toFixed(value < 1 ? 3 : 1);
const mb = (bytes: number) => bytes / 1024 / 1024;

/** The symbols ticked: the table's ids, then made-up ones up to the universe's size. */
const tableIds = SYMBOL_TABLE.map((symbol) => symbol.id);
const universe = [...tableIds, ...Array.from({ length: UNIVERSE - tableIds.length }, (_, i) => `BENCH${i}-USD`)];

/** A deterministic pseudo-random sequence (mulberry32), so every run watches the same symbols. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = random(34);
function watchedSymbols(): string[] {
  const chosen = new Set<string>();
  while (chosen.size < SYMBOLS_PER_STREAM) chosen.add(tableIds[Math.floor(pick() * tableIds.length)]!);
  return [...chosen];
}

/** Pushes every symbol's tick TICK_RATE times a second (phases spread) until stopped. */
function startTicking(push: (tick: LiveTick) => void): () => void {
  const every = 1000 / TICK_RATE;
  const start = Date.now();
  const due = universe.map((_, index) => start + (index / universe.length) * every);
  const prices = universe.map((_, index) => 100 + index);
  const timer = setInterval(() => {
    const now = Date.now();
    const minute = now - (now % 60_000);
    for (let index = 0; index < universe.length; index += 1) {
      if (due[index]! > now) continue;
      due[index]! += every;
      if (due[index]! < now) due[index] = now + every;
      const price = (prices[index]! *= 1 + (pick() - 0.5) / 1000);
      push({
        symbol: universe[index]!,
        price,
        time: now,
        source: 'demo',
        delayMinutes: 0,
        bar: [minute, price, price, price, price, 1],
      });
    }
  }, 5);
  return () => clearInterval(timer);
}

/** The bare bus round trip beside a phase: a batch of the publisher's size every 100 ms. */
function startPeer(sender: AlertBus, receiver: AlertBus): { stop(): void; latencies: number[] } {
  const latencies: number[] = [];
  const size = Math.round((UNIVERSE * TICK_RATE) / 10);
  let sentAt = 0;
  const stopListening = receiver.subscribeTicks(() => {
    latencies.push(performance.now() - sentAt);
  });
  const timer = setInterval(() => {
    sentAt = performance.now();
    const now = Date.now();
    const batch = Array.from({ length: size }, (_, index): LiveTick => ({
      symbol: `PEER${index}`,
      price: index,
      time: now,
      source: 'demo',
      delayMinutes: 0,
      bar: [now, 1, 1, 1, 1, 1],
    }));
    void sender.publishTicks(batch);
  }, 100);
  return {
    latencies,
    stop() {
      clearInterval(timer);
      stopListening();
    },
  };
}

interface Readers {
  measure(): void;
  collect(): Promise<{ values: Float64Array; ticks: number; frames: number }>;
  pause(): void;
  resume(): void;
  close(): void;
  failure(): string | null;
}

async function openReaders(streams: Array<{ port: number; cookie: string; symbols: string[] }>): Promise<Readers> {
  const worker = new Worker(new URL('./liveClients.mjs', import.meta.url), { workerData: { streams } });
  let failure: string | null = null;
  let waiting: ((message: { type: string }) => void) | null = null;
  worker.on('message', (message: { type: string; error?: string }) => {
    if (message.type === 'failed') failure ??= message.error ?? 'failed';
    waiting?.(message);
  });
  worker.on('error', (error) => (failure ??= error.message));
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no '${type}' from the readers in 60 s (${failure})`)), 60_000);
      waiting = (message) => {
        if (message.type !== type && message.type !== 'failed') return;
        clearTimeout(timer);
        waiting = null;
        if (message.type === 'failed') reject(new Error(`a reader failed: ${failure}`));
        else resolve(message as T);
      };
    });
  await next('open');
  return {
    measure: () => worker.postMessage({ type: 'measure' }),
    collect() {
      const answer = next<{ values: Float64Array; ticks: number; frames: number }>('latencies');
      worker.postMessage({ type: 'collect' });
      return answer;
    },
    pause: () => worker.postMessage({ type: 'pause' }),
    resume: () => worker.postMessage({ type: 'resume' }),
    close: () => worker.postMessage({ type: 'close' }),
    failure: () => failure,
  };
}

async function startApp(database: Awaited<ReturnType<typeof openDatabase>>, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watos-live-bench-'));
  const config = loadConfig({
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    MARKET_DATA: 'demo',
    METRICS_TOKEN,
    AUTH_SECRET,
    ...env,
  });
  const app = await buildApp({ config, database, webRoot: null });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, config, dataDir };
}

async function scrape(app: App, name: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${portOf(app)}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await response.text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

interface PhaseResult {
  latencies: Float64Array;
  ticks: number;
  frames: number;
  peer: number[];
}

/** Warms up, then measures the readers' tick ages and the peer's round trips for PHASE_MS. */
async function measure(readers: Readers, peer: () => { stop(): void; latencies: number[] }): Promise<PhaseResult> {
  await sleep(WARM_MS);
  readers.measure();
  const running = peer();
  await sleep(PHASE_MS);
  running.stop();
  const { values, ticks, frames } = await readers.collect();
  return { latencies: values, ticks, frames, peer: running.latencies };
}

function quantile(values: Float64Array | number[], share: number): number {
  return percentile(Array.from(values), share);
}

function printPhase(title: string, result: PhaseResult) {
  const seconds = PHASE_MS / 1000;
  console.log(
    `${title}: ${(result.ticks / seconds).toFixed(0)} ticks/s in ${(result.frames / seconds).toFixed(0)} frames/s to the clients; tick age p50 ${fixed(quantile(result.latencies, 0.5))} ms, p95 ${fixed(quantile(result.latencies, 0.95))} ms, max ${fixed(quantile(result.latencies, 1))} ms; bare bus p50 ${fixed(percentile(result.peer, 0.5))} ms, p95 ${fixed(percentile(result.peer, 0.95))} ms (${result.peer.length} batches).`,
  );
}

const loadsAtStart = loadavg();
console.log(
  `${STREAMS} live streams (${USERS} subscribers) x ${SYMBOLS_PER_STREAM} symbols of ${tableIds.length}; ${universe.length} symbols ticked ${TICK_RATE}/s each (${universe.length * TICK_RATE} ticks/s); readers in a worker thread; 127.0.0.1.`,
);

// ---- 1. One instance, in-process bus ----
const database = await openDatabase({});
await database.migrate();
const one = await startApp(database, {});
const cookies = await grantedSubscriberCookies(one.app, USERS, resolveAuthSecret(one.config));
const plan = Array.from({ length: STREAMS }, (_, index) => ({
  cookie: cookies[index % USERS]!,
  symbols: watchedSymbols(),
}));
const readers = await openReaders(plan.map((stream) => ({ ...stream, port: portOf(one.app) })));
const publisher = createTickPublisher({ bus: one.app.services.alertBus });
let stopTicking = startTicking((tick) => publisher.push(tick));
const bareBus = createAlertBus();
const single = await measure(readers, () => startPeer(bareBus, bareBus));
printPhase('one instance, in-process bus', single);

// ---- 2. Memory with readers that read nothing ----
readers.measure();
await sleep(500);
gc();
await sleep(200);
const before = process.memoryUsage();
const supersededBefore = await scrape(one.app, 'watos_live_ticks_superseded_total');
readers.pause();
await sleep(IDLE_MS);
const supersededIdle = (await scrape(one.app, 'watos_live_ticks_superseded_total')) - supersededBefore;
gc();
await sleep(200);
const after = process.memoryUsage();
readers.resume();
await sleep(500);
readers.measure();
await sleep(2_000);
const resumed = await readers.collect();
const rssGrowth = mb(after.rss - before.rss);
const heapGrowth = mb(after.heapUsed + after.external - before.heapUsed - before.external);
const growth = Math.max(rssGrowth, heapGrowth);
console.log(
  `Readers paused ${IDLE_MS / 1000} s: RSS ${mb(before.rss).toFixed(0)} -> ${mb(after.rss).toFixed(0)} MB (${rssGrowth.toFixed(1)} MB), heap+external ${heapGrowth.toFixed(1)} MB; ${supersededIdle.toFixed(0)} ticks superseded at backed-up connections meanwhile.`,
);
// On loopback the kernel's socket buffers (send buffer autotuned up to net.ipv4.tcp_wmem's
// maximum, 4 MB here, plus the reader's receive buffer) hold a paused reader's frames before
// the response ever needs 'drain'; that backlog is read first after resuming.
console.log(
  `After resuming, 2 s: ${resumed.ticks} ticks read, age p50 ${fixed(quantile(resumed.values, 0.5))} ms, p95 ${fixed(quantile(resumed.values, 0.95))} ms (the backlog the kernel's socket buffers held comes first; the hub's own bound, one pending tick a symbol, applies once a response needs 'drain': hub.test.ts).`,
);

stopTicking();
await publisher.close();
readers.close();
await bareBus.close();
await one.app.close();
rmSync(one.dataDir, { recursive: true, force: true });

// ---- 3. Two instances through Redis ----
async function redisAnswers(url: string): Promise<boolean> {
  const probe = createRedis(url);
  try {
    await Promise.race([probe.ping(), sleep(2_000).then(() => Promise.reject(new Error('no answer')))]);
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

let redisPhase: PhaseResult | null = null;
if (await redisAnswers(REDIS_URL)) {
  const prefix = `watos:live-bench-${Date.now().toString(36)}:`;
  const env = { REDIS_URL, REDIS_PREFIX: prefix };
  const instanceA = await startApp(database, env);
  const instanceB = await startApp(database, env);
  const streams = plan.map((stream, index) => ({
    ...stream,
    port: portOf(index % 2 === 0 ? instanceA.app : instanceB.app),
  }));
  const redisReaders = await openReaders(streams);
  const redisPublisher = createTickPublisher({ bus: instanceA.app.services.alertBus });
  stopTicking = startTicking((tick) => redisPublisher.push(tick));
  const connections: Redis[] = [createRedis(REDIS_URL), createRedis(REDIS_URL)];
  const peerPrefix = `${prefix}peer:`;
  const peerSender = createAlertBus(connections[0], undefined, peerPrefix);
  const peerReceiver = createAlertBus(connections[1], undefined, peerPrefix);
  await Promise.all([peerSender.ready, peerReceiver.ready]);
  redisPhase = await measure(redisReaders, () => startPeer(peerSender, peerReceiver));
  printPhase('two instances through Redis', redisPhase);
  stopTicking();
  await redisPublisher.close();
  redisReaders.close();
  await peerSender.close();
  await peerReceiver.close();
  for (const connection of connections) connection.disconnect();
  await instanceA.app.close();
  await instanceB.app.close();
  rmSync(instanceA.dataDir, { recursive: true, force: true });
  rmSync(instanceB.dataDir, { recursive: true, force: true });
} else {
  console.log(`No Redis answers at ${REDIS_URL}: the two-instance phase is skipped.`);
}

const loads = `load avg ${[loadsAtStart, loadavg()].map((averages) => averages.map((average) => average.toFixed(2)).join(' ')).join(' -> ')} (1, 5, 15 min)`;
console.log(`Machine ${loads}.`);
const failure = readers.failure();
if (failure) console.log(`A reader failed: ${failure}`);

const singleP95 = quantile(single.latencies, 0.95);
const singlePeer = percentile(single.peer, 0.95);
report({
  figure: `tick to client, one instance, ${STREAMS} streams x ${SYMBOLS_PER_STREAM} symbols, ${universe.length} symbols at ${TICK_RATE}/s: p95`,
  target: `at most ${TARGET_ONE_MS} ms`,
  measured: `${fixed(singleP95)} ms (p50 ${fixed(quantile(single.latencies, 0.5))} ms; ${(single.ticks / (PHASE_MS / 1000)).toFixed(0)} ticks/s delivered)`,
  peer: `bare in-process bus round trip p95 ${fixed(singlePeer)} ms`,
  ratio: singleP95 / singlePeer,
  pass: single.ticks > 0 && singleP95 <= TARGET_ONE_MS && failure === null,
});
report({
  figure: `memory, ${STREAMS} clients reading nothing for ${IDLE_MS / 1000} s while ticks flow: growth`,
  target: `under ${MEMORY_TARGET_MB} MB`,
  measured: `${growth.toFixed(1)} MB, the larger of RSS (${rssGrowth.toFixed(1)} MB) and heap+external (${heapGrowth.toFixed(1)} MB); ${supersededIdle.toFixed(0)} ticks superseded`,
  peer: '-',
  ratio: null,
  pass: growth < MEMORY_TARGET_MB,
});
if (redisPhase) {
  const p95 = quantile(redisPhase.latencies, 0.95);
  const peer = percentile(redisPhase.peer, 0.95);
  report({
    figure: `tick to client, two instances through Redis, ${STREAMS} streams: p95`,
    target: `at most ${TARGET_REDIS_MS} ms`,
    measured: `${fixed(p95)} ms (p50 ${fixed(quantile(redisPhase.latencies, 0.5))} ms; ${(redisPhase.ticks / (PHASE_MS / 1000)).toFixed(0)} ticks/s delivered)`,
    peer: `bare Redis bus round trip p95 ${fixed(peer)} ms`,
    ratio: p95 / peer,
    pass: redisPhase.ticks > 0 && p95 <= TARGET_REDIS_MS,
  });
} else {
  report({
    figure: 'tick to client, two instances through Redis',
    target: `at most ${TARGET_REDIS_MS} ms`,
    measured: `skipped: no Redis at ${REDIS_URL}`,
    peer: '-',
    ratio: null,
    pass: null,
  });
}
await database.close();
