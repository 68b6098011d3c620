// Fault test: PostgreSQL goes away under load and comes back. The app reaches PostgreSQL
// through a TCP proxy that the test cuts (every connection dropped, new ones refused, as in
// a restart) and restores. While it is down every request must fail cleanly (a JSON 503,
// no crash, no hang); once it is back, requests succeed again without restarting the app.
// Needs a real PostgreSQL: runs when TEST_DATABASE_URL is set (always on CI).
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { startTcpProxy, type TcpProxy } from '../testing/tcpProxy.ts';
import { subscribedUser } from '../testing/users.ts';
import { openDatabase, type DatabaseHandle } from './client.ts';

const adminUrl = process.env.TEST_DATABASE_URL;
const name = `watos_restart_${Date.now()}_${randomBytes(3).toString('hex')}`;
let proxy: TcpProxy;
let database: DatabaseHandle;
let app: App;
let cookie: string;
/** The server's log, as JSON lines (warn and above). */
const logLines: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(statement);
  await client.end();
}

interface Outcome {
  at: number;
  status: number;
  body: string;
}

describe.skipIf(!adminUrl)('PostgreSQL restarted under load', () => {
  beforeAll(async () => {
    await admin(`create database "${name}"`);
    const target = new URL(adminUrl!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(adminUrl!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    viaProxy.pathname = `/${name}`;
    database = await openDatabase({
      databaseUrl: viaProxy.toString(),
      maxConnections: 4,
      onConnectionError: () => undefined,
    });
    await database.migrate();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: '.data-test/restart',
      LOG_LEVEL: 'warn',
      MARKET_DATA: 'demo',
      DATABASE_URL: viaProxy.toString(),
    });
    app = await buildApp({ config, database, webRoot: null, logStream });
    await app.ready();
    const { browser } = await subscribedUser(
      { app, database: { ...database, truncateAll: () => Promise.resolve() }, config, close: () => Promise.resolve() },
      'restart@example.com',
    );
    // The session cookie alone, without Better Auth's cached copy (session_data): every request
    // then reads the session from the database, which is what this test cuts.
    cookie = browser.cookieHeader
      .split('; ')
      .filter((pair) => !pair.startsWith('better-auth.session_data='))
      .join('; ');
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await proxy?.close();
    if (adminUrl) await admin(`drop database if exists "${name}" with (force)`);
  });

  it('fails cleanly while it is down and recovers by itself', async () => {
    // Everything the server says goes through its logger: nothing straight to the console.
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method),
    );
    const outcomes: Outcome[] = [];
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    const worker = async () => {
      while (elapsed() < 7_000) {
        for (const url of ['/prompts', '/healthz', '/api/me', '/api/watchlists/chart']) {
          const response = await app.inject({ method: 'GET', url, headers: { cookie } });
          outcomes.push({ at: elapsed(), status: response.statusCode, body: response.body });
        }
      }
    };
    const load = Promise.all([worker(), worker(), worker()]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    proxy.cut();
    const cutAt = elapsed();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    proxy.restore();
    const restoredAt = elapsed();
    await load;

    const before = outcomes.filter((outcome) => outcome.at < cutAt);
    const during = outcomes.filter((outcome) => outcome.at > cutAt + 200 && outcome.at < restoredAt);
    const lastSecond = outcomes.filter((outcome) => outcome.at > elapsed() - 1_000);
    expect(before.length).toBeGreaterThan(10);
    expect(before.every((outcome) => outcome.status === 200)).toBe(true);

    // Down: every answer is a clean JSON 503 naming the cause, never a crash or a misleading 401.
    expect(during.length).toBeGreaterThan(10);
    for (const outcome of during) {
      expect(outcome.status, outcome.body).toBe(503);
      expect(typeof (JSON.parse(outcome.body) as { error?: unknown }).error).toBe('string');
    }
    // Back: the pool reconnects on its own.
    expect(lastSecond.length).toBeGreaterThan(10);
    expect(lastSecond.filter((outcome) => outcome.status !== 200)).toEqual([]);

    expect(consoleCalls.flatMap((spy) => spy.mock.calls)).toEqual([]);
    const entries = logLines.map((line) => JSON.parse(line) as { level: number; component?: string; msg: string });
    expect(entries.some((entry) => entry.level >= 50)).toBe(true);
    // Better Auth's own messages are among them, and no failed query's parameters (the
    // session token the session lookup was given) reach the log.
    expect(entries.some((entry) => entry.component === 'better-auth' && entry.level >= 50)).toBe(true);
    const sessionToken = decodeURIComponent(/session_token=([^;]+)/.exec(cookie)![1]!).split('.')[0]!;
    expect(sessionToken.length).toBeGreaterThan(16);
    expect(logLines.filter((line) => line.includes(sessionToken))).toEqual([]);
    for (const spy of consoleCalls) spy.mockRestore();
  }, 60_000);
});
