// Mixed load on the real server: src/server/main.ts started as a child process exactly as
// `npm start` runs it (built web app, fresh DATA_DIR with the embedded PGlite, demo market
// data, the alert engine running, TEST_HOOKS for the e-mail outbox and alert pushes), so its
// memory (VmRSS from /proc, once a second) is its own. 200 subscribers are created through
// the real flows (register, e-mailed link, TEST MODE checkout), each from its own address
// (X-Forwarded-For) and its own keep-alive connections, like 200 browsers at home. Then, for
// 60 s, every subscriber at once: loads '/' and '/dashboard' with the assets a browser fetches
// for them, polls the prices every 30 s and the alert log every 10 s, holds one alert stream
// (server-sent events) open, sends a chat message every 20 s (reading the answer's stream to
// the end) and uploads a small CSV every 30 s; five alerts are pushed during the run.
// Measured: requests, 5xx, 429 and other non-2xx by kind, p50/p95 latency by kind; lost
// uploads (each 2xx upload must be listed by GET /files with its size and download with its
// exact bytes); alert delivery (every stream must receive every pushed alert); server RSS
// at the start of the load, at its peak, after 10 s idle, and after a full garbage collection
// (bench/serverMemoryProbe.ts, preloaded into the server, collects on a signal). Targets: zero
// 5xx, zero 429 or other non-2xx, zero lost uploads, every push on every stream, memory flat:
// RSS after a full collection at the end within max(50 MB, 15%) of the same reading at the
// start (after the warm-up). Without the collection the figure mostly says when V8 last
// collected: one run read +107 MB from RSS alone; with it, runs read -38 MB to +1 MB. Peer,
// same run: the prices route's p95 with the server otherwise idle, against its p95 under the
// load. Loopback only; bounded (a watchdog stops everything after 4 minutes).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALERT_TYPES } from '../src/shared/constants.ts';
import { freePort } from '../src/server/testing/ports.ts';
import { multipartBody, type MultipartPart } from '../src/server/testing/spreadsheets.ts';
import { percentile, report } from './report.ts';
import { readRss } from './procStatus.ts';
import { MEMORY_PROBE_MARKER, type MemoryReading } from './serverMemoryProbe.ts';

const USERS = 200;
const LOAD_MS = 60_000;
const IDLE_MS = 10_000;
/** Subscribers created (and, at the end, checked) at once. */
const SETUP_CONCURRENCY = 10;
/** Per subscriber, like TanStack Query's refetchInterval in the dashboard. */
const PRICES_EVERY_MS = 30_000;
const ALERTS_EVERY_MS = 10_000;
const CHAT_EVERY_MS = 20_000;
const UPLOAD_EVERY_MS = 30_000;
/** When the alerts are pushed, from the start of the load (every stream is open by 5 s). */
const PUSH_AT_MS = [12_000, 22_000, 32_000, 42_000, 52_000];
/** Unloaded peer: requests to the prices route, one at a time, before the load. */
const PEER_REQUESTS = 200;
const REQUEST_TIMEOUT_MS = 30_000;
/** In-flight requests get this long to finish after the load window closes. */
const DRAIN_MS = 30_000;
const MEMORY_FLAT_BYTES = 50 * 1024 * 1024;
const MEMORY_FLAT_SHARE = 0.15;
const START_TIMEOUT_MS = 90_000;
/** The alert engine backfills history at start-up; the load starts once the server is idle. */
const SETTLE_TIMEOUT_MS = 60_000;
const WATCHDOG_MS = 240_000;
const PASSWORD = 'load-bench-password';
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

let server: ChildProcess | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'watos-load-'));

function stopServer(): Promise<void> {
  const child = server;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const watchdog = setTimeout(() => {
  console.error(`load bench still running after ${WATCHDOG_MS / 1000} s: stopping.`);
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(value < 10 ? 1 : 0)} ms`);

// ---------------------------------------------------------------------------------------
// Server memory: VmRSS of the child, once a second.

interface RssSample {
  at: number;
  bytes: number;
}

/** CPU time (user + system, in clock ticks) the child has used so far. */
function readCpuTicks(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
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

class Subscriber {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 6 });
  readonly cookies = new Map<string, string>();
  readonly ip: string;
  readonly email: string;
  id = '';
  conversationId = '';
  readonly history: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  readonly uploads: Array<{ id: string; name: string; bytes: Buffer }> = [];
  /** Pushed-alert messages this subscriber's stream received. */
  readonly received = new Set<string>();
  stream: { close: () => void; closedEarly: boolean } | null = null;

  constructor(
    readonly index: number,
    readonly origin: string,
    runId: string,
  ) {
    this.ip = `10.${(index >> 8) & 255}.${index & 255}.${(index % 250) + 2}`;
    this.email = `load-${runId}-${index}@example.com`;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keepCookies(headers: IncomingHttpHeaders): void {
    for (const line of headers['set-cookie'] ?? []) {
      const [pair, ...attributes] = line.split(';');
      const cut = pair.indexOf('=');
      const name = pair.slice(0, cut).trim();
      const value = pair.slice(cut + 1);
      if (value === '' || attributes.some((attribute) => /max-age=0/i.test(attribute.trim())))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Opens a request; resolves with the response once its headers arrive. */
  open(
    method: string,
    path: string,
    headers: Record<string, string | number> = {},
    body?: Buffer,
  ): Promise<{ response: IncomingMessage; started: number }> {
    const url = new URL(path, this.origin);
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
            ...(this.cookies.size > 0 ? { cookie: this.cookieHeader } : {}),
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
      outgoing.once('error', reject);
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
  const fromHtml = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]);
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
// Setup: a subscriber through the real flows.

async function expectOk(what: string, reply: Promise<Reply>, wanted: number[] = [200]): Promise<Reply> {
  const answer = await reply;
  if (!wanted.includes(answer.status))
    throw new Error(`${what} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
  return answer;
}

async function subscribe(user: Subscriber): Promise<void> {
  await expectOk(
    'register',
    user.json('POST', '/api/auth/register', { email: user.email, password: PASSWORD, username: `trader${user.index}` }),
  );
  let link: string | undefined;
  for (let attempt = 0; attempt < 20 && !link; attempt += 1) {
    const outbox = await expectOk('outbox', user.send('GET', `/api/test/outbox?to=${encodeURIComponent(user.email)}`));
    const { messages } = JSON.parse(outbox.body.toString()) as { messages: Array<{ text: string }> };
    link = messages.map((message) => message.text.match(/https?:\/\/\S+/)?.[0]).find(Boolean);
    if (!link) await sleep(100);
  }
  if (!link) throw new Error(`No verification e-mail for ${user.email}`);
  const verify = new URL(link);
  await expectOk('verification link', user.send('GET', `${verify.pathname}${verify.search}`), [200, 302, 303, 307]);
  const me = JSON.parse((await expectOk('/api/me', user.send('GET', '/api/me'))).body.toString()) as {
    user: { id: string } | null;
  };
  if (!me.user) throw new Error(`${user.email} is not signed in after the verification link`);
  user.id = me.user.id;
  const checkout = await expectOk(
    'create-checkout',
    user.json('POST', '/api/subscriptions/create-checkout', {
      priceId: 'three-day',
      userId: user.id,
      email: user.email,
    }),
  );
  const { sessionId } = JSON.parse(checkout.body.toString()) as { sessionId: string };
  const form = new URLSearchParams({ card: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' }).toString();
  await expectOk(
    'test checkout',
    user.send(
      'POST',
      `/checkout/test/${sessionId}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.from(form),
    ),
    [303],
  );
}

async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
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
      .map((match) => JSON.parse(match[1]) as string)
      .join('');
    const conversation = response.headers['x-conversation-id'];
    if (typeof conversation === 'string') user.conversationId = conversation;
    user.history.push({ role: 'user', content: question }, { role: 'assistant', content: answer.slice(0, 2000) });
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

/** Opens the subscriber's alert stream; records pushed alerts it receives until closed. */
async function openStream(user: Subscriber, recorder: Recorder | null, pushMarker: string): Promise<void> {
  try {
    const { response, started } = await user.open('GET', '/api/alerts/stream', { accept: 'text/event-stream' });
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

const webRoot = join(process.cwd(), 'dist', 'web');
if (!existsSync(join(webRoot, 'index.html'))) {
  console.log('No dist/web: building the web app (npx vite build)...');
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status ?? build.signal})`);
}

const benchStarted = performance.now();
const serverLog: string[] = [];
/** Waiting for the probe's next reading (resolved from the server's stdout). */
const probeReadings: Array<(reading: MemoryReading) => void> = [];

/** A full garbage collection in the server, then its RSS once the freed pages are returned. */
async function collectedMemory(pid: number): Promise<MemoryReading & { vmRss: number }> {
  const reading = new Promise<MemoryReading>((resolve, reject) => {
    probeReadings.push(resolve);
    setTimeout(() => reject(new Error('The server did not answer the memory probe within 10 s')), 10_000).unref();
  });
  process.kill(pid, 'SIGUSR2');
  const collected = await reading;
  await sleep(2000);
  return { ...collected, vmRss: readRss(pid) ?? NaN };
}

let serverErrors = 0;
const users: Subscriber[] = [];
try {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const probe = join(dirname(fileURLToPath(import.meta.url)), 'serverMemoryProbe.ts');
  server = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--import', probe, 'src/server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      MARKET_DATA: 'demo',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      TEST_HOOKS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = server;
  const pid = child.pid!;
  // Warnings and errors the server logs (pino JSON at level 40+): the evidence for a 5xx.
  let partial = '';
  const onOutput = (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith(`${MEMORY_PROBE_MARKER} `)) {
        probeReadings.shift()?.(JSON.parse(line.slice(MEMORY_PROBE_MARKER.length + 1)) as MemoryReading);
        continue;
      }
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (level && Number(level) >= 50) serverErrors += 1;
      if ((level && Number(level) >= 40) || /error/i.test(line)) {
        if (serverLog.length < 30) serverLog.push(line.slice(0, 600));
      }
    }
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);

  const bootStarted = performance.now();
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`The server exited with ${child.exitCode} before it was ready:\n${serverLog.join('\n')}`);
    if (performance.now() - bootStarted > START_TIMEOUT_MS)
      throw new Error(`The server did not answer /healthz within ${START_TIMEOUT_MS / 1000} s`);
    const healthy = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await sleep(250);
  }
  console.log(
    `Server: src/server/main.ts (pid ${pid}) on ${origin}, fresh DATA_DIR, PGlite, demo data, alert engine on; ready in ${((performance.now() - bootStarted) / 1000).toFixed(1)} s.`,
  );

  const samples: RssSample[] = [];
  const sampler = setInterval(() => {
    const bytes = readRss(pid);
    if (bytes !== null) samples.push({ at: performance.now(), bytes });
  }, 1000);
  sampler.unref();

  // 1. 200 subscribers through the real flows, ten at a time.
  const runId = randomBytes(4).toString('hex');
  for (let index = 0; index < USERS; index += 1) users.push(new Subscriber(index, origin, runId));
  const setupStarted = performance.now();
  await inBatches(users, SETUP_CONCURRENCY, subscribe);
  console.log(
    `${USERS} subscribers registered, verified and paid in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s (${SETUP_CONCURRENCY} at a time, one address each).`,
  );

  // 2. Warm-up: every route once, so first-use caches are not counted as growth.
  const assets = pageAssets(webRoot);
  const pushMarker = `load-bench-${runId}`;
  await Promise.all(
    users.slice(0, 5).map(async (user, index) => {
      await loadPage(user, null, '/', assets.landing);
      await loadPage(user, null, '/dashboard', assets.dashboard);
      await expectOk('warm-up prices', user.send('GET', '/external-api/coinbase-prices'));
      await expectOk('warm-up alerts', user.send('GET', '/external-api/alert'));
      await chat(user, null, index);
      await upload(user, null, 100 + index);
    }),
  );

  // 3. Wait for the alert engine's start-up backfill to finish (the server's CPU goes quiet).
  const settleStarted = performance.now();
  let settled = false;
  let previous = readCpuTicks(pid) ?? 0;
  while (performance.now() - settleStarted < SETTLE_TIMEOUT_MS) {
    await sleep(1000);
    const ticks = readCpuTicks(pid) ?? 0;
    // Under 10% of one core (clock ticks are 1/100 s).
    if (ticks - previous <= 10) {
      settled = true;
      break;
    }
    previous = ticks;
  }
  console.log(
    `Server ${settled ? 'idle' : `still busy after ${SETTLE_TIMEOUT_MS / 1000} s (alert engine backfill): starting anyway`} ${((performance.now() - settleStarted) / 1000).toFixed(0)} s after the warm-up.`,
  );

  // 4. The peer: the prices route with nothing else going on.
  const unloaded: number[] = [];
  for (let index = 0; index < PEER_REQUESTS; index += 1) {
    const reply = await expectOk('unloaded prices', users[index % USERS].send('GET', '/external-api/coinbase-prices'));
    unloaded.push(reply.ms);
  }
  const unloadedP95 = percentile(unloaded, 0.95);
  console.log(
    `Unloaded GET /external-api/coinbase-prices, ${PEER_REQUESTS} requests one at a time: p50 ${ms(percentile(unloaded, 0.5))}, p95 ${ms(unloadedP95)}.`,
  );

  // 5. The load.
  const recorder = new Recorder();
  const memoryAtStart = await collectedMemory(pid);
  const rssAtStart = memoryAtStart.vmRss;
  const loadStarted = performance.now();
  const until = loadStarted + LOAD_MS;
  console.log(`\nLoad: ${USERS} subscribers for ${LOAD_MS / 1000} s (server RSS at start ${mb(rssAtStart)})...`);
  const pushed: string[] = [];
  const pusher = (async () => {
    for (const [index, at] of PUSH_AT_MS.entries()) {
      await sleep(loadStarted + at - performance.now());
      const message = `${pushMarker} push ${index + 1}`;
      const reply = await timed(recorder, 'push', () =>
        users[index].json('POST', '/api/test/alerts', {
          ticker: 'BTC',
          alert_type: ALERT_TYPES[index % ALERT_TYPES.length],
          message,
        }),
      );
      if (reply && reply.status === 200) pushed.push(message);
    }
  })();
  const sessions = users.map(async (user) => {
    // Streams open over the first 5 s; the first page load within 10 s, the dashboard after it.
    await sleep((user.index / USERS) * 5000);
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
  await pusher;
  const drained = await Promise.race([
    Promise.all(sessions).then(() => true),
    sleep(until - performance.now() + DRAIN_MS).then(() => false),
  ]);
  const loadEnded = performance.now();
  await sleep(1000);
  for (const user of users) user.stream?.close();
  console.log(
    `Load window closed after ${((loadEnded - loadStarted) / 1000).toFixed(1)} s${drained ? '' : ` (requests still in flight ${DRAIN_MS / 1000} s after the window: counted as not answered)`}.`,
  );

  // 6. Idle, then the memory at rest.
  await sleep(IDLE_MS);
  const during = samples.filter((sample) => sample.at >= loadStarted && sample.at <= loadEnded);
  const rssPeak = Math.max(rssAtStart, ...during.map((sample) => sample.bytes));
  const rssIdle = readRss(pid) ?? NaN;
  const memoryAtEnd = await collectedMemory(pid);
  const rssEnd = memoryAtEnd.vmRss;
  clearInterval(sampler);

  // 7. Every 2xx upload listed with its size and downloadable with its exact bytes.
  let uploadsChecked = 0;
  let lost = 0;
  const lostExamples: string[] = [];
  await inBatches(users, SETUP_CONCURRENCY, async (user) => {
    const listing = await user.send('GET', '/files');
    const files =
      listing.status === 200
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
      if (!listed) problem = 'not listed by GET /files';
      else if (listed.file_size !== sent.bytes.length)
        problem = `listed with ${listed.file_size} bytes, sent ${sent.bytes.length}`;
      else if (listed.original_filename !== sent.name) problem = `listed as ${listed.original_filename}`;
      else {
        const download = await user.send('GET', `/files/${sent.id}/download`);
        const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
        if (download.status !== 200) problem = `download answered ${download.status}`;
        else if (digest(download.body) !== digest(sent.bytes)) problem = 'downloaded bytes differ from the upload';
      }
      if (problem) {
        lost += 1;
        if (lostExamples.length < 10) lostExamples.push(`${user.email} ${sent.name} (${sent.id}): ${problem}`);
      }
    }
  });

  // 8. Alert delivery.
  const streamsOpened = users.filter((user) => user.stream).length;
  const streamsClosedEarly = users.filter((user) => user.stream?.closedEarly).length;
  const complete = users.filter((user) => user.stream && pushed.every((message) => user.received.has(message))).length;
  const deliveries = users.reduce(
    (sum, user) => sum + pushed.filter((message) => user.received.has(message)).length,
    0,
  );

  // Report.
  console.log('');
  summarise(recorder);
  const requests = KINDS.reduce(
    (sum, kind) => sum + recorder.byKind.get(kind)!.latencies.length + recorder.byKind.get(kind)!.failures,
    0,
  );
  const fiveXx = recorder.total((status) => status >= 500);
  const tooMany = recorder.total((status) => status === 429);
  const otherNon2xx = recorder.total((status) => (status < 200 || status >= 300) && status < 500 && status !== 429);
  const failures = KINDS.reduce((sum, kind) => sum + recorder.byKind.get(kind)!.failures, 0);
  const pricesLoaded = recorder.byKind.get('prices')!.latencies;
  const loadedP95 = percentile(pricesLoaded, 0.95);
  const growth = rssEnd - rssAtStart;
  const allowedGrowth = Math.max(MEMORY_FLAT_BYTES, rssAtStart * MEMORY_FLAT_SHARE);
  console.log(
    `\n${requests} requests in ${(LOAD_MS / 1000).toFixed(0)} s (${(requests / (LOAD_MS / 1000)).toFixed(1)} req/s); 5xx ${fiveXx}, 429 ${tooMany}, other non-2xx ${otherNon2xx}, no answer ${failures}.`,
  );
  console.log(
    `Chat: first token p50 ${ms(percentile(recorder.firstTokens, 0.5))}, p95 ${ms(percentile(recorder.firstTokens, 0.95))}; answers that did not finish: ${recorder.brokenStreams}.`,
  );
  console.log(`Uploads: ${uploadsChecked} answered 2xx, ${lost} lost (not listed, wrong size or wrong bytes).`);
  console.log(
    `Alert streams: ${streamsOpened} opened, ${streamsClosedEarly} closed by the server early; ${pushed.length} alerts pushed; ${complete}/${streamsOpened} streams got every one (${deliveries}/${streamsOpened * pushed.length} deliveries).`,
  );
  console.log(
    `Server RSS: start of load ${mb(rssAtStart)} (after a full GC), peak ${mb(rssPeak)}, after ${IDLE_MS / 1000} s idle ${mb(rssIdle)}, after a full GC ${mb(rssEnd)}: growth ${mb(growth)}; flat means at most ${mb(allowedGrowth)} = max(${mb(MEMORY_FLAT_BYTES)}, ${MEMORY_FLAT_SHARE * 100}% of the start).`,
  );
  console.log(
    `  after a full GC, start -> end: JS heap used ${mb(memoryAtStart.heapUsed)} -> ${mb(memoryAtEnd.heapUsed)}, external (PGlite's WASM memory, buffers) ${mb(memoryAtStart.external)} -> ${mb(memoryAtEnd.external)}.`,
  );
  console.log(
    `Prices route p95: ${ms(loadedP95)} under load vs ${ms(unloadedP95)} unloaded (${(loadedP95 / unloadedP95).toFixed(1)}x).`,
  );
  if (recorder.examples.length > 0) console.log(`\nFirst problem answers:\n  ${recorder.examples.join('\n  ')}`);
  if (lostExamples.length > 0) console.log(`\nLost uploads:\n  ${lostExamples.join('\n  ')}`);
  if (serverLog.length > 0)
    console.log(
      `\nServer log (warnings and errors, first ${serverLog.length}; ${serverErrors} at error level):\n  ${serverLog.join('\n  ')}`,
    );
  console.log(`\nBench time so far ${((performance.now() - benchStarted) / 1000).toFixed(0)} s.\n`);

  const peerText = `same route unloaded: p95 ${ms(unloadedP95)}`;
  report({
    figure: `5xx answers, ${USERS} subscribers x ${LOAD_MS / 1000} s`,
    target: '0',
    measured: `${fiveXx} of ${requests} (no answer: ${failures})`,
    peer: '-',
    ratio: null,
    pass: fiveXx === 0 && failures === 0,
  });
  report({
    figure: '429 and other non-2xx answers',
    target: '0',
    measured: `${tooMany} (other non-2xx: ${otherNon2xx})`,
    peer: '-',
    ratio: null,
    pass: tooMany === 0 && otherNon2xx === 0,
  });
  report({
    figure: 'lost uploads (listed, size, bytes)',
    target: '0',
    measured: `${lost} of ${uploadsChecked}`,
    peer: '-',
    ratio: null,
    pass: lost === 0 && uploadsChecked > 0,
  });
  report({
    figure: 'alert streams with every pushed alert',
    target: `all ${USERS}`,
    measured: `${complete}/${streamsOpened} (${pushed.length} pushes, ${streamsClosedEarly} closed early)`,
    peer: '-',
    ratio: null,
    pass: streamsOpened === USERS && complete === USERS && pushed.length === PUSH_AT_MS.length,
  });
  report({
    figure: 'server RSS after full GC, start of load -> end',
    target: `growth <= max(${mb(MEMORY_FLAT_BYTES)}, ${MEMORY_FLAT_SHARE * 100}%)`,
    measured: `${mb(rssAtStart)} -> ${mb(rssEnd)} (peak ${mb(rssPeak)}, idle ${mb(rssIdle)})`,
    peer: `start of load ${mb(rssAtStart)}`,
    ratio: rssEnd / rssAtStart,
    pass: growth <= allowedGrowth,
  });
  report({
    figure: 'GET /external-api/coinbase-prices p95 under the mixed load',
    target: '-',
    measured: `${ms(loadedP95)} (p50 ${ms(percentile(pricesLoaded, 0.5))}, chat first token p95 ${ms(percentile(recorder.firstTokens, 0.95))})`,
    peer: peerText,
    ratio: loadedP95 / unloadedP95,
    pass: null,
  });
} finally {
  for (const user of users) user.close();
  await stopServer();
  rmSync(dataDir, { recursive: true, force: true });
}
