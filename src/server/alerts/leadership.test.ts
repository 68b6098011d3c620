// Leader election of the alert engine on real PostgreSQL (TEST_DATABASE_URL; skipped
// otherwise): two engines on one database, never both leading, and the standby taking over
// within seconds when the leader stops, when its lock connection is killed, and when that
// connection silently stops answering.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../db/client.ts';
import type { MarketDataProvider } from '../market/types.ts';
import { createAlertBus } from './bus.ts';
import { createAlertEngine, ENGINE_LOCK_KEY } from './engine.ts';
import { withAdminClient } from '../db/testing.ts';

const adminUrl = process.env.TEST_DATABASE_URL;

/** No assets: a tick touches no table, so leadership is all these engines do. */
const idleProvider: MarketDataProvider = {
  source: 'demo',
  quotes: () => Promise.resolve(new Map()),
  candles: () => Promise.resolve([]),
};

/** One engine, with whether it believes it leads taken from its own log lines. */
function engineOn(database: DatabaseHandle, name: string) {
  const state = { name, leading: false, stopped: false };
  const log = {
    info: (_fields: object, message?: string) => {
      if (message === 'alert engine: this instance leads') state.leading = true;
    },
    warn: (_fields: object, message?: string) => {
      if (message === 'alert engine: lost the leadership lock') state.leading = false;
    },
    error: () => undefined,
  };
  const engine = createAlertEngine({
    database,
    provider: idleProvider,
    source: 'demo',
    bus: createAlertBus(),
    log,
    products: [],
  });
  return {
    state,
    start: () => engine.start(),
    async stop() {
      await engine.stop();
      state.leading = false;
      state.stopped = true;
    },
  };
}

type Engine = ReturnType<typeof engineOn>;

/**
 * Samples both engines every 20 ms until `done` holds (or the time is up), failing if they ever
 * both believe they lead; answers when `done` first held, in ms since the call.
 */
async function watchUntil(engines: Engine[], done: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const leaders = engines.filter((engine) => engine.state.leading).map((engine) => engine.state.name);
    expect(leaders.length, `both lead: ${leaders.join(', ')}`).toBeLessThanOrEqual(1);
    if (done()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A TCP hop that can turn into a black hole: bytes vanish, nothing is closed or reset. */
async function startBlackHoleProxy(port: number) {
  const sockets = new Set<Socket>();
  let swallowing = false;
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => swallowing || upstream.write(chunk));
    upstream.on('data', (chunk) => swallowing || client.write(chunk));
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    // Once swallowing, even the old leader closing its end never reaches PostgreSQL.
    client.on('error', () => swallowing || drop()).on('close', () => swallowing || drop());
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    swallow() {
      swallowing = true;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.runIf(adminUrl)('alert engine leadership on PostgreSQL', () => {
  const name = `watos_test_leader_${randomBytes(4).toString('hex')}`;
  let url: URL;
  const open: Array<{ close(): Promise<void> }> = [];
  const engines: Engine[] = [];

  async function database(databaseUrl = url.toString()): Promise<DatabaseHandle> {
    const handle = await openDatabase({ databaseUrl, maxConnections: 1, onConnectionError: () => undefined });
    open.push(handle);
    return handle;
  }

  function started(handle: DatabaseHandle, label: string): Engine {
    const engine = engineOn(handle, label);
    engines.push(engine);
    engine.start();
    return engine;
  }

  beforeAll(async () => {
    await withAdminClient((client) => client.query(`create database "${name}"`));
    url = new URL(adminUrl!);
    url.pathname = `/${name}`;
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) if (!engine.state.stopped) await engine.stop();
    for (const handle of open.splice(0)) await handle.close().catch(() => undefined);
  });
  afterAll(async () => {
    await withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`));
  });

  it('lets one of two engines lead, and the other take over within 10 s of a clean stop', async () => {
    const first = started(await database(), 'first');
    const second = started(await database(), 'second');
    await watchUntil([first, second], () => first.state.leading || second.state.leading, 10_000);
    // Both have tried by now; watch a while that exactly one leads.
    await watchUntil([first, second], () => false, 1_500).catch((error: Error) => {
      if (!/not done/.test(error.message)) throw error;
    });
    const [leader, standby] = first.state.leading ? [first, second] : [second, first];
    expect(standby.state.leading).toBe(false);

    await leader.stop();
    const takeover = await watchUntil([first, second], () => standby.state.leading, 10_000);
    expect(takeover).toBeLessThan(10_000);
  });

  it('hands over within 10 s when the leader’s lock connection is killed', async () => {
    const first = started(await database(), 'first');
    await watchUntil([first], () => first.state.leading, 10_000);
    const second = started(await database(), 'second');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(second.state.leading).toBe(false);

    // What PostgreSQL does to a leader whose process was killed or that an operator cut off.
    await withAdminClient((client) =>
      client.query(
        `select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and objid = $1 and database = (select oid from pg_database where datname = $2)`,
        [ENGINE_LOCK_KEY, name],
      ),
    );
    const takeover = await watchUntil([first, second], () => second.state.leading, 10_000);
    expect(takeover).toBeLessThan(10_000);
    expect(first.state.leading).toBe(false);
  });

  it('steps a leader down whose lock connection silently stopped answering, before the standby leads', async () => {
    const proxy = await startBlackHoleProxy(Number(url.port || 5432));
    open.push(proxy);
    const viaProxy = new URL(url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const first = started(await database(viaProxy.toString()), 'first');
    await watchUntil([first], () => first.state.leading, 10_000);
    const second = started(await database(), 'second');
    await new Promise((resolve) => setTimeout(resolve, 500));

    proxy.swallow();
    // The old leader notices within its ping and query timeout; PostgreSQL ends the silent
    // session after its idle timeout, and only then can the standby take the lock.
    const stepDown = await watchUntil([first, second], () => !first.state.leading, 10_000);
    const takeover = stepDown + (await watchUntil([first, second], () => second.state.leading, 20_000));
    expect(stepDown).toBeLessThan(5_000);
    expect(takeover).toBeLessThan(10_000);
  }, 40_000);
});
