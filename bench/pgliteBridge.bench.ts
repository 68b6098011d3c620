// The embedded database's bridge (ADR 0012, ADR 0020): our node-postgres pool onto PGlite's own
// thread over a message port (src/server/db/pgliteThread.ts) against `@electric-sql/pglite-socket`
// (PGlite behind a TCP server speaking the PostgreSQL wire protocol), the same node-postgres pool
// (4 connections) in front of each, PGlite in a fresh directory on disk each. pglite-socket is
// measured twice: with PGlite and its server on a worker thread of their own (what our bridge
// does), and on the server's own thread, as its README starts it.
//
// pglite-socket is not a dependency (its peer dependencies pin PGlite 0.5.14 and seven
// extension packages: ADR 0020), so this bench loads it from a directory of its own:
//   mkdir /tmp/pglite-socket && cd /tmp/pglite-socket && npm init -y &&
//   npm install @electric-sql/pglite-socket@0.2.17 @electric-sql/pglite@<ours> --legacy-peer-deps
//   PGLITE_SOCKET_DIR=/tmp/pglite-socket npm run bench -- pgliteBridge
// Without PGLITE_SOCKET_DIR only our bridge is measured (said so).
//
// The work: the query shapes the server sends most (node-postgres extended queries, unnamed
// statements, as Drizzle sends them): a primary-key select, a user's latest 50 rows by an
// index, an insert; 70/20/10, QUERIES_IN_FLIGHT at once, every answer checked (the row asked
// for, the right columns: an answer meant for another connection counts as wrong). Rounds
// alternate between the bridges so a busy machine's load falls on each alike; the median
// round is reported. Measured: queries a second, latency p50/p95, CPU a query of the server's
// own thread (/proc: the event loop's share) and of the whole process (every thread), wrong
// answers. Then a transaction check: connection A holds a transaction open across round
// trips while B writes; A must not see B's uncommitted row as its own, and B's write must
// not land inside A's transaction.
import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startPgliteThread, PGLITE_CONNECTIONS } from '../src/server/db/pgliteThread.ts';
import { stopAfter } from './benchProcess.ts';
import { readProcStat } from './procStatus.ts';
import { percentile, report } from './report.ts';

const QUERIES_PER_ROUND = Number(process.env.BENCH_BRIDGE_QUERIES ?? 6000);
const ROUNDS = Number(process.env.BENCH_BRIDGE_ROUNDS ?? 3);
const QUERIES_IN_FLIGHT = 16;
const ROWS = 20_000;
const USERS = 500;
const socketDir = process.env.PGLITE_SOCKET_DIR;

const scratch: string[] = [];
stopAfter('pgliteBridge', 20 * 60_000, () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'watos-bridge-'));
  scratch.push(dir);
  return join(dir, 'db');
}

/** CPU time (user + system, ms) of this process's main thread, and of the whole process (every thread). */
function cpu(): { main: number; all: number } {
  const ticks = (path: string) => readProcStat(path)!.cpuTicks * 10;
  return { main: ticks(`/proc/self/task/${process.pid}/stat`), all: ticks('/proc/self/stat') };
}

interface Bridge {
  name: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

async function ours(): Promise<Bridge> {
  const thread = await startPgliteThread(freshDir());
  return { name: 'ours: message port to a PGlite thread', pool: thread.pool, close: () => thread.close() };
}

/** PGlite and pglite-socket's server on a worker thread; the pool connects over TCP. */
async function socketOnThread(dir: string): Promise<Bridge> {
  const resolveIn = createRequire(join(dir, 'package.json'));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { PGlite } = await import(workerData.pglite);
      const { PGLiteSocketServer } = await import(workerData.socket);
      const db = await PGlite.create({ dataDir: workerData.dataDir });
      const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 });
      await server.start();
      parentPort.postMessage({ conn: server.getServerConn() });
      parentPort.once('message', async () => {
        await server.stop();
        await db.close();
        parentPort.postMessage({ closed: true });
      });
    })();`;
  const worker = new Worker(code, {
    eval: true,
    workerData: {
      dataDir: freshDir(),
      pglite: pathToFileURL(resolveIn.resolve('@electric-sql/pglite')).href,
      socket: pathToFileURL(resolveIn.resolve('@electric-sql/pglite-socket')).href,
    },
  });
  const conn = await new Promise<string>((resolve, reject) => {
    worker.once('message', (message: { conn: string }) => resolve(message.conn));
    worker.once('error', reject);
  });
  const pool = poolOnto(conn);
  return {
    name: 'pglite-socket, PGlite on a worker thread (TCP)',
    pool,
    close: async () => {
      await pool.end();
      const closed = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      await closed;
      await worker.terminate();
    },
  };
}

/** A pool of the bridges' size onto a pglite-socket server at `host:port`. */
function poolOnto(conn: string): pg.Pool {
  const [host, port] = conn.split(':');
  return new pg.Pool({ host, port: Number(port), user: 'postgres', database: 'postgres', max: PGLITE_CONNECTIONS });
}

/** pglite-socket as its README starts it: PGlite and the server on this thread. */
async function socketOnMain(dir: string): Promise<Bridge> {
  const resolveIn = createRequire(join(dir, 'package.json'));
  const { PGlite } = (await import(pathToFileURL(resolveIn.resolve('@electric-sql/pglite')).href)) as {
    PGlite: { create(options: { dataDir: string }): Promise<{ close(): Promise<void> }> };
  };
  const { PGLiteSocketServer } = (await import(
    pathToFileURL(resolveIn.resolve('@electric-sql/pglite-socket')).href
  )) as {
    PGLiteSocketServer: new (options: object) => {
      start(): Promise<void>;
      stop(): Promise<void>;
      getServerConn(): string;
    };
  };
  const db = await PGlite.create({ dataDir: freshDir() });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 });
  await server.start();
  const pool = poolOnto(server.getServerConn());
  return {
    name: 'pglite-socket, PGlite on the server thread (TCP)',
    pool,
    close: async () => {
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}

async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(`create table items (
    id serial primary key,
    user_id integer not null,
    body text not null,
    created_at timestamptz not null default now()
  )`);
  await pool.query('create index items_user on items (user_id, created_at desc)');
  await pool.query(
    `insert into items (user_id, body, created_at)
     select i % ${USERS}, repeat(md5(i::text), 4), now() - (i || ' seconds')::interval
     from generate_series(1, ${ROWS}) as i`,
  );
}

interface Round {
  perSecond: number;
  p50: number;
  p95: number;
  mainCpuUs: number;
  allCpuUs: number;
  wrong: number;
  failed: number;
}

/** One query of the mix; resolves to whether its answer is the one asked for. */
async function one(pool: pg.Pool, sequence: number): Promise<boolean> {
  const kind = sequence % 10;
  if (kind < 7) {
    const id = 1 + ((sequence * 7919) % ROWS);
    const result = await pool.query<{ id: number; user_id: number }>(
      'select id, user_id, body, created_at from items where id = $1',
      [id],
    );
    return result.rows.length === 1 && result.rows[0]!.id === id && result.rows[0]!.user_id === id % USERS;
  }
  if (kind < 9) {
    const user = sequence % USERS;
    const result = await pool.query<{ user_id: number; body: string }>(
      'select user_id, body, created_at from items where user_id = $1 order by created_at desc limit 50',
      [user],
    );
    return result.rows.length > 0 && result.rows.every((row) => row.user_id === user && 'body' in row);
  }
  const user = USERS + sequence;
  const result = await pool.query<{ id: number; user_id: number }>(
    'insert into items (user_id, body) values ($1, $2) returning id, user_id',
    [user, `bench ${sequence}`],
  );
  return result.rows.length === 1 && result.rows[0]!.user_id === user;
}

async function round(pool: pg.Pool, offset: number): Promise<Round> {
  const latencies: number[] = [];
  let wrong = 0;
  let failed = 0;
  let next = 0;
  const cpuBefore = cpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: QUERIES_IN_FLIGHT }, async () => {
      while (next < QUERIES_PER_ROUND) {
        const sequence = offset + next++;
        const sent = performance.now();
        try {
          if (!(await one(pool, sequence))) wrong += 1;
        } catch {
          failed += 1;
        }
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = performance.now() - started;
  const cpuAfter = cpu();
  return {
    perSecond: QUERIES_PER_ROUND / (elapsed / 1000),
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    mainCpuUs: ((cpuAfter.main - cpuBefore.main) * 1000) / QUERIES_PER_ROUND,
    allCpuUs: ((cpuAfter.all - cpuBefore.all) * 1000) / QUERIES_PER_ROUND,
    wrong,
    failed,
  };
}

/**
 * A transaction on one connection held open across round trips while another connection
 * writes: answers whether B's row stayed out of A's transaction (A rolls back: B's row must
 * survive, A's must not) and the time it took.
 */
async function transactionCheck(pool: pg.Pool): Promise<string> {
  const a = await pool.connect();
  const b = await pool.connect();
  try {
    await a.query('begin');
    await a.query("insert into items (user_id, body) values (-1, 'inside A')");
    const outside = b.query("insert into items (user_id, body) values (-2, 'B outside A')");
    // B may wait for A (one backend) or run: either is right, as long as it is not inside A.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.query('rollback');
    await outside;
    const rows = await b.query<{ user_id: number }>('select user_id from items where user_id in (-1, -2)');
    const ids = rows.rows.map((row) => row.user_id).sort();
    await b.query('delete from items where user_id in (-1, -2)');
    return ids.length === 1 && ids[0] === -2
      ? 'isolated'
      : `B's write landed inside A's transaction (${ids.join(',')})`;
  } finally {
    a.release();
    b.release();
  }
}

const median = (values: number[]) => percentile(values, 0.5);

const makers: Array<() => Promise<Bridge>> = [ours];
if (socketDir)
  makers.push(
    () => socketOnThread(socketDir),
    () => socketOnMain(socketDir),
  );
else console.log('PGLITE_SOCKET_DIR not set: measuring our bridge only (see the header for pglite-socket).');

console.log(
  `Load average at the start: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
const bridges: Bridge[] = [];
try {
  for (const make of makers) {
    const bridge = await make();
    bridges.push(bridge);
    await seed(bridge.pool);
    await round(bridge.pool, 0); // warm-up: JIT, PGlite's caches
  }
  const rounds = new Map<string, Round[]>(bridges.map((bridge) => [bridge.name, []]));
  for (let index = 1; index <= ROUNDS; index += 1)
    for (const bridge of bridges) {
      const result = await round(bridge.pool, index * QUERIES_PER_ROUND);
      rounds.get(bridge.name)!.push(result);
      console.log(
        `round ${index}, ${bridge.name}: ${result.perSecond.toFixed(0)} queries/s, p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms, server thread ${result.mainCpuUs.toFixed(0)} µs/query, process ${result.allCpuUs.toFixed(0)} µs/query, wrong ${result.wrong}, failed ${result.failed}`,
      );
    }
  const checks = new Map<string, string>();
  for (const bridge of bridges) checks.set(bridge.name, await transactionCheck(bridge.pool));
  const loads = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(`Load average at the end: ${loads}`);

  const summary = (name: string) => {
    const all = rounds.get(name)!;
    return {
      perSecond: median(all.map((r) => r.perSecond)),
      p50: median(all.map((r) => r.p50)),
      p95: median(all.map((r) => r.p95)),
      mainCpuUs: median(all.map((r) => r.mainCpuUs)),
      allCpuUs: median(all.map((r) => r.allCpuUs)),
      wrong: all.reduce((sum, r) => sum + r.wrong, 0),
      failed: all.reduce((sum, r) => sum + r.failed, 0),
    };
  };
  const describe = (name: string) => {
    const s = summary(name);
    return `${s.perSecond.toFixed(0)} q/s, p50 ${s.p50.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms, server thread ${s.mainCpuUs.toFixed(0)} µs/q, process ${s.allCpuUs.toFixed(0)} µs/q; ${s.wrong} wrong, ${s.failed} failed; transaction ${checks.get(name)}`;
  };
  const base = summary(bridges[0]!.name);
  for (const [index, bridge] of bridges.entries()) {
    const s = summary(bridge.name);
    report({
      figure: `PGlite bridge, ${bridge.name}: ${QUERIES_PER_ROUND} mixed queries x ${ROUNDS} rounds, ${QUERIES_IN_FLIGHT} in flight (median round)`,
      target: index === 0 ? 'every answer right, transactions isolated' : 'information',
      measured: `${describe(bridge.name)}; load avg ${loads}`,
      peer:
        index === 0
          ? '-'
          : `ours: ${base.perSecond.toFixed(0)} q/s, p95 ${base.p95.toFixed(2)} ms, server thread ${base.mainCpuUs.toFixed(0)} µs/q`,
      ratio: index === 0 ? null : s.perSecond / base.perSecond,
      pass: index === 0 ? s.wrong === 0 && s.failed === 0 && checks.get(bridge.name) === 'isolated' : null,
    });
  }
} finally {
  for (const bridge of bridges) await bridge.close().catch(() => undefined);
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
}
