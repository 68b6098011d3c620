// Prepared answers over real sockets: the price poll answered before Fastify is byte for byte
// the answer Fastify gave (status, headers but the date, body; each encoding), and only to a
// request Fastify would have answered that way: a current grant, the exact path, a GET without
// a body, data not refreshed since, no per-request log, an app not closing.
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_LOG_PATH } from '../alerts/routes.ts';
import { saveAlerts } from '../alerts/service.ts';
import { PRICES_PATH } from '../market/routes.ts';
import { formatAlertTimestamp } from '../../shared/alertDisplay.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { rawRequest, type RawAnswer } from '../testing/rawHttp.ts';
import { subscribedUser, signedInUser } from '../testing/users.ts';
import { sendSharedJson, sharedBody, type SharedBody } from './compression.ts';
import { answerPreparedFirst, createPreparedAnswers, type PreparedAnswers } from './preparedAnswers.ts';

interface Answer {
  status: number;
  headers: RawAnswer['headers'];
  body: Buffer;
}

/** One request over a socket, its body as bytes (compressed answers stay compressed). */
async function get(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) {
  const answer = await rawRequest(origin, method, path, { headers, body });
  return { status: answer.status, headers: answer.headers, body: answer.bytes } satisfies Answer;
}

const withoutDate = ({ date: _date, ...rest }: Answer['headers']) => rest;

describe('the price poll, prepared in the real app', () => {
  let test: TestApp;
  let origin: string;
  let prepared: () => number;

  beforeAll(async () => {
    test = await createTestApp();
    origin = await test.app.listen({ host: '127.0.0.1', port: 0 });
    prepared = () => test.app.services.prepared.answered;
  });
  afterAll(async () => {
    await test.close();
  });

  it.each([
    ['no Accept-Encoding', undefined, (body: Buffer) => body],
    ['gzip', 'gzip', gunzipSync],
    ['Brotli (a browser)', 'gzip, deflate, br, zstd', brotliDecompressSync],
  ] as const)('answers the next poll with Fastify’s own answer (%s)', async (_name, acceptEncoding, decode) => {
    const { browser } = await subscribedUser(
      test,
      `prepared-${acceptEncoding ?? 'identity'}@example.com`.replace(/[ ,]+/g, '-'),
    );
    const headers = { cookie: browser.cookieHeader, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) };
    // The first poll of this encoding (and cookie) goes through Fastify, which grants and keeps.
    const before = prepared();
    const first = await get(origin, PRICES_PATH, headers);
    expect(first.status).toBe(200);
    const second = await get(origin, PRICES_PATH, headers);
    const third = await get(origin, PRICES_PATH, headers);
    expect(prepared() - before).toBeGreaterThanOrEqual(2);
    for (const answer of [second, third]) {
      expect(answer.status).toBe(200);
      expect(withoutDate(answer.headers)).toEqual(withoutDate(first.headers));
      expect(answer.body.equals(first.body)).toBe(true);
    }
    expect(first.headers['content-encoding']).toBe(
      acceptEncoding ? (acceptEncoding === 'gzip' ? 'gzip' : 'br') : undefined,
    );
    expect(first.headers['content-security-policy']).toBeDefined();
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    const snapshot = JSON.parse(decode(second.body).toString('utf8')) as { prices: Record<string, unknown> };
    expect(Object.keys(snapshot.prices)).toContain('BTC-USD');
  });

  it('answers nobody without a current grant: a visitor, a user without a plan, a signed-out cookie', async () => {
    const { browser } = await subscribedUser(test, 'prepared-leaving@example.com');
    const cookie = browser.cookieHeader;
    expect((await get(origin, PRICES_PATH, { cookie })).status).toBe(200);
    const granted = prepared();
    expect((await get(origin, PRICES_PATH, { cookie })).status).toBe(200);
    expect(prepared()).toBe(granted + 1);

    const before = prepared();
    expect((await get(origin, PRICES_PATH)).status).toBe(401);
    expect((await get(origin, PRICES_PATH, { cookie: 'better-auth.session_token=forged.signature' })).status).toBe(401);
    const planless = await signedInUser(test, 'prepared-planless@example.com');
    expect((await get(origin, PRICES_PATH, { cookie: planless.browser.cookieHeader })).status).toBe(403);
    expect((await browser.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    expect((await get(origin, PRICES_PATH, { cookie })).status).toBe(401);
    expect(prepared()).toBe(before);
  });

  it('answers the alert log’s repeated query from memory until an alert arrives in its window', async () => {
    const { browser } = await subscribedUser(test, 'prepared-alerts@example.com');
    const cookie = browser.cookieHeader;
    const now = Date.now();
    const alertAt = (ago: number, ticker: string, alertType: string, message: string) =>
      saveAlerts(test.database.db, [{ ticker, alertType, message, timestamp: new Date(now - ago), source: 'demo' }]);
    await alertAt(60_000, 'BTC', 'BreakoutAlertGenerator', 'Prepared one');
    const query = new URLSearchParams({
      max_count: '10',
      start_time: formatAlertTimestamp(new Date(now - 3_600_000)),
      end_time: formatAlertTimestamp(new Date(now + 60_000)),
    });
    const url = `${ALERT_LOG_PATH}?${query.toString()}`;
    const messages = (answer: Answer) =>
      (JSON.parse(answer.body.toString('utf8')) as { alerts: Array<{ message: string }> }).alerts.map(
        (alert) => alert.message,
      );
    const first = await get(origin, url, { cookie });
    expect(messages(first)).toContain('Prepared one');
    const before = prepared();
    const second = await get(origin, url, { cookie });
    expect(prepared()).toBe(before + 1);
    expect(withoutDate(second.headers)).toEqual(withoutDate(first.headers));
    expect(second.body.equals(first.body)).toBe(true);

    await alertAt(1_000, 'ETH', 'MomentumShiftAlertGenerator', 'Prepared two');
    const third = await get(origin, url, { cookie });
    expect(prepared()).toBe(before + 1);
    expect(messages(third).slice(0, 2)).toEqual(['Prepared two', 'Prepared one']);
    const fourth = await get(origin, url, { cookie });
    expect(prepared()).toBe(before + 2);
    expect(fourth.body.equals(third.body)).toBe(true);
    // Another query text is Fastify's to answer first.
    expect((await get(origin, `${url}&alert_type=MomentumShiftAlertGenerator`, { cookie })).status).toBe(200);
    expect(prepared()).toBe(before + 2);
  });

  it('leaves every other request to Fastify: HEAD, a new query, another spelling, a body, POST', async () => {
    const { browser } = await subscribedUser(test, 'prepared-other@example.com');
    const cookie = browser.cookieHeader;
    expect((await get(origin, PRICES_PATH, { cookie })).status).toBe(200);
    const before = prepared();
    const head = await get(origin, PRICES_PATH, { cookie }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect((await get(origin, `${PRICES_PATH}?fresh=1`, { cookie })).status).toBe(200);
    expect((await get(origin, `/external-api//coinbase-prices`, { cookie })).status).toBe(400);
    expect((await get(origin, `${PRICES_PATH}/`, { cookie })).status).toBe(404);
    const withBody = await get(origin, PRICES_PATH, { cookie, 'content-type': 'application/json' }, 'GET', '{"a":1}');
    expect(withBody.status).toBe(200);
    expect((await get(origin, PRICES_PATH, { cookie, origin: test.config.publicUrl }, 'POST')).status).toBe(404);
    expect(prepared()).toBe(before);
    // And the plain poll is still prepared after all of them, and the query's second time too.
    expect((await get(origin, PRICES_PATH, { cookie })).status).toBe(200);
    expect((await get(origin, `${PRICES_PATH}?fresh=1`, { cookie })).status).toBe(200);
    expect(prepared()).toBe(before + 2);
  });
});

describe('the price poll while each request is logged (LOG_LEVEL info)', () => {
  it('goes through Fastify every time, so every poll is in the log', async () => {
    let log = '';
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString('utf8');
        done();
      },
    });
    const test = await createTestApp({ LOG_LEVEL: 'info' }, { logStream });
    try {
      const origin = await test.app.listen({ host: '127.0.0.1', port: 0 });
      const { browser } = await subscribedUser(test, 'prepared-logged@example.com');
      for (let poll = 0; poll < 3; poll++)
        expect((await get(origin, PRICES_PATH, { cookie: browser.cookieHeader })).status).toBe(200);
      expect(test.app.services.prepared.answered).toBe(0);
      // Fastify's "incoming request" line of each poll.
      expect(log.match(/"url":"\/external-api\/coinbase-prices"/g)).toHaveLength(3);
    } finally {
      await test.close();
    }
  });
});

describe('prepared answers on a bare Fastify app', () => {
  let app: FastifyInstance;
  let answers: PreparedAnswers;
  let body: SharedBody | undefined;
  let granted = true;
  let logging = false;
  let origin: string;
  let routeRuns = 0;

  beforeAll(async () => {
    app = Fastify({ logger: false });
    answers = createPreparedAnswers({ granted: () => granted, logsRequests: () => logging });
    answerPreparedFirst(app.server, answers);
    app.get('/shared', { onSend: answers.share('/shared', () => body) }, async (request, reply) => {
      routeRuns += 1;
      body ??= sharedBody(JSON.stringify({ run: routeRuns }));
      reply.header('x-run', String(routeRuns));
      return sendSharedJson(request, reply, body);
    });
    app.get('/cookie', { onSend: answers.share('/cookie', () => body) }, async (request, reply) => {
      routeRuns += 1;
      body ??= sharedBody('{"cookie":true}');
      reply.header('set-cookie', 'mine=1');
      return sendSharedJson(request, reply, body);
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(() => {
    body = undefined;
    granted = true;
    logging = false;
  });
  afterAll(async () => {
    await app.close();
  });

  it('keeps the answer until the body changes, then asks the route again', async () => {
    routeRuns = 0;
    const first = await get(origin, '/shared');
    const second = await get(origin, '/shared');
    expect(routeRuns).toBe(1);
    expect(second.headers['x-run']).toBe('1');
    expect(second.body.toString()).toBe(first.body.toString());
    body = undefined; // the data refreshed
    const third = await get(origin, '/shared');
    expect(routeRuns).toBe(2);
    expect(JSON.parse(third.body.toString())).toEqual({ run: 2 });
    expect((await get(origin, '/shared')).headers['x-run']).toBe('2');
    expect(routeRuns).toBe(2);
  });

  it('asks the route while a request is not granted or requests are logged', async () => {
    routeRuns = 0;
    await get(origin, '/shared');
    granted = false;
    await get(origin, '/shared');
    granted = true;
    logging = true;
    await get(origin, '/shared');
    expect(routeRuns).toBe(3);
  });

  it('keeps no answer that sets a cookie', async () => {
    routeRuns = 0;
    await get(origin, '/cookie');
    await get(origin, '/cookie');
    expect(routeRuns).toBe(2);
  });

  it('answers nothing once stopped', async () => {
    routeRuns = 0;
    await get(origin, '/shared');
    await get(origin, '/shared');
    expect(routeRuns).toBe(1);
    const before = answers.answered;
    answers.stop();
    await get(origin, '/shared');
    expect(routeRuns).toBe(2);
    expect(answers.answered).toBe(before);
  });

  it('must stand where Fastify’s request listener stands', () => {
    const other = Fastify({ logger: false });
    other.server.on('request', () => undefined);
    expect(() =>
      answerPreparedFirst(other.server, createPreparedAnswers({ granted: () => true, logsRequests: () => false })),
    ).toThrow(/found 2/);
  });
});
