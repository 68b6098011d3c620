// A first start that answers (issue 19 item 5): the built server (src/server/main.ts, demo
// market data, NODE_ENV=production) on a fresh DATA_DIR, so it creates the embedded database,
// runs the migrations and the alert engine backfills every symbol's 30 days of hourly and 2-4
// days of one-minute bars. From the first /healthz answer until the engine logs "backfill
// done", /healthz and the dashboard page are asked every 100 ms; the server's own event-loop
// delay over that window is read through bench/eventLoopProbe.mjs. The peer is the same
// server, same run, once the backfill is over (3 s of the same probing).
// Targets: every answer during the backfill within 1 s; event-loop delay p99 under 50 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess, type ServerProcess } from '../src/server/testing/serverProcess.ts';
import { report } from './report.ts';

const EVENT_LOOP_PROBE = join(dirname(fileURLToPath(import.meta.url)), 'eventLoopProbe.mjs');
const MARKER = 'EVENT_LOOP_DELAY';
const BACKFILL_TIMEOUT_MS = 300_000;
const PROBE_EVERY_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface LoopDelay {
  p99: number;
  max: number;
  samples: number;
}

async function loopDelay(server: ServerProcess): Promise<LoopDelay> {
  const seen = server.output().split(MARKER).length;
  server.child.kill('SIGWINCH');
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const parts = server.output().split(MARKER);
    if (parts.length > seen) return JSON.parse(parts.at(-1)!.split('\n')[0]!) as LoopDelay;
    await sleep(10);
  }
  throw new Error('the server did not report its event-loop delay');
}

/** Milliseconds one GET takes (a timeout or a failure counts as the time waited, and as an error). */
async function timed(url: string): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return { ms: performance.now() - started, ok: response.ok };
  } catch {
    return { ms: performance.now() - started, ok: false };
  }
}

/** Probes /healthz and /dashboard every 100 ms until `until()` is true. */
async function probe(server: ServerProcess, until: () => boolean) {
  const health: number[] = [];
  const page: number[] = [];
  let errors = 0;
  while (!until()) {
    const [a, b] = await Promise.all([timed(`${server.origin}/healthz`), timed(`${server.origin}/dashboard`)]);
    health.push(a.ms);
    page.push(b.ms);
    if (!a.ok || !b.ok) errors += 1;
    await sleep(PROBE_EVERY_MS);
  }
  return { health, page, errors };
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

const dataDir = mkdtempSync(join(tmpdir(), 'watos-first-start-'));
let server: ServerProcess | undefined;
try {
  const spawned = performance.now();
  server = await startServerProcess({
    dataDir,
    startTimeoutMs: 120_000,
    env: { NODE_ENV: 'production', LOG_LEVEL: 'info', NODE_OPTIONS: `--import=${EVENT_LOOP_PROBE}` },
  });
  const answering = (performance.now() - spawned) / 1000;
  const running = server;
  await loopDelay(running);
  const backfillDone = () => running.output().includes('alert engine: backfill done');
  const deadline = Date.now() + BACKFILL_TIMEOUT_MS;
  const during = await probe(running, () => backfillDone() || Date.now() > deadline);
  if (!backfillDone()) throw new Error(`the backfill did not finish within ${BACKFILL_TIMEOUT_MS / 1000} s`);
  const backfill = (performance.now() - spawned) / 1000;
  const loopDuring = await loopDelay(running);
  const idleUntil = Date.now() + 3_000;
  const after = await probe(running, () => Date.now() > idleUntil);
  const loopAfter = await loopDelay(running);

  console.log(
    `First start on a fresh DATA_DIR: /healthz answered ${answering.toFixed(1)} s after spawn; ` +
      `backfill done ${backfill.toFixed(1)} s after spawn; ${during.health.length} probes during it, ${during.errors} failed.`,
  );
  const worstHealth = Math.max(...during.health);
  const worstPage = Math.max(...during.page);
  report({
    figure: 'first start: /healthz slowest answer during backfill',
    target: '< 1000 ms, no error',
    measured: `${ms(worstHealth)} (p50 ${ms(percentile(during.health, 0.5))}, ${during.errors} errors)`,
    peer: `after backfill: ${ms(Math.max(...after.health))}`,
    ratio: worstHealth / Math.max(...after.health),
    pass: worstHealth < 1000 && during.errors === 0,
  });
  report({
    figure: 'first start: /dashboard page slowest answer during backfill',
    target: '< 1000 ms',
    measured: `${ms(worstPage)} (p50 ${ms(percentile(during.page, 0.5))})`,
    peer: `after backfill: ${ms(Math.max(...after.page))}`,
    ratio: worstPage / Math.max(...after.page),
    pass: worstPage < 1000,
  });
  report({
    figure: 'first start: event-loop delay p99 during backfill',
    target: '< 50 ms',
    measured: `${ms(loopDuring.p99)} (max ${ms(loopDuring.max)})`,
    peer: `after backfill: ${ms(loopAfter.p99)}`,
    ratio: loopDuring.p99 / Math.max(loopAfter.p99, 1),
    pass: loopDuring.p99 < 50,
  });
  report({
    figure: 'first start: spawn to answering / to backfill done',
    target: '-',
    measured: `${answering.toFixed(1)} s / ${backfill.toFixed(1)} s`,
    peer: '-',
    ratio: null,
    pass: null,
  });
} finally {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
