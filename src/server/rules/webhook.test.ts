// Webhooks: signed POSTs reach a local receiver, whose check is the documented verification
// snippet itself (cut out of webhook.ts's comment and run); receivers' answers map to
// retryable or final failures; the per-user secret is created once and rotated.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { user, webhookSecrets } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import {
  getOrCreateWebhookSecret,
  postWebhook,
  rotateWebhookSecret,
  signWebhook,
  testWebhook,
  verifyWebhookSignature,
} from './webhook.ts';

type Verify = (secret: string, rawBody: string, header: string, toleranceSeconds?: number) => boolean;

/** The snippet from webhook.ts's comment, as a reader would paste it into a .mjs file. */
async function documentedVerifier(): Promise<{ verify: Verify; cleanup: () => void }> {
  const source = readFileSync(fileURLToPath(new URL('./webhook.ts', import.meta.url)), 'utf8');
  const start = source.indexOf('// --- verification snippet ---');
  const end = source.indexOf('// --- end of snippet ---');
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const snippet = source
    .slice(start, end)
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'watos-snippet-'));
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, snippet);
  const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { verifyWatosSignature: Verify };
  return { verify: module.verifyWatosSignature, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  method: string | undefined;
}

describe('webhook signing', () => {
  let documented: Awaited<ReturnType<typeof documentedVerifier>>;
  beforeAll(async () => {
    documented = await documentedVerifier();
  });
  afterAll(() => documented.cleanup());

  it('signs t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    // HMAC-SHA256("whsec_test", "1700000000.{}"), computed independently with openssl.
    expect(signWebhook('whsec_test', '{}', 1_700_000_000.7)).toBe(
      't=1700000000,v1=35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91',
    );
  });

  it('verifies in the server and in the documented snippet alike', () => {
    const secret = 'whsec_abc';
    const body = '{"price":190.5,"ticker":"AAPL"}';
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string, string, boolean]> = [
      [secret, body, signWebhook(secret, body, now), true],
      [secret, body, signWebhook(secret, body, now - 200), true],
      [secret, body, signWebhook(secret, body, now - 400), false],
      [secret, body, signWebhook(secret, body, now + 400), false],
      [secret, `${body} `, signWebhook(secret, body, now), false],
      ['whsec_other', body, signWebhook(secret, body, now), false],
      [secret, body, signWebhook(secret, body, now).replace('t=', 't= '), true],
      [secret, body, `v1=${signWebhook(secret, body, now).split('v1=')[1]},t=${now}`, true],
      [secret, body, `t=${now}`, false],
      [secret, body, `t=${now},v1=zz`, false],
      [secret, body, '', false],
      [secret, body, `t=${now - 1},v1=${signWebhook(secret, body, now).split('v1=')[1]}`, false],
    ];
    for (const [key, text, header, expected] of cases) {
      expect(verifyWebhookSignature(key, text, header), header).toBe(expected);
      expect(documented.verify(key, text, header), header).toBe(expected);
    }
  });
});

describe('postWebhook', () => {
  let server: Server;
  let base = '';
  const received: Received[] = [];
  let answer: (response: ServerResponse) => void = (response) => response.end();
  const loopback = { timeoutMs: 2000, allowPrivateTargets: true };
  let documented: Awaited<ReturnType<typeof documentedVerifier>>;

  beforeAll(async () => {
    documented = await documentedVerifier();
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body, method: request.method });
        answer(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    documented.cleanup();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    received.length = 0;
    answer = (response) => response.writeHead(204).end();
  });

  it('POSTs signed JSON that the documented snippet accepts', async () => {
    const secret = 'whsec_receiver';
    const body = JSON.stringify({ deliveryId: '7-webhook', price: 101.5 });
    const result = await postWebhook(`${base}/hook?x=1`, body, { secret, deliveryId: '7-webhook', ...loopback });
    expect(result).toMatchObject({ ok: true, status: 204, error: null, retryable: false });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.method).toBe('POST');
    expect(request!.body).toBe(body);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe('WATOS-Alerts/1.0');
    expect(request!.headers['x-watos-delivery']).toBe('7-webhook');
    const signature = String(request!.headers['x-watos-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(documented.verify(secret, request!.body, signature)).toBe(true);
    expect(documented.verify('whsec_wrong', request!.body, signature)).toBe(false);
  });

  it('treats 5xx, 408 and 429 as retryable, other 4xx and redirects as final', async () => {
    const post = () => postWebhook(`${base}/hook`, '{}', { secret: 's', deliveryId: '1-webhook', ...loopback });
    answer = (response) => response.writeHead(500).end('database down');
    expect(await post()).toMatchObject({
      ok: false,
      status: 500,
      retryable: true,
      error: 'The receiver answered 500: database down',
    });
    answer = (response) => response.writeHead(503).end();
    expect(await post()).toMatchObject({ ok: false, status: 503, retryable: true, error: 'The receiver answered 503' });
    answer = (response) => response.writeHead(429).end();
    expect(await post()).toMatchObject({ status: 429, retryable: true });
    answer = (response) => response.writeHead(408).end();
    expect(await post()).toMatchObject({ status: 408, retryable: true });
    answer = (response) => response.writeHead(400).end('{"error":"bad payload"}');
    expect(await post()).toMatchObject({
      ok: false,
      status: 400,
      retryable: false,
      error: 'The receiver answered 400: {"error":"bad payload"}',
    });
    answer = (response) => response.writeHead(410).end();
    expect(await post()).toMatchObject({ status: 410, retryable: false });
    answer = (response) => response.writeHead(301, { location: 'https://elsewhere.example/hook' }).end();
    const redirected = await post();
    expect(redirected).toMatchObject({ ok: false, status: 301, retryable: false });
    expect(redirected.error).toContain('redirects are not followed');
    expect(received).toHaveLength(7);
  });

  it('cuts a long error answer', async () => {
    answer = (response) => response.writeHead(502).end('y'.repeat(100_000));
    const result = await postWebhook(`${base}/hook`, '{}', { secret: 's', deliveryId: 'd', ...loopback });
    expect(result.retryable).toBe(true);
    expect(result.error?.length).toBeLessThan(260);
  });

  it('retries a timeout and a refused connection, never a refused URL', async () => {
    answer = () => undefined;
    const timedOut = await postWebhook(`${base}/hook`, '{}', {
      secret: 's',
      deliveryId: 'd',
      timeoutMs: 200,
      allowPrivateTargets: true,
    });
    expect(timedOut).toMatchObject({ ok: false, status: null, retryable: true, error: 'No answer within 200 ms' });

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await postWebhook(closedUrl, '{}', { secret: 's', deliveryId: 'd', ...loopback });
    expect(refused).toMatchObject({ ok: false, status: null, retryable: true });
    expect(refused.error).toMatch(/ECONNREFUSED/);

    const before = received.length;
    const blocked = await postWebhook(`${base.replace('http:', 'https:')}/hook`, '{}', {
      secret: 's',
      deliveryId: 'd',
      timeoutMs: 2000,
      allowPrivateTargets: false,
    });
    expect(blocked).toMatchObject({
      ok: false,
      status: null,
      retryable: false,
      error: 'Webhook URL points to a private or loopback address (127.0.0.1)',
    });
    expect(received.length).toBe(before);
  });

  it('sends a test delivery marked as a test', async () => {
    const result = await testWebhook(`${base}/hook`, 'whsec_t', loopback);
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    const [request] = received;
    const payload = JSON.parse(request!.body) as Record<string, unknown>;
    expect(payload.test).toBe(true);
    expect(payload).toHaveProperty('rule');
    expect(String(request!.headers['x-watos-delivery'])).toMatch(/^test-/);
    expect(documented.verify('whsec_t', request!.body, String(request!.headers['x-watos-signature']))).toBe(true);
    answer = (response) => response.writeHead(404).end('no such hook');
    expect(await testWebhook(`${base}/missing`, 'whsec_t', loopback)).toMatchObject({
      ok: false,
      status: 404,
      error: 'The receiver answered 404: no such hook',
    });
  });
});

describe('webhook secrets', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.insert(user).values([
      { id: 'u1', name: 'One', email: 'one@example.com' },
      { id: 'u2', name: 'Two', email: 'two@example.com' },
    ]);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('creates one secret per user on first use and keeps it', async () => {
    const first = await getOrCreateWebhookSecret(database.db, 'u1');
    expect(first).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await getOrCreateWebhookSecret(database.db, 'u1')).toBe(first);
    const [both] = await Promise.all([
      getOrCreateWebhookSecret(database.db, 'u2'),
      getOrCreateWebhookSecret(database.db, 'u2'),
    ]);
    expect(both).not.toBe(first);
    const rows = await database.db.select().from(webhookSecrets).where(eq(webhookSecrets.userId, 'u2'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret).toBe(both);
  });

  it('rotates to a new secret', async () => {
    const before = await getOrCreateWebhookSecret(database.db, 'u1');
    const rotated = await rotateWebhookSecret(database.db, 'u1');
    expect(rotated).not.toBe(before);
    expect(rotated).toMatch(/^whsec_/);
    expect(await getOrCreateWebhookSecret(database.db, 'u1')).toBe(rotated);
  });
});
