// Issue 14, item 7: `Content-Length: 100000` at 1 byte / 5 s was held 125 s (no request or
// socket timeout). A real listening server, raw sockets, and small timeouts (1 s idle window,
// 200 B/s) so the test runs in seconds: a drip or a stall is closed within the window; a slow
// but steady upload, slow work on the server, the server holding a body back, and a live
// alert stream all outlive it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTimeouts } from '../config.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { startServerProcess, type ServerProcess } from '../testing/serverProcess.ts';
import { multipartBody } from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import { applyHttpTimeouts, IDLE_ERROR, SLOW_BODY_ERROR } from './timeouts.ts';
import { parseJson } from '../testing/http.ts';

const TIMEOUTS: HttpTimeouts = { headersMs: 1000, idleMs: 1000, requestMs: 60_000, minBodyBytesPerSecond: 200 };
/** The window plus one check, plus slack for a busy machine. */
const CLOSE_WITHIN_MS = TIMEOUTS.idleMs + TIMEOUTS.idleMs / 10 + 1500;

/**
 * The same for a server just started on a fresh data directory: its first backfill keeps its
 * one thread busy for about 20 s (docs/performance.md), which delays the timeout's check (a CI
 * run saw 2,666 ms). Without the timeout the drip keeps the connection open for 100,000 s, and
 * the test gives up at 10 s.
 */
const STARTED_SERVER_CLOSE_WITHIN_MS = TIMEOUTS.idleMs + 4000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RawClient {
  socket: Socket;
  text(): string;
  closed(): boolean;
  /** Resolves with the milliseconds from connecting to the close. */
  closedAfter: Promise<number>;
}

function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let text = '';
    let isClosed = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    const closedAfter = new Promise<number>((done) =>
      socket.on('close', () => {
        isClosed = true;
        done(Date.now() - started);
      }),
    );
    socket.once('connect', () => resolve({ socket, text: () => text, closed: () => isClosed, closedAfter }));
    socket.once('error', reject);
  });
}

/** Sends `body` in `step`-byte pieces every `everyMs` until it is all sent or the socket closes. */
async function drip(client: RawClient, body: Buffer, step: number, everyMs: number): Promise<void> {
  for (let offset = 0; offset < body.length && !client.closed(); offset += step) {
    client.socket.write(body.subarray(offset, offset + step));
    await sleep(everyMs);
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

describe('HTTP timeouts on the app', () => {
  let test: TestApp;
  let port: number;
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    // Node's headers timeout is set when the server is created, from the configuration.
    test = await createTestApp({ TEST_HOOKS: 'true', HTTP_HEADERS_TIMEOUT_S: String(TIMEOUTS.headersMs / 1000) });
    const trader = await subscribedUser(test, 'slow-link@example.com');
    cookie = trader.browser.cookieHeader;
    userId = trader.userId;
    applyHttpTimeouts(test.app.server, TIMEOUTS);
    await test.app.listen({ host: '127.0.0.1', port: 0 });
    port = (test.app.server.address() as { port: number }).port;
  }, 60_000);

  afterAll(async () => {
    await test?.close();
  });

  function uploadHead(contentType: string, length: number, withCookie = true): string {
    return `POST /upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${withCookie ? `Cookie: ${cookie}\r\n` : ''}Content-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;
  }

  it('closes a body dripping in 1 byte at a time, with a 408, within the window', async () => {
    const client = await rawClient(port);
    client.socket.write(uploadHead('multipart/form-data; boundary=x', 100_000));
    void drip(client, Buffer.alloc(100_000, 'x'), 1, 250);
    const closedAfter = await Promise.race([client.closedAfter, sleep(10_000).then(() => Infinity)]);
    client.socket.destroy();
    expect(closedAfter).toBeLessThan(CLOSE_WITHIN_MS);
    expect(client.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(client.text().split('\r\n\r\n')[1]!)).toEqual({ error: SLOW_BODY_ERROR });
  });

  it('closes a drip the server already answered (a visitor 401) instead of reading it for ever', async () => {
    const client = await rawClient(port);
    client.socket.write(uploadHead('multipart/form-data; boundary=x', 100_000, false));
    void drip(client, Buffer.alloc(100_000, 'x'), 1, 250);
    const closedAfter = await Promise.race([client.closedAfter, sleep(10_000).then(() => Infinity)]);
    client.socket.destroy();
    expect(client.text()).toMatch(/^HTTP\/1\.1 401 /);
    expect(closedAfter).toBeLessThan(CLOSE_WITHIN_MS);
  });

  it('closes a body that stops arriving within the idle timeout', async () => {
    const client = await rawClient(port);
    client.socket.write(uploadHead('multipart/form-data; boundary=x', 100_000) + '--x\r\n');
    const closedAfter = await Promise.race([client.closedAfter, sleep(10_000).then(() => Infinity)]);
    client.socket.destroy();
    expect(closedAfter).toBeLessThan(CLOSE_WITHIN_MS);
    expect(client.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect([IDLE_ERROR, SLOW_BODY_ERROR]).toContain(
      parseJson<{ error: string }>(client.text().split('\r\n\r\n')[1]!).error,
    );
  });

  it('closes headers that never finish within the headers timeout', async () => {
    const client = await rawClient(port);
    client.socket.write(`GET /api/me HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    // A header line every 200 ms: never idle, never done.
    void (async () => {
      for (let line = 0; line < 50 && !client.closed(); line++) {
        client.socket.write(`X-Slow-${line}: y\r\n`);
        await sleep(200);
      }
    })();
    const closedAfter = await Promise.race([client.closedAfter, sleep(10_000).then(() => Infinity)]);
    client.socket.destroy();
    expect(closedAfter).toBeLessThan(TIMEOUTS.headersMs + 250 + 1500);
    expect(client.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('lets a slow but steady upload finish, over several idle windows', async () => {
    const csv = Buffer.from(
      `strike,type,open_interest\n${Array.from({ length: 80 }, (_, row) => `${100 + row},call,${row}`).join('\n')}\n`,
    );
    const { body, contentType } = multipartBody([
      { name: 'user_id', value: userId },
      { name: 'file', filename: 'slow-link.csv', contentType: 'text/csv', data: csv },
    ]);
    // 100 bytes every 250 ms (400 B/s, above the 200 B/s floor): about 4 windows long.
    expect(body.length).toBeGreaterThan(1000);
    const client = await rawClient(port);
    const started = Date.now();
    client.socket.write(uploadHead(contentType, body.length));
    await drip(client, body, 100, 250);
    expect(await waitFor(() => client.text().includes('\r\n\r\n{'), 10_000)).toBe(true);
    const elapsed = Date.now() - started;
    client.socket.destroy();
    expect(elapsed).toBeGreaterThan(TIMEOUTS.idleMs * 3);
    expect(client.text()).toMatch(/^HTTP\/1\.1 201 /);
    expect(client.text()).toContain('slow-link.csv');
  }, 30_000);

  it('keeps a live alert stream open past the idle timeout and still delivers', async () => {
    const client = await rawClient(port);
    client.socket.write(
      `GET /api/alerts/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    expect(await waitFor(() => client.text().includes('retry: 3000'), 5000)).toBe(true);
    expect(client.text()).toMatch(/^HTTP\/1\.1 200 /);
    // Three idle windows with not a byte either way (the heartbeat is every 25 s).
    await sleep(TIMEOUTS.idleMs * 3.5);
    expect(client.closed()).toBe(false);
    const pushed = await test.app.inject({
      method: 'POST',
      url: '/api/test/alerts',
      headers: { cookie, 'content-type': 'application/json' },
      payload: { ticker: 'BTC', alert_type: 'BreakoutAlertGenerator', message: 'still listening' },
    });
    expect(pushed.statusCode).toBe(200);
    expect(await waitFor(() => client.text().includes('still listening'), 5000)).toBe(true);
    client.socket.destroy();
  }, 20_000);
});

describe('HTTP timeouts leave the server its own time', () => {
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    app = Fastify();
    // Slow work after the whole request arrived (an AI answer, a Stripe call).
    app.get('/slow', async () => {
      await sleep(TIMEOUTS.idleMs * 2.5);
      return { done: true };
    });
    // A body the server holds back (it is busy storing earlier bytes): backpressure, not a slow client.
    app.addContentTypeParser('application/octet-stream', (_request, payload, done) => {
      setTimeout(() => {
        let bytes = 0;
        payload.on('data', (chunk: Buffer) => (bytes += chunk.length));
        payload.on('end', () => done(null, bytes));
      }, TIMEOUTS.idleMs * 2.5);
    });
    app.post('/held', (request) => Promise.resolve({ bytes: request.body }));
    applyHttpTimeouts(app.server, TIMEOUTS);
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('does not cut a request the server takes longer than the idle timeout to answer', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/slow`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
  });

  it('does not blame the client while the server holds its body back', async () => {
    const size = 4 * 1024 * 1024;
    const response = await fetch(`http://127.0.0.1:${port}/held`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(size, 1),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ bytes: size });
  });
});

describe('npm start applies the timeouts (main.ts, HTTP_* variables)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({
      dataDir: mkdtempSync(join(tmpdir(), 'watos-timeouts-')),
      env: { HTTP_IDLE_TIMEOUT_S: '1', HTTP_BODY_MIN_BYTES_PER_S: '200', HTTP_HEADERS_TIMEOUT_S: '1' },
      startTimeoutMs: 120_000,
    });
  }, 130_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('closes a slow-drip body', async () => {
    const client = await rawClient(Number(new URL(server.origin).port));
    client.socket.write(
      `POST /api/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    );
    void drip(client, Buffer.alloc(100_000, ' '), 1, 250);
    const closedAfter = await Promise.race([client.closedAfter, sleep(10_000).then(() => Infinity)]);
    client.socket.destroy();
    expect(closedAfter).toBeLessThan(STARTED_SERVER_CLOSE_WITHIN_MS);
  });
});
