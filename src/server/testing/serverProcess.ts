// The real server as a child process (src/server/main.ts), for tests that must stop it the
// hard way: start it on a DATA_DIR, wait for /healthz, kill it, start it again on the same
// directory. And a subscriber made over real HTTP (register, the e-mailed link read through
// TEST_HOOKS' outbox route, the TEST MODE checkout), as a trader's browser would.
import { spawn, type ChildProcess } from 'node:child_process';
import { CookieJar } from './cookieJar.ts';
import { freePort } from './ports.ts';

export interface ServerProcess {
  readonly origin: string;
  readonly child: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it) once the process is gone. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (a clean shutdown), SIGKILL if it is not gone within 10 s; resolves with the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServerProcessOptions {
  dataDir: string;
  /** The entry file, run with tsx; default src/server/main.ts. It must serve GET /healthz. */
  script?: string;
  /** Extra environment; PORT, HOST, DATA_DIR are set here. Defaults: demo data, warn logs, TEST_HOOKS. */
  env?: Record<string, string>;
  /** How long the first /healthz may take (a cold PGlite start with migrations). */
  startTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', options.script ?? 'src/server/main.ts'], {
    env: {
      ...process.env,
      MARKET_DATA: 'demo',
      LOG_LEVEL: 'warn',
      TEST_HOOKS: 'true',
      ...options.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = () => {
    if (running()) {
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      void exit.then(() => clearTimeout(force));
      child.kill('SIGTERM');
    }
    return exit;
  };
  const server: ServerProcess = { origin, child, output: () => output, exited: () => exit, stop };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (!running()) throw new Error(`The server exited before it was ready:\n${output}`);
    if (
      await fetch(`${origin}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return server;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not answer /healthz on ${origin} in time:\n${output}`);
    }
    await sleep(200);
  }
}

/** A cookie-keeping client for one origin, sending the Origin header Better Auth checks. */
export class HttpSession {
  private readonly cookies = new CookieJar();

  constructor(readonly origin: string) {}

  get cookieHeader(): string {
    return this.cookies.header;
  }

  async fetch(
    path: string,
    init: { method?: string; json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { origin: this.origin, ...init.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader;
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(`${this.origin}${path}`, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    this.cookies.receive(response.headers.getSetCookie());
    return response;
  }
}

async function expectStatus(what: string, response: Promise<Response>, wanted: number[]): Promise<Response> {
  const answer = await response;
  if (!wanted.includes(answer.status))
    throw new Error(`${what} answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  return answer;
}

/** Registers, verifies and subscribes (three-day plan) a user on a server started with TEST_HOOKS. */
export async function subscribeOverHttp(
  origin: string,
  email: string,
): Promise<{ session: HttpSession; userId: string }> {
  const session = new HttpSession(origin);
  await expectStatus(
    'register',
    session.fetch('/api/auth/register', {
      json: { email, password: 'secret-password', username: email.split('@')[0] },
    }),
    [200],
  );
  let link: string | undefined;
  for (let attempt = 0; attempt < 50 && !link; attempt += 1) {
    const outbox = await expectStatus(
      'outbox',
      session.fetch(`/api/test/outbox?to=${encodeURIComponent(email)}`),
      [200],
    );
    const { messages } = (await outbox.json()) as { messages: Array<{ text: string }> };
    link = messages.map((message) => message.text.match(/https?:\/\/\S+/)?.[0]).find(Boolean);
    if (!link) await sleep(100);
  }
  if (!link) throw new Error(`No verification e-mail for ${email}`);
  const verify = new URL(link);
  await expectStatus('verification link', session.fetch(`${verify.pathname}${verify.search}`), [200, 302, 303, 307]);
  const me = (await (await expectStatus('/api/me', session.fetch('/api/me'), [200])).json()) as {
    user: { id: string } | null;
  };
  if (!me.user) throw new Error(`${email} is not signed in after the verification link`);
  const checkout = await expectStatus(
    'create-checkout',
    session.fetch('/api/subscriptions/create-checkout', { json: { priceId: 'three-day', userId: me.user.id, email } }),
    [200],
  );
  const { sessionId } = (await checkout.json()) as { sessionId: string };
  await expectStatus(
    'test checkout',
    session.fetch(`/checkout/test/${sessionId}`, {
      form: { card: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' },
    }),
    [303],
  );
  return { session, userId: me.user.id };
}
