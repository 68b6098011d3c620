// Whole-product load on the real server: src/server/main.ts started as child processes
// exactly as `npm start` runs it (built web app, demo market data, the alert engine running,
// TEST_HOOKS for alert pushes), so each server's memory (VmRSS from /proc) and event-loop
// delay (bench/eventLoopProbe.mjs, preloaded) are its own. Three phases, 1,000 subscribers
// each (BENCH_SUBSCRIBERS), every phase on a fresh database:
//   1. one instance on the embedded PGlite (fresh DATA_DIR);
//   2. one instance on PostgreSQL and Redis (fresh database load_bench_*, its own Redis
//      prefix): the peer of phase 3;
//   3. two instances on PostgreSQL and Redis (another fresh database and prefix), the
//      subscribers spread over them (subscriber i talks to instance i mod 2, as a sticky load
//      balancer would send it), alerts pushed on either reaching the streams of both.
// Phases 2 and 3 need TEST_DATABASE_URL and TEST_REDIS_URL; without them they are skipped
// (said so). BENCH_PHASES=pglite,postgres-1,postgres-2 picks phases.
//
// Subscribers (the fast path, so that creating 1,000 does not dominate the run): before a
// phase's servers start, the bench opens the phase's database with the server's own code
// (openDatabase, migrate, seedPlans) and creates the accounts as `npm run admin -- create-user
// --verified` and `grant --plan 3day` do: the first through createUser (Better Auth's sign-up,
// a real scrypt hash of the password), the others through Better Auth's internal adapter with
// that same hash (same password, so the stored credential is one Better Auth itself wrote
// and verifies), then grantPlan. A real sign-in over HTTP (POST /api/auth/sign-in/email: the
// scrypt check, the rate limits, the session cookie) is done by BENCH_LOGINS subscribers (50
// by default): each costs about 0.1 to 0.3 s of server CPU (scrypt N=16384, r=16, in the
// thread pool), so 1,000 would take minutes on 2 cores; the sign-in latency is printed. The
// other subscribers get their session from Better Auth's internal adapter (createSession, what
// the sign-in does after the password check), with the cookie signed as Better Auth signs it.
// Every subscriber then calls GET /api/me over HTTP and must come back signed in with its
// subscription before the load starts.
//
// The load, 60 s (BENCH_LOAD_SECONDS), every subscriber at once: loads '/' and '/dashboard'
// with the assets a browser fetches for them, polls the prices every 30 s and the alert log
// every 10 s, holds the tab's one live connection open (GET /api/live: the default
// watchlists' ticks, the alerts, the rule firings), sends a chat message every
// 20 s (reading the answer's stream to the end) and uploads a small CSV every 30 s; five
// alerts are pushed during the run. Each subscriber has its own address (X-Forwarded-For) and
// its own keep-alive connections, like a browser at home; a request sent on a keep-alive
// socket the server had closed meanwhile is sent once more, as browsers do (counted).
// Measured per phase: requests, 5xx, 429 and other non-2xx by kind, p50/p95 latency by kind;
// lost uploads (each 2xx upload must be listed by GET /files with its size and download with
// its exact bytes); alert delivery (every stream must receive every pushed alert); each
// server's event-loop delay p99 over the load window (peer: the same server idle, just
// before); each server's RSS at the start of the load, at its peak, and after a full garbage
// collection at the end (bench/serverMemoryProbe.ts collects on SIGURG). The client: one
// Node process drives every subscriber; its CPU share and its own event-loop delay over the
// load are printed, since on 2 cores it competes with the servers and its delay is part of
// every latency it measures.
// The servers' CPU time (user + system of the whole process, every thread: PGlite's included)
// over the window, divided by the requests answered in it, is printed against its target, with
// the machine's load averages at the start and the end of the window (the box is often shared).
// The cookie jar keeps every Set-Cookie as a browser does (Max-Age and Expires honoured), so
// Better Auth's session cookie cache (a signed `session_data` cookie) is sent back like a
// browser sends it; the share of signed-in requests that carried it is printed.
// Targets: zero 5xx, 429, other non-2xx and unanswered requests; zero lost uploads; every
// push on every stream; server event-loop delay p99 under 50 ms; at most 1.5 ms of server CPU
// a request answered; memory flat (RSS after a full collection at the end within max(50 MB,
// 15%) of the same reading at the start); two instances' p95 over all requests no higher than
// one instance's on the same database kind.
// Loopback only; bounded (a watchdog stops everything after 40 minutes).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { ALERT_TYPES, DEFAULT_ALERTS_WATCHLIST, DEFAULT_CHART_WATCHLIST } from '../src/shared/constants.ts';
import { createAuth, createSessionChanges, createUser } from '../src/server/auth/service.ts';
import { grantPlan, seedPlans } from '../src/server/billing/service.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { account } from '../src/server/db/schema.ts';
import { freePort } from '../src/server/testing/ports.ts';
import { multipartBody, type MultipartPart } from '../src/server/testing/spreadsheets.ts';
import { percentile, report } from './report.ts';
import { readProcStat, readRss } from './procStatus.ts';
import { signedCookieValue } from './subscriber.ts';
import { MEMORY_PROBE_MARKER, type MemoryReading } from './serverMemoryProbe.ts';
import type { Mailer } from '../src/server/mail/service.ts';

const USERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
/** Subscribers that sign in over HTTP with their password; the rest get a session made directly. */
const LOGINS = Math.min(USERS, Number(process.env.BENCH_LOGINS ?? 50));
const LOAD_MS = Number(process.env.BENCH_LOAD_SECONDS ?? 60) * 1000;
const PHASE_NAMES = ['pglite', 'postgres-1', 'postgres-2'] as const;
type PhaseName = (typeof PHASE_NAMES)[number];
const PHASES = (process.env.BENCH_PHASES ?? PHASE_NAMES.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name): name is PhaseName => (PHASE_NAMES as readonly string[]).includes(name));
/** First port of the servers (instance i listens on LOAD_BENCH_PORT + i); a free port otherwise. */
const BASE_PORT = process.env.LOAD_BENCH_PORT ? Number(process.env.LOAD_BENCH_PORT) : null;
/** More Node options for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where their time goes. */
const SERVER_NODE_ARGS = (process.env.LOAD_BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
const IDLE_MS = 10_000;
/** Requests of the setup and the checks in flight at once. */
const SETUP_CONCURRENCY = 25;
/** Real sign-ins at once (each is a scrypt check in the server's thread pool). */
const LOGIN_CONCURRENCY = 4;
/** Per subscriber, like TanStack Query's refetchInterval in the dashboard. */
const PRICES_EVERY_MS = 30_000;
const ALERTS_EVERY_MS = 10_000;
const CHAT_EVERY_MS = 20_000;
const UPLOAD_EVERY_MS = 30_000;
/** Streams open over this long from the start of the load. */
const STREAMS_OPEN_MS = 5_000;
/** When the alerts are pushed, from the start of the load (every stream is open by 5 s). */
const PUSH_AT_MS = [0.2, 0.37, 0.53, 0.7, 0.87].map((share) => Math.max(STREAMS_OPEN_MS + 5000, share * LOAD_MS));
/** Unloaded peer: requests to the prices route, one at a time, before the load. */
const PEER_REQUESTS = 200;
const REQUEST_TIMEOUT_MS = 30_000;
/** In-flight requests get this long to finish after the load window closes. */
const DRAIN_MS = 30_000;
const MEMORY_FLAT_BYTES = 50 * 1024 * 1024;
const MEMORY_FLAT_SHARE = 0.15;
const EVENT_LOOP_P99_TARGET_MS = 50;
/** Server CPU time (user + system, every thread, all instances) per request answered in the window (issue 35). */
const SERVER_CPU_PER_REQUEST_TARGET_MS = 1.5;
/** A first PGlite start (migrations, demo data) beside other work on a busy 2-core machine. */
const START_TIMEOUT_MS = 180_000;
/** The alert engine backfills history at start-up; the load starts once the servers are idle. */
const SETTLE_TIMEOUT_MS = 90_000;
const WATCHDOG_MS = 40 * 60_000;
const PASSWORD = 'load-bench-password';
const EVENT_LOOP_MARKER = 'EVENT_LOOP_DELAY';
/** The event-loop probe's signal (bench/eventLoopProbe.mjs). */
const EVENT_LOOP_SIGNAL = 'SIGWINCH';
const QUESTIONS = [
  'What are the odds for BTC?',
  'How is ETH doing?',
  'Support and resistance for SOL',
  "Summarize today's alerts",
  'Compare BTC and ETH',
  'What is the trend of DOGE on the 1h chart?',
  'What are the odds for AAPL?',
];

type Kind = 'page' | 'asset' | 'prices' | 'alerts' | 'stream' | 'chat' | 'upload' | 'push';
const KINDS: Kind[] = ['page', 'asset', 'prices', 'alerts', 'stream', 'chat', 'upload', 'push'];

const here = dirname(fileURLToPath(import.meta.url));
const runId = randomBytes(4).toString('hex');
const servers: Instance[] = [];
const scratch: string[] = [];
const databasesToDrop: string[] = [];
const adminUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/** Requests sent again after a stale keep-alive socket (see Subscriber.open), this phase. */
const retries = { count: 0 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(value < 10 ? 1 : 0)} ms`);
const loads = (averages: number[]) => averages.map((average) => average.toFixed(2)).join(' ');
const seconds = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function cleanUp(): Promise<void> {
  await Promise.all(servers.map((server) => server.stop()));
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  for (const name of databasesToDrop.splice(0))
    await adminQuery(`drop database if exists "${name}" with (force)`).catch((error: unknown) =>
      console.error(`could not drop ${name}: ${error instanceof Error ? error.message : String(error)}`),
    );
}

const watchdog = setTimeout(() => {
  console.error(`load bench still running after ${WATCHDOG_MS / 60_000} min: stopping.`);
  for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

/** CPU time (user + system, in clock ticks of 1/100 s) a process has used so far. */
function readCpuTicks(pid: number): number | null {
  return readProcStat(`/proc/${pid}/stat`)?.cpuTicks ?? null;
}

// ---------------------------------------------------------------------------------------
// Requests: one keep-alive agent, cookie jar and address per subscriber (a browser at home).

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

interface KindStats {
  latencies: number[];
  statuses: Map<number, number>;
  /** Connection failures and timeouts (no HTTP status). */
  failures: number;
}

class Recorder {
  readonly byKind = new Map<Kind, KindStats>(
    KINDS.map((kind) => [kind, { latencies: [], statuses: new Map(), failures: 0 }]),
  );
  /** Server-sent answers that ended without finishing (an error chunk or no finish). */
  brokenStreams = 0;
  firstTokens: number[] = [];
  examples: string[] = [];

  status(kind: Kind, status: number, latency: number, detail: string): void {
    const stats = this.byKind.get(kind)!;
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
    stats.latencies.push(latency);
    if ((status < 200 || status >= 300) && this.examples.length < 20)
      this.examples.push(`${kind} ${status}: ${detail.slice(0, 300)}`);
  }

  failure(kind: Kind, error: unknown): void {
    this.byKind.get(kind)!.failures += 1;
    if (this.examples.length < 20)
      this.examples.push(`${kind} failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  count(kind: Kind, test: (status: number) => boolean): number {
    let total = 0;
    for (const [status, count] of this.byKind.get(kind)!.statuses) if (test(status)) total += count;
    return total;
  }

  total(test: (status: number) => boolean): number {
    return KINDS.reduce((sum, kind) => sum + this.count(kind, test), 0);
  }
}

/** The routes that read the session (pages and assets do not); only their requests are counted below. */
const SESSION_ROUTES = /^\/(api|external-api|files|upload)(\/|\?|$)/;
/** Session-reading requests sent with a session cookie, and those of them that carried Better Auth's cookie cache too. */
const sessionCache = { withSession: 0, withCache: 0 };
const SESSION_DATA_COOKIE = /(^|\.)session_data(\.\d+)?$/;

class Subscriber {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 6 });
  /** The cookie jar: name -> value and when it expires (performance.now(); Infinity for a session cookie). */
  readonly cookies = new Map<string, { value: string; expires: number }>();
  readonly ip: string;
  readonly email: string;
  id = '';
  conversationId = '';
  readonly history: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  readonly uploads: Array<{ id: string; name: string; bytes: Buffer }> = [];
  /** Pushed-alert messages this subscriber's stream received. */
  readonly received = new Set<string>();
  stream: { close: () => void; closedEarly: boolean } | null = null;
  /** Set once its session is checked (GET /api/me): from then on its requests count in `sessionCache`. */
  signedIn = false;

  constructor(
    readonly index: number,
    readonly origin: string,
    phase: string,
  ) {
    this.ip = `10.${(index >> 8) & 255}.${index & 255}.${(index % 250) + 2}`;
    this.email = `load-${runId}-${phase}-${index}@example.com`;
  }

  /** The Cookie header a browser would send now: expired cookies dropped from the jar. */
  get cookieHeader(): string {
    const now = performance.now();
    const pairs: string[] = [];
    for (const [name, cookie] of this.cookies) {
      if (cookie.expires <= now) this.cookies.delete(name);
      else pairs.push(`${name}=${cookie.value}`);
    }
    return pairs.join('; ');
  }

  setCookie(name: string, value: string): void {
    this.cookies.set(name, { value, expires: Number.POSITIVE_INFINITY });
  }

  /**
   * Every Set-Cookie kept as a browser keeps it (RFC 6265 5.3): a new value replaces the old,
   * Max-Age (which wins over Expires) or Expires sets when it goes, and an empty value or an
   * expiry in the past deletes it. Better Auth's session cookie cache (`session_data`, signed,
   * Max-Age SESSION_CACHE_SECONDS) arrives this way and goes back on the next request.
   */
  private keepCookies(headers: IncomingHttpHeaders): void {
    const now = performance.now();
    for (const line of headers['set-cookie'] ?? []) {
      const [pair, ...attributes] = line.split(';');
      const cut = pair!.indexOf('=');
      if (cut <= 0) continue;
      const name = pair!.slice(0, cut).trim();
      const value = pair!.slice(cut + 1).trim();
      let expires = Number.POSITIVE_INFINITY;
      let maxAge: number | null = null;
      for (const attribute of attributes) {
        const [key, ...rest] = attribute.trim().split('=');
        const text = rest.join('=').trim();
        if (/^max-age$/i.test(key!) && /^-?\d+$/.test(text)) maxAge = Number(text);
        else if (/^expires$/i.test(key!)) {
          const at = Date.parse(text);
          if (!Number.isNaN(at)) expires = now + (at - Date.now());
        }
      }
      if (maxAge !== null) expires = now + maxAge * 1000;
      if (value === '' || expires <= now) this.cookies.delete(name);
      else this.cookies.set(name, { value, expires });
    }
  }

  /**
   * Opens a request; resolves with the response once its headers arrive. A request sent on a
   * reused keep-alive socket that the server closed meanwhile (reset or hung up before any
   * answer) is sent once more on a new socket, as browsers do; `retries` counts them.
   */
  open(
    method: string,
    path: string,
    headers: Record<string, string | number> = {},
    body?: Buffer,
    retry = true,
  ): Promise<{ response: IncomingMessage; started: number }> {
    const url = new URL(path, this.origin);
    const cookie = this.cookieHeader;
    if (this.signedIn && SESSION_ROUTES.test(path) && cookie.includes('session_token=')) {
      sessionCache.withSession += 1;
      if (cookie.split('; ').some((pair) => SESSION_DATA_COOKIE.test(pair.slice(0, pair.indexOf('=')))))
        sessionCache.withCache += 1;
    }
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            origin: this.origin,
            'x-forwarded-for': this.ip,
            'user-agent': 'watos-load-bench',
            ...(cookie ? { cookie } : {}),
            ...(body ? { 'content-length': body.length } : {}),
            ...headers,
          },
        },
        (response) => {
          this.keepCookies(response.headers);
          resolve({ response, started });
        },
      );
      outgoing.setTimeout(REQUEST_TIMEOUT_MS, () =>
        outgoing.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
      );
      // `on`, not `once`: a request destroyed on its timeout can emit a second error (socket hang up).
      let settled = false;
      outgoing.on('response', () => (settled = true));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        settled = true;
        const stale = error.code === 'ECONNRESET' || error.message === 'socket hang up';
        if (retry && stale && outgoing.reusedSocket) {
          retries.count += 1;
          this.open(method, path, headers, body, false).then(resolve, reject);
        } else reject(error);
      });
      outgoing.end(body);
    });
  }

  async send(
    method: string,
    path: string,
    headers: Record<string, string | number> = {},
    body?: Buffer,
  ): Promise<Reply> {
    const { response, started } = await this.open(method, path, headers, body);
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return {
      status: response.statusCode ?? 0,
      headers: response.headers,
      body: Buffer.concat(chunks),
      ms: performance.now() - started,
    };
  }

  json(method: string, path: string, value: unknown): Promise<Reply> {
    return this.send(method, path, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(value)));
  }

  close(): void {
    this.stream?.close();
    this.agent.destroy();
  }
}

/** A small trade log, different for every upload. */
function tradeCsv(user: Subscriber, sequence: number): Buffer {
  const symbols = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'DOGE-USD'];
  const lines = ['date,symbol,side,quantity,price,note'];
  const rows = 20 + ((user.index * 7 + sequence * 13) % 40);
  for (let row = 0; row < rows; row += 1) {
    const day = String(1 + (row % 28)).padStart(2, '0');
    const price = (100 + ((user.index * 31 + row * 17 + sequence) % 900) + row / 100).toFixed(2);
    lines.push(
      `2026-01-${day},${symbols[row % symbols.length]},${row % 2 ? 'sell' : 'buy'},${1 + (row % 5)},${price},u${user.index}-s${sequence}-r${row}-${randomBytes(4).toString('hex')}`,
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

// ---------------------------------------------------------------------------------------
// The web app as a browser loads it: index.html, what it references, and the route's chunks.

function pageAssets(webRoot: string): { landing: string[]; dashboard: string[] } {
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  const fromHtml = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);
  const manifestPath = join(webRoot, '.vite', 'manifest.json');
  const closure = (entry: string): string[] => {
    if (!existsSync(manifestPath)) return [];
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<
      string,
      { file: string; imports?: string[]; css?: string[] }
    >;
    const seen = new Set<string>();
    const files: string[] = [];
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk || seen.has(key)) return;
      seen.add(key);
      files.push(`/${chunk.file}`, ...(chunk.css ?? []).map((css) => `/${css}`));
      for (const child of chunk.imports ?? []) visit(child);
    };
    visit(entry);
    return files;
  };
  const landing = [...new Set([...fromHtml, ...closure('src/web/pages/LandingPage.tsx')])];
  const dashboard = closure('src/web/pages/DashboardPage.tsx').filter((file) => !landing.includes(file));
  return { landing, dashboard };
}

// ---------------------------------------------------------------------------------------
// Setup: accounts, plans and sessions written with the server's own code (the fast path).

/** What a phase's servers are started with (besides PORT and HOST). */
interface ServerEnvironment {
  DATA_DIR: string;
  DATABASE_URL: string;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  AUTH_SECRET: string;
}

async function expectOk(what: string, reply: Promise<Reply>, wanted: number[] = [200]): Promise<Reply> {
  const answer = await reply;
  if (!wanted.includes(answer.status))
    throw new Error(`${what} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
  return answer;
}

/**
 * Creates every subscriber's account (e-mail verified) and grants it 3-Day Access, as `npm run
 * admin -- create-user --verified` and `grant --plan 3day` do; subscribers past LOGINS also
 * get a session (Better Auth's createSession) and its signed cookie. Runs before the servers
 * start (PGlite serves one process at a time).
 */
async function prepareSubscribers(environment: ServerEnvironment, users: Subscriber[]): Promise<void> {
  const config = loadConfig({ ...environment, MARKET_DATA: 'demo', LOG_LEVEL: 'warn' });
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDir: join(config.dataDir, 'db') });
  const toStderr = (fields: object, message: string) => console.error(message, fields);
  const log = { debug: () => undefined, info: () => undefined, warn: toStderr, error: toStderr };
  try {
    await database.migrate();
    await seedPlans(database.db, config);
    const mailer: Mailer = { kind: 'outbox', send: async () => undefined, close: async () => undefined };
    const auth = createAuth({
      config,
      db: database.db,
      mailer,
      secret: environment.AUTH_SECRET,
      log,
      sessionChanges: createSessionChanges(),
    });
    const context = await auth.$context;
    const [first, ...others] = users;
    first!.id = (
      await createUser(auth, database.db, {
        email: first!.email,
        password: PASSWORD,
        username: `trader${first!.index}`,
        verified: true,
      })
    ).id;
    const [credential] = await database.db
      .select({ password: account.password })
      .from(account)
      .where(eq(account.userId, first!.id));
    if (!credential?.password) throw new Error('createUser stored no password hash');
    await inBatches(others, 8, async (user) => {
      const username = `trader${user.index}`;
      const created = await context.internalAdapter.createUser(
        {
          email: user.email,
          name: username,
          username,
          emailVerified: true,
        },
        { method: 'email-password' },
      );
      user.id = created.id;
      await context.internalAdapter.linkAccount({
        userId: created.id,
        providerId: 'credential',
        accountId: created.id,
        password: credential.password!,
      });
    });
    await inBatches(users, 8, async (user) => {
      await grantPlan(database.db, user.id, '3day');
    });
    const cookieName = context.authCookies.sessionToken.name;
    await inBatches(users.slice(LOGINS), 8, async (user) => {
      const session = await context.internalAdapter.createSession(user.id);
      user.setCookie(cookieName, signedCookieValue(session.token, environment.AUTH_SECRET));
    });
  } finally {
    await database.close();
  }
}

async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

// ---------------------------------------------------------------------------------------
// What a subscriber does.

async function timed(recorder: Recorder | null, kind: Kind, run: () => Promise<Reply>): Promise<Reply | null> {
  try {
    const reply = await run();
    recorder?.status(kind, reply.status, reply.ms, reply.body.toString().slice(0, 300));
    return reply;
  } catch (error) {
    recorder?.failure(kind, error);
    return null;
  }
}

async function loadPage(user: Subscriber, recorder: Recorder | null, path: string, assets: string[]): Promise<void> {
  const accept = { accept: 'text/html,*/*', 'accept-encoding': 'br, gzip' };
  await timed(recorder, 'page', () => user.send('GET', path, accept));
  await Promise.all(
    assets.map((asset) => timed(recorder, 'asset', () => user.send('GET', asset, { 'accept-encoding': 'br, gzip' }))),
  );
}

async function chat(user: Subscriber, recorder: Recorder | null, sequence: number): Promise<void> {
  const question = QUESTIONS[(user.index + sequence) % QUESTIONS.length];
  const messages = [...user.history.slice(-4), { role: 'user' as const, content: question }];
  const parts: MultipartPart[] = [{ name: 'messages', value: JSON.stringify(messages) }];
  if (user.conversationId) parts.push({ name: 'conversation_id', value: user.conversationId });
  // One message in four carries the subscriber's trade log, as 'Analyze with AI' does.
  if (sequence % 4 === 3)
    parts.push({
      name: 'file',
      filename: `trades-${user.index}.csv`,
      contentType: 'text/csv',
      data: tradeCsv(user, 1000 + sequence),
    });
  const { body, contentType: type } = multipartBody(parts);
  try {
    const { response, started } = await user.open('POST', '/api/chat', { 'content-type': type }, body);
    let text = '';
    let firstToken = NaN;
    for await (const chunk of response) {
      text += (chunk as Buffer).toString();
      if (Number.isNaN(firstToken) && text.includes('"type":"text-delta"')) firstToken = performance.now() - started;
    }
    const status = response.statusCode ?? 0;
    recorder?.status('chat', status, performance.now() - started, text.slice(0, 300));
    if (status !== 200) return;
    if (!Number.isNaN(firstToken)) recorder?.firstTokens.push(firstToken);
    const finished = text.includes('"type":"finish"') && !text.includes('"type":"error"');
    if (!finished && recorder) {
      recorder.brokenStreams += 1;
      if (recorder.examples.length < 20) recorder.examples.push(`chat stream did not finish: ${text.slice(-300)}`);
    }
    const answer = [...text.matchAll(/"type":"text-delta"[^\n]*?"delta":("(?:[^"\\]|\\.)*")/g)]
      .map((match) => JSON.parse(match[1]!) as string)
      .join('');
    const conversation = response.headers['x-conversation-id'];
    if (typeof conversation === 'string') user.conversationId = conversation;
    user.history.push({ role: 'user', content: question! }, { role: 'assistant', content: answer.slice(0, 2000) });
  } catch (error) {
    recorder?.failure('chat', error);
  }
}

async function upload(user: Subscriber, recorder: Recorder | null, sequence: number): Promise<void> {
  const name = `trades-${user.index}-${sequence}.csv`;
  const bytes = tradeCsv(user, sequence);
  const { body, contentType: type } = multipartBody([
    { name: 'user_id', value: user.id },
    { name: 'file', filename: name, contentType: 'text/csv', data: bytes },
  ]);
  const reply = await timed(recorder, 'upload', () => user.send('POST', '/upload', { 'content-type': type }, body));
  if (reply && reply.status >= 200 && reply.status < 300) {
    const { file } = JSON.parse(reply.body.toString()) as { file: { id: string } };
    user.uploads.push({ id: file.id, name, bytes });
  }
}

/** What a dashboard tab's one live connection carries: the ticks of both default watchlists' symbols. */
const LIVE_PATH = `/api/live?symbols=${encodeURIComponent([...DEFAULT_CHART_WATCHLIST, ...DEFAULT_ALERTS_WATCHLIST].join(','))}`;

/**
 * Opens the subscriber's live connection (as the dashboard does: ticks of the watchlists' symbols,
 * alerts, rule firings); records pushed alerts it receives until closed.
 */
async function openStream(user: Subscriber, recorder: Recorder | null, pushMarker: string): Promise<void> {
  try {
    const { response, started } = await user.open('GET', LIVE_PATH, { accept: 'text/event-stream' });
    recorder?.status('stream', response.statusCode ?? 0, performance.now() - started, '');
    if (response.statusCode !== 200) {
      response.resume();
      return;
    }
    const state = { closedEarly: false, closing: false, close: () => {} };
    state.close = () => {
      state.closing = true;
      response.destroy();
    };
    user.stream = state;
    let buffer = '';
    response.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (data && event.includes('event: alert')) {
          const message = (JSON.parse(data) as { message?: string }).message ?? '';
          if (message.includes(pushMarker)) user.received.add(message);
        }
        cut = buffer.indexOf('\n\n');
      }
    });
    response.once('close', () => {
      if (!state.closing) state.closedEarly = true;
    });
    response.once('error', () => {
      if (!state.closing) state.closedEarly = true;
    });
  } catch (error) {
    recorder?.failure('stream', error);
  }
}

/** Repeats `action` every `everyMs` (+-10%) from `phase` until `until`, as a refetch interval does. */
async function every(
  phase: number,
  everyMs: number,
  until: number,
  action: (sequence: number) => Promise<void>,
): Promise<void> {
  let next = performance.now() + phase;
  for (let sequence = 0; next < until; sequence += 1) {
    await sleep(next - performance.now());
    if (performance.now() >= until) return;
    await action(sequence);
    next += everyMs * (0.9 + Math.random() * 0.2);
  }
}

// ---------------------------------------------------------------------------------------

/** The statuses other than 2xx by code, e.g. " (408: 12, 503: 3)"; empty when there are none. */
function statusBreakdown(recorder: Recorder): string {
  const counts = new Map<number, number>();
  for (const stats of recorder.byKind.values())
    for (const [status, count] of stats.statuses)
      if (status < 200 || status >= 300) counts.set(status, (counts.get(status) ?? 0) + count);
  if (counts.size === 0) return '';
  const parts = [...counts].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
  return ` (${parts.join(', ')})`;
}

function summarise(recorder: Recorder): void {
  console.log('kind        requests       2xx   5xx   429   other non-2xx  no answer   p50 ms   p95 ms');
  for (const kind of KINDS) {
    const stats = recorder.byKind.get(kind)!;
    const requests = stats.latencies.length + stats.failures;
    if (requests === 0) continue;
    console.log(
      `${kind.padEnd(10)} ${String(requests).padStart(9)} ${String(recorder.count(kind, (s) => s >= 200 && s < 300)).padStart(9)} ${String(recorder.count(kind, (s) => s >= 500)).padStart(5)} ${String(recorder.count(kind, (s) => s === 429)).padStart(5)} ${String(recorder.count(kind, (s) => (s < 200 || s >= 300) && s < 500 && s !== 429)).padStart(15)} ${String(stats.failures).padStart(10)} ${percentile(stats.latencies, 0.5).toFixed(1).padStart(8)} ${percentile(stats.latencies, 0.95).toFixed(1).padStart(8)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------
// A server process with its probes.

interface RssSample {
  at: number;
  bytes: number;
}

interface LoopReading {
  p99: number;
  max: number;
  samples: number;
}

const MEMORY_PROBE = join(here, 'serverMemoryProbe.ts');
const EVENT_LOOP_PROBE = join(here, 'eventLoopProbe.mjs');

class Instance {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly log: string[] = [];
  /** The last lines it printed, for a start that fails. */
  readonly tail: string[] = [];
  errors = 0;
  readonly samples: RssSample[] = [];
  private partial = '';
  private readonly memoryWaiters: Array<(reading: MemoryReading) => void> = [];
  private readonly loopWaiters: Array<(reading: LoopReading) => void> = [];
  private readonly sampler: NodeJS.Timeout;

  constructor(
    readonly label: string,
    readonly origin: string,
    port: number,
    environment: ServerEnvironment,
  ) {
    this.child = spawn(
      process.execPath,
      [
        '--expose-gc',
        ...SERVER_NODE_ARGS,
        '--import',
        'tsx',
        '--import',
        MEMORY_PROBE,
        '--import',
        EVENT_LOOP_PROBE,
        'src/server/main.ts',
      ],
      {
        env: {
          ...process.env,
          ...environment,
          PORT: String(port),
          HOST: '127.0.0.1',
          MARKET_DATA: 'demo',
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          TEST_HOOKS: 'true',
          EVENT_LOOP_PROBE_SIGNAL: EVENT_LOOP_SIGNAL,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.pid = this.child.pid!;
    // Warnings and errors the server logs (pino JSON at level 40+): the evidence for a 5xx.
    const onOutput = (chunk: Buffer) => {
      this.partial += chunk.toString();
      const lines = this.partial.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        this.tail.push(line.slice(0, 600));
        if (this.tail.length > 20) this.tail.shift();
        if (line.startsWith(`${MEMORY_PROBE_MARKER} `)) {
          this.memoryWaiters.shift()?.(JSON.parse(line.slice(MEMORY_PROBE_MARKER.length + 1)) as MemoryReading);
          continue;
        }
        if (line.startsWith(`${EVENT_LOOP_MARKER} `)) {
          this.loopWaiters.shift()?.(JSON.parse(line.slice(EVENT_LOOP_MARKER.length + 1)) as LoopReading);
          continue;
        }
        const level = /"level":(\d+)/.exec(line)?.[1];
        if (level && Number(level) >= 50) this.errors += 1;
        if ((level && Number(level) >= 40) || /error/i.test(line)) {
          if (this.log.length < 30) this.log.push(line.slice(0, 600));
        }
      }
    };
    this.child.stdout!.on('data', onOutput);
    this.child.stderr!.on('data', onOutput);
    this.sampler = setInterval(() => {
      const bytes = readRss(this.pid);
      if (bytes !== null) this.samples.push({ at: performance.now(), bytes });
    }, 1000);
    this.sampler.unref();
  }

  async ready(): Promise<void> {
    const started = performance.now();
    for (;;) {
      if (this.child.exitCode !== null)
        throw new Error(
          `${this.label} exited with ${this.child.exitCode} before it was ready:\n${this.tail.join('\n')}`,
        );
      if (performance.now() - started > START_TIMEOUT_MS)
        throw new Error(`${this.label} did not answer /healthz within ${START_TIMEOUT_MS / 1000} s`);
      const healthy = await fetch(`${this.origin}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) return;
      await sleep(250);
    }
  }

  cpuTicks(): number {
    return readCpuTicks(this.pid) ?? 0;
  }

  /** A full garbage collection in the server, then its RSS once the freed pages are returned. */
  async collectedMemory(): Promise<MemoryReading & { vmRss: number }> {
    const reading = new Promise<MemoryReading>((resolve, reject) => {
      this.memoryWaiters.push(resolve);
      setTimeout(() => reject(new Error(`${this.label} did not answer the memory probe within 60 s`)), 60_000).unref();
    });
    process.kill(this.pid, 'SIGURG');
    const collected = await reading;
    await sleep(2000);
    return { ...collected, vmRss: readRss(this.pid) ?? NaN };
  }

  /** The server's event-loop delay since the previous call (the probe starts over). */
  eventLoop(): Promise<LoopReading> {
    const reading = new Promise<LoopReading>((resolve, reject) => {
      this.loopWaiters.push(resolve);
      setTimeout(
        () => reject(new Error(`${this.label} did not answer the event-loop probe within 60 s`)),
        60_000,
      ).unref();
    });
    process.kill(this.pid, EVENT_LOOP_SIGNAL);
    return reading;
  }

  stop(): Promise<void> {
    clearInterval(this.sampler);
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

// ---------------------------------------------------------------------------------------
// One phase: fresh database, its servers, its subscribers, the load, the checks.

interface PhaseResult {
  name: PhaseName;
  label: string;
  instances: Instance[];
  recorder: Recorder;
  requests: number;
  /** Requests answered (any status) per second of the load window. */
  throughput: number;
  p95All: number;
  fiveXx: number;
  tooMany: number;
  otherNon2xx: number;
  failures: number;
  brokenChats: number;
  lost: number;
  uploadsChecked: number;
  streamsOpened: number;
  streamsClosedEarly: number;
  complete: number;
  pushed: number;
  idleLoop: LoopReading[];
  loop: LoopReading[];
  memory: Array<{ start: number; end: number; peak: number; heapStart: number; heapEnd: number }>;
  unloadedP95: number;
  clientCpuShare: number;
  clientLoop: LoopReading;
  serverCpuShare: number[];
  /** Server and client CPU time per request answered in the window (all servers together). */
  serverCpuPerRequest: number;
  clientCpuPerRequest: number;
  /** Requests started per second of the window (answered or not). */
  offered: number;
  /** The machine's load averages (1, 5, 15 minutes) at the start and the end of the window (2 cores). */
  loadAverage: number[];
  loadAverageAtStart: number[];
  /** Share of signed-in requests in the window that carried Better Auth's session_data cookie. */
  cacheShare: number;
  signInP95: number;
}

const PHASE_LABELS: Record<PhaseName, string> = {
  pglite: '1 instance, PGlite',
  'postgres-1': '1 instance, PostgreSQL + Redis',
  'postgres-2': '2 instances, PostgreSQL + Redis',
};

async function runPhase(name: PhaseName, webRoot: string): Promise<PhaseResult> {
  const label = PHASE_LABELS[name];
  const count = name === 'postgres-2' ? 2 : 1;
  const phaseStarted = performance.now();
  console.log(`\n--- ${label}: ${USERS} subscribers, ${LOAD_MS / 1000} s ---`);
  let databaseUrl = '';
  let redisPrefix = '';
  if (name !== 'pglite') {
    const database = `load_bench_${runId}_${name.replace('-', '_')}`;
    await adminQuery(`create database "${database}"`);
    databasesToDrop.push(database);
    databaseUrl = withDatabase(adminUrl!, database);
    redisPrefix = `load:${runId}:${name}:`;
  }
  const secret = randomBytes(32).toString('base64url');
  const ports: number[] = [];
  for (let index = 0; index < count; index += 1) ports.push(BASE_PORT !== null ? BASE_PORT + index : await freePort());
  const environments: ServerEnvironment[] = ports.map(() => {
    const dataDir = mkdtempSync(join(tmpdir(), 'watos-load-'));
    scratch.push(dataDir);
    return {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: name === 'pglite' ? '' : redisUrl!,
      REDIS_PREFIX: redisPrefix,
      AUTH_SECRET: secret,
    };
  });
  const origins = ports.map((port) => `http://127.0.0.1:${port}`);
  const users = Array.from({ length: USERS }, (_, index) => new Subscriber(index, origins[index % count]!, name));
  retries.count = 0;

  try {
    // 1. Accounts, plans and sessions, before the servers start.
    const setupStarted = performance.now();
    await prepareSubscribers(environments[0]!, users);
    console.log(
      `${USERS} subscribers created (e-mail verified), granted 3-Day Access${USERS > LOGINS ? `, ${USERS - LOGINS} sessions made` : ''} in ${seconds(setupStarted)}.`,
    );

    // 2. The servers.
    const bootStarted = performance.now();
    const instances = environments.map(
      (environment, index) => new Instance(`server ${index + 1}`, origins[index]!, ports[index]!, environment),
    );
    servers.push(...instances);
    await Promise.all(instances.map((instance) => instance.ready()));
    console.log(
      `${count === 1 ? 'Server' : `${count} servers`}: src/server/main.ts (pid ${instances.map((instance) => instance.pid).join(', ')}) on ${origins.join(', ')}, ${name === 'pglite' ? 'PGlite in a fresh DATA_DIR' : `PostgreSQL (fresh database), Redis prefix ${redisPrefix}`}, demo data, alert engine on; ready in ${seconds(bootStarted)}.`,
    );

    // 3. Wait for the alert engine's start-up backfill to finish (every server's CPU goes quiet).
    const settleStarted = performance.now();
    let settled = false;
    let previous = instances.map((instance) => instance.cpuTicks());
    while (performance.now() - settleStarted < SETTLE_TIMEOUT_MS) {
      await sleep(1000);
      const ticks = instances.map((instance) => instance.cpuTicks());
      // Under 10% of one core each (clock ticks are 1/100 s).
      if (ticks.every((tick, index) => tick - previous[index]! <= 10)) {
        settled = true;
        break;
      }
      previous = ticks;
    }
    console.log(
      `${count === 1 ? 'Server' : 'Servers'} ${settled ? 'idle' : `still busy after ${SETTLE_TIMEOUT_MS / 1000} s (alert engine backfill): starting anyway`} ${seconds(settleStarted)} after they answered.`,
    );

    // 4. Real sign-ins over HTTP, then every subscriber's session checked.
    const signIns: number[] = [];
    const signInStarted = performance.now();
    await inBatches(users.slice(0, LOGINS), LOGIN_CONCURRENCY, async (user) => {
      const reply = await expectOk(
        'sign-in',
        user.json('POST', '/api/auth/sign-in/email', { email: user.email, password: PASSWORD }),
      );
      signIns.push(reply.ms);
    });
    console.log(
      `${LOGINS} sign-ins over HTTP (${LOGIN_CONCURRENCY} at a time) in ${seconds(signInStarted)}: p50 ${ms(percentile(signIns, 0.5))}, p95 ${ms(percentile(signIns, 0.95))}.`,
    );
    const checkStarted = performance.now();
    await inBatches(users, SETUP_CONCURRENCY, async (user) => {
      const me = JSON.parse((await expectOk('/api/me', user.send('GET', '/api/me'))).body.toString()) as {
        user: { id: string } | null;
        subscription: unknown;
      };
      if (me.user?.id !== user.id || !me.subscription)
        throw new Error(`${user.email} is not signed in with a subscription: ${JSON.stringify(me).slice(0, 300)}`);
      user.signedIn = true;
    });
    console.log(`Every subscriber signed in with its subscription (GET /api/me, ${seconds(checkStarted)}).`);
    console.log(`Setup took ${seconds(setupStarted)} in all (the servers' start and backfill included).`);

    // 5. Warm-up: every route once per server, so first-use caches are not counted as growth.
    const assets = pageAssets(webRoot);
    const pushMarker = `load-bench-${runId}-${name}`;
    await Promise.all(
      users.slice(0, 4 * count).map(async (user, index) => {
        await loadPage(user, null, '/', assets.landing);
        await loadPage(user, null, '/dashboard', assets.dashboard);
        await expectOk('warm-up prices', user.send('GET', '/external-api/coinbase-prices'));
        await expectOk('warm-up alerts', user.send('GET', '/external-api/alert'));
        await chat(user, null, index);
        await upload(user, null, 100 + index);
      }),
    );

    // 6. The peers: event-loop delay idle, the prices route with nothing else going on.
    await Promise.all(instances.map((instance) => instance.eventLoop()));
    await sleep(5000);
    const idleLoop = await Promise.all(instances.map((instance) => instance.eventLoop()));
    const unloaded: number[] = [];
    for (let index = 0; index < PEER_REQUESTS; index += 1) {
      const reply = await expectOk(
        'unloaded prices',
        users[index % USERS]!.send('GET', '/external-api/coinbase-prices'),
      );
      unloaded.push(reply.ms);
    }
    const unloadedP95 = percentile(unloaded, 0.95);
    console.log(
      `Idle: event-loop delay p99 ${idleLoop.map((reading) => ms(reading.p99)).join(', ')}; GET /external-api/coinbase-prices, ${PEER_REQUESTS} requests one at a time: p50 ${ms(percentile(unloaded, 0.5))}, p95 ${ms(unloadedP95)}.`,
    );

    // 7. The load.
    const recorder = new Recorder();
    const memoryAtStart = await Promise.all(instances.map((instance) => instance.collectedMemory()));
    await Promise.all(instances.map((instance) => instance.eventLoop()));
    const clientLoop = monitorEventLoopDelay({ resolution: 10 });
    clientLoop.enable();
    const clientCpuAtStart = process.cpuUsage();
    const serverTicksAtStart = instances.map((instance) => instance.cpuTicks());
    const loadAverageAtStart = loadavg();
    sessionCache.withSession = 0;
    sessionCache.withCache = 0;
    const loadStarted = performance.now();
    const until = loadStarted + LOAD_MS;
    console.log(
      `Load: ${USERS} subscribers for ${LOAD_MS / 1000} s (server RSS at start ${memoryAtStart.map((reading) => mb(reading.vmRss)).join(', ')})...`,
    );
    const pushed: string[] = [];
    const pusher = (async () => {
      for (const [index, at] of PUSH_AT_MS.entries()) {
        await sleep(loadStarted + at - performance.now());
        const message = `${pushMarker} push ${index + 1}`;
        // Pushed through subscriber `index`, so with two servers both push in turn.
        const reply = await timed(recorder, 'push', () =>
          users[index % USERS]!.json('POST', '/api/test/alerts', {
            ticker: 'BTC',
            alert_type: ALERT_TYPES[index % ALERT_TYPES.length],
            message,
          }),
        );
        if (reply && reply.status === 200) pushed.push(message);
      }
    })();
    const sessions = users.map(async (user) => {
      await sleep((user.index / USERS) * STREAMS_OPEN_MS);
      await openStream(user, recorder, pushMarker);
      const pages = (async () => {
        await sleep(Math.random() * 10_000);
        await loadPage(user, recorder, '/', assets.landing);
        await sleep(1000 + Math.random() * 2000);
        await loadPage(user, recorder, '/dashboard', assets.dashboard);
      })();
      await Promise.all([
        pages,
        every(Math.random() * PRICES_EVERY_MS, PRICES_EVERY_MS, until, async () => {
          await timed(recorder, 'prices', () => user.send('GET', '/external-api/coinbase-prices'));
        }),
        every(Math.random() * ALERTS_EVERY_MS, ALERTS_EVERY_MS, until, async (sequence) => {
          const query = sequence % 3 === 2 ? '?max_count=50' : sequence % 3 === 1 ? '?symbol=BTC' : '';
          await timed(recorder, 'alerts', () => user.send('GET', `/external-api/alert${query}`));
        }),
        every(Math.random() * CHAT_EVERY_MS, CHAT_EVERY_MS, until, (sequence) => chat(user, recorder, sequence)),
        every(Math.random() * UPLOAD_EVERY_MS, UPLOAD_EVERY_MS, until, (sequence) => upload(user, recorder, sequence)),
      ]);
    });
    await sleep(until - performance.now());
    const loop = await Promise.all(instances.map((instance) => instance.eventLoop()));
    const serverCpuShare = instances.map(
      (instance, index) => (instance.cpuTicks() - serverTicksAtStart[index]!) / 100 / (LOAD_MS / 1000),
    );
    const clientCpu = process.cpuUsage(clientCpuAtStart);
    const clientCpuShare = (clientCpu.user + clientCpu.system) / 1e6 / (LOAD_MS / 1000);
    const loadAverage = loadavg();
    const cacheShare = sessionCache.withCache / Math.max(1, sessionCache.withSession);
    console.log(
      `Session cookie cache: ${sessionCache.withCache} of ${sessionCache.withSession} signed-in API requests in the window carried a session_data cookie (${(cacheShare * 100).toFixed(0)}%).`,
    );
    const answeredInWindow = KINDS.reduce((sum, kind) => sum + recorder.byKind.get(kind)!.latencies.length, 0);
    clientLoop.disable();
    const clientLoopReading: LoopReading = {
      p99: clientLoop.percentile(99) / 1e6,
      max: clientLoop.max / 1e6,
      samples: clientLoop.count,
    };
    const drained = await Promise.race([
      Promise.all([pusher, ...sessions]).then(() => true),
      sleep(until - performance.now() + DRAIN_MS).then(() => false),
    ]);
    const loadEnded = performance.now();
    await sleep(1000);
    for (const user of users) user.stream?.close();
    console.log(
      `Load window closed after ${((loadEnded - loadStarted) / 1000).toFixed(1)} s${drained ? '' : ` (requests still in flight ${DRAIN_MS / 1000} s after the window: counted as not answered)`}.`,
    );

    // 8. Idle, then the memory at rest.
    await sleep(IDLE_MS);
    const memoryAtEnd = await Promise.all(instances.map((instance) => instance.collectedMemory()));
    const memory = instances.map((instance, index) => {
      const during = instance.samples.filter((sample) => sample.at >= loadStarted && sample.at <= loadEnded);
      return {
        start: memoryAtStart[index]!.vmRss,
        end: memoryAtEnd[index]!.vmRss,
        peak: Math.max(memoryAtStart[index]!.vmRss, ...during.map((sample) => sample.bytes)),
        heapStart: memoryAtStart[index]!.heapUsed,
        heapEnd: memoryAtEnd[index]!.heapUsed,
      };
    });

    // 9. Every 2xx upload listed with its size and downloadable with its exact bytes.
    let uploadsChecked = 0;
    let lost = 0;
    const lostExamples: string[] = [];
    await inBatches(users, SETUP_CONCURRENCY, async (user) => {
      const listing = await user.send('GET', '/files').catch((error: unknown) => {
        if (lostExamples.length < 10) lostExamples.push(`${user.email}: GET /files failed: ${String(error)}`);
        return null;
      });
      const files =
        listing?.status === 200
          ? (
              JSON.parse(listing.body.toString()) as {
                files: Array<{ id: string; file_size: number; original_filename: string }>;
              }
            ).files
          : [];
      for (const sent of user.uploads) {
        uploadsChecked += 1;
        const listed = files.find((file) => file.id === sent.id);
        let problem = '';
        if (!listed)
          problem =
            listing?.status === 200
              ? 'not listed by GET /files'
              : `not checked: GET /files ${listing ? `answered ${listing.status}` : 'failed'}`;
        else if (listed.file_size !== sent.bytes.length)
          problem = `listed with ${listed.file_size} bytes, sent ${sent.bytes.length}`;
        else if (listed.original_filename !== sent.name) problem = `listed as ${listed.original_filename}`;
        else {
          let download: Reply | null = null;
          try {
            download = await user.send('GET', `/files/${sent.id}/download`);
          } catch (error) {
            problem = `download failed: ${error instanceof Error ? error.message : String(error)}`;
          }
          const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
          if (!download) problem ||= 'download failed';
          else if (download.status !== 200) problem = `download answered ${download.status}`;
          else if (digest(download.body) !== digest(sent.bytes)) problem = 'downloaded bytes differ from the upload';
        }
        if (problem) {
          lost += 1;
          if (lostExamples.length < 10) lostExamples.push(`${user.email} ${sent.name} (${sent.id}): ${problem}`);
        }
      }
    });

    // 10. Alert delivery.
    const streamsOpened = users.filter((user) => user.stream).length;
    const streamsClosedEarly = users.filter((user) => user.stream?.closedEarly).length;
    const complete = users.filter(
      (user) => user.stream && pushed.every((message) => user.received.has(message)),
    ).length;
    const deliveries = users.reduce(
      (sum, user) => sum + pushed.filter((message) => user.received.has(message)).length,
      0,
    );

    // What the phase measured.
    console.log('');
    summarise(recorder);
    const requests = KINDS.reduce(
      (sum, kind) => sum + recorder.byKind.get(kind)!.latencies.length + recorder.byKind.get(kind)!.failures,
      0,
    );
    const answered = KINDS.reduce((sum, kind) => sum + recorder.byKind.get(kind)!.latencies.length, 0);
    // Streams stay open for the whole window: their figure is the time to the response headers.
    const all = KINDS.flatMap((kind) => recorder.byKind.get(kind)!.latencies);
    const result: PhaseResult = {
      name,
      label,
      instances,
      recorder,
      requests,
      throughput: answered / (LOAD_MS / 1000),
      p95All: percentile(all, 0.95),
      fiveXx: recorder.total((status) => status >= 500),
      tooMany: recorder.total((status) => status === 429),
      otherNon2xx: recorder.total((status) => (status < 200 || status >= 300) && status < 500 && status !== 429),
      failures: KINDS.reduce((sum, kind) => sum + recorder.byKind.get(kind)!.failures, 0),
      brokenChats: recorder.brokenStreams,
      lost,
      uploadsChecked,
      streamsOpened,
      streamsClosedEarly,
      complete,
      pushed: pushed.length,
      idleLoop,
      loop,
      memory,
      unloadedP95,
      clientCpuShare,
      clientLoop: clientLoopReading,
      serverCpuShare,
      serverCpuPerRequest:
        (serverCpuShare.reduce((sum, share) => sum + share, 0) * LOAD_MS) / Math.max(1, answeredInWindow),
      clientCpuPerRequest: (clientCpuShare * LOAD_MS) / Math.max(1, answeredInWindow),
      offered: requests / (LOAD_MS / 1000),
      loadAverage,
      loadAverageAtStart,
      cacheShare,
      signInP95: percentile(signIns, 0.95),
    };
    console.log(
      `\n${requests} requests in ${(LOAD_MS / 1000).toFixed(0)} s (${result.throughput.toFixed(1)} answered a second), p95 over all ${ms(result.p95All)}; 5xx ${result.fiveXx}, 429 ${result.tooMany}, other non-2xx ${result.otherNon2xx}${statusBreakdown(recorder)}, no answer ${result.failures}.`,
    );
    console.log(
      `Chat: first token p50 ${ms(percentile(recorder.firstTokens, 0.5))}, p95 ${ms(percentile(recorder.firstTokens, 0.95))}; answers that did not finish: ${recorder.brokenStreams}.`,
    );
    console.log(`Uploads: ${uploadsChecked} answered 2xx, ${lost} lost (not listed, wrong size or wrong bytes).`);
    console.log(
      `Alert streams: ${streamsOpened} opened, ${streamsClosedEarly} closed by the server early; ${pushed.length} alerts pushed; ${complete}/${streamsOpened} streams got every one (${deliveries}/${streamsOpened * pushed.length} deliveries).`,
    );
    for (const [index, instance] of instances.entries()) {
      const reading = memory[index]!;
      console.log(
        `${instance.label}: event-loop delay p99 ${ms(loop[index]!.p99)} (max ${ms(loop[index]!.max)}; idle p99 ${ms(idleLoop[index]!.p99)}), CPU ${(serverCpuShare[index]! * 100).toFixed(0)}% of a core; RSS after a full GC ${mb(reading.start)} -> ${mb(reading.end)} (peak ${mb(reading.peak)}; JS heap ${mb(reading.heapStart)} -> ${mb(reading.heapEnd)}).`,
      );
    }
    console.log(`Requests sent again after a stale keep-alive socket: ${retries.count} (setup and load).`);
    console.log(
      `CPU per request answered in the window: servers ${ms(result.serverCpuPerRequest)}, client ${ms(result.clientCpuPerRequest)}; offered ${result.offered.toFixed(0)} requests a second; machine load average ${loads(result.loadAverageAtStart)} at the start, ${loads(loadAverage)} at the end (1, 5, 15 min; 2 cores).`,
    );
    console.log(
      `Client (this one Node process, ${USERS} subscribers, about ${USERS + USERS / 2} sockets): CPU ${(clientCpuShare * 100).toFixed(0)}% of a core, its own event-loop delay p99 ${ms(clientLoopReading.p99)} (max ${ms(clientLoopReading.max)}), which every latency above includes.`,
    );
    if (recorder.examples.length > 0) console.log(`\nFirst problem answers:\n  ${recorder.examples.join('\n  ')}`);
    if (lostExamples.length > 0) console.log(`\nLost uploads:\n  ${lostExamples.join('\n  ')}`);
    for (const instance of instances)
      if (instance.log.length > 0)
        console.log(
          `\n${instance.label} log (warnings and errors, first ${instance.log.length}; ${instance.errors} at error level):\n  ${instance.log.join('\n  ')}`,
        );
    console.log(`\nPhase time ${seconds(phaseStarted)}.`);
    return result;
  } finally {
    for (const user of users) user.close();
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
    for (const database of databasesToDrop.splice(0))
      await adminQuery(`drop database if exists "${database}" with (force)`);
  }
}

// ---------------------------------------------------------------------------------------

function reportPhase(result: PhaseResult): void {
  const { label } = result;
  const list = (values: number[], format: (value: number) => string) => values.map(format).join(', ');
  const p95 = (kind: Kind) => percentile(result.recorder.byKind.get(kind)!.latencies, 0.95);
  report({
    figure: `${label}: server CPU (user + system) per request answered`,
    target: `at most ${SERVER_CPU_PER_REQUEST_TARGET_MS} ms`,
    measured: `${result.serverCpuPerRequest.toFixed(2)} ms (${list(result.serverCpuShare, (share) => `${(share * 100).toFixed(0)}%`)} of a core, ${result.throughput.toFixed(0)} answered req/s; session cookie cache on ${(result.cacheShare * 100).toFixed(0)}% of signed-in API requests)`,
    peer: `client ${result.clientCpuPerRequest.toFixed(2)} ms a request; load avg ${loads(result.loadAverageAtStart)} -> ${loads(result.loadAverage)}`,
    ratio: result.serverCpuPerRequest / result.clientCpuPerRequest,
    pass: result.serverCpuPerRequest <= SERVER_CPU_PER_REQUEST_TARGET_MS,
  });
  report({
    figure: `${label}: errors, ${USERS} subscribers x ${LOAD_MS / 1000} s`,
    target: '0',
    measured: `${result.fiveXx + result.tooMany + result.otherNon2xx + result.failures + result.brokenChats} of ${result.requests} (5xx ${result.fiveXx}, 429 ${result.tooMany}, other non-2xx ${result.otherNon2xx}, no answer ${result.failures}, chat answers unfinished ${result.brokenChats})`,
    peer: '-',
    ratio: null,
    pass:
      result.fiveXx + result.tooMany + result.otherNon2xx + result.failures + result.brokenChats === 0 &&
      result.requests > 0,
  });
  report({
    figure: `${label}: lost uploads; streams with every pushed alert`,
    target: `0; all ${USERS}`,
    measured: `${result.lost} of ${result.uploadsChecked}; ${result.complete}/${result.streamsOpened} (${result.pushed} pushes, ${result.streamsClosedEarly} closed early)`,
    peer: '-',
    ratio: null,
    pass:
      result.lost === 0 &&
      result.uploadsChecked > 0 &&
      result.streamsOpened === USERS &&
      result.complete === USERS &&
      result.pushed === PUSH_AT_MS.length,
  });
  report({
    figure: `${label}: p95 by route`,
    target: '-',
    measured: `page ${ms(p95('page'))}, asset ${ms(p95('asset'))}, prices ${ms(p95('prices'))}, alert log ${ms(p95('alerts'))}, stream open ${ms(p95('stream'))}, chat answer ${ms(p95('chat'))} (first token ${ms(percentile(result.recorder.firstTokens, 0.95))}), upload ${ms(p95('upload'))}; ${result.throughput.toFixed(0)} req/s`,
    peer: `prices unloaded: p95 ${ms(result.unloadedP95)}`,
    ratio: p95('prices') / result.unloadedP95,
    pass: null,
  });
  const worstLoop = Math.max(...result.loop.map((reading) => reading.p99));
  report({
    figure: `${label}: server event-loop delay p99 under load`,
    target: `under ${EVENT_LOOP_P99_TARGET_MS} ms`,
    measured: list(
      result.loop.map((reading) => reading.p99),
      ms,
    ),
    peer: `idle: ${list(
      result.idleLoop.map((reading) => reading.p99),
      ms,
    )}`,
    ratio: worstLoop / Math.max(...result.idleLoop.map((reading) => reading.p99)),
    pass: worstLoop < EVENT_LOOP_P99_TARGET_MS,
  });
  const flat = result.memory.every(
    (reading) => reading.end - reading.start <= Math.max(MEMORY_FLAT_BYTES, reading.start * MEMORY_FLAT_SHARE),
  );
  report({
    figure: `${label}: server RSS after a full GC, start of load -> end`,
    target: `growth <= max(${mb(MEMORY_FLAT_BYTES)}, ${MEMORY_FLAT_SHARE * 100}%)`,
    measured: result.memory
      .map((reading) => `${mb(reading.start)} -> ${mb(reading.end)} (peak ${mb(reading.peak)})`)
      .join('; '),
    peer: `start of load ${list(
      result.memory.map((reading) => reading.start),
      mb,
    )}`,
    ratio: Math.max(...result.memory.map((reading) => reading.end / reading.start)),
    pass: flat,
  });
  report({
    figure: `${label}: the client, one Node process`,
    target: '-',
    measured: `CPU ${(result.clientCpuShare * 100).toFixed(0)}% of a core (${ms(result.clientCpuPerRequest)} a request), event-loop delay p99 ${ms(result.clientLoop.p99)}; machine load average ${loads(result.loadAverageAtStart)} -> ${loads(result.loadAverage)}`,
    peer: `server CPU ${list(result.serverCpuShare, (share) => `${(share * 100).toFixed(0)}%`)} (${ms(result.serverCpuPerRequest)} a request); ${result.offered.toFixed(0)} req/s offered`,
    ratio: null,
    pass: null,
  });
}

const webRoot = join(process.cwd(), 'dist', 'web');
if (!existsSync(join(webRoot, 'index.html'))) {
  console.log('No dist/web: building the web app (npx vite build)...');
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status ?? build.signal})`);
}

const benchStarted = performance.now();
const results: PhaseResult[] = [];
try {
  for (const name of PHASES) {
    if (name !== 'pglite' && (!adminUrl || !redisUrl)) {
      console.log(
        `\n${PHASE_LABELS[name]}: skipped (set TEST_DATABASE_URL and TEST_REDIS_URL: a PostgreSQL server it may create a database on, and a Redis).`,
      );
      continue;
    }
    results.push(await runPhase(name, webRoot));
  }
} finally {
  await cleanUp();
}
console.log(`\nBench time ${seconds(benchStarted)}.\n`);
for (const result of results) reportPhase(result);
const one = results.find((result) => result.name === 'postgres-1');
const two = results.find((result) => result.name === 'postgres-2');
if (one && two)
  report({
    figure: '2 instances vs 1, PostgreSQL + Redis: p95 over all requests; answered req/s',
    target: 'p95 two <= one',
    measured: `${ms(two.p95All)}; ${two.throughput.toFixed(1)} req/s`,
    peer: `1 instance: ${ms(one.p95All)}; ${one.throughput.toFixed(1)} req/s`,
    ratio: two.p95All / one.p95All,
    pass: two.p95All <= one.p95All,
  });
