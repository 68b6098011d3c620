// Security checks over the whole route table (not a hand list, so a new route is covered the
// day it lands): every dashboard API refuses a visitor (401) and a user without a plan (403)
// before reading the body; every page carries the CSP and the other security headers; session
// cookies are HttpOnly and SameSite; and the captured server log holds no password, session
// token or secret after a sign-up, login, reset and checkout. Every route refuses other
// spellings of its path, bodies nested or sized past the limits, and a client-written
// X-Forwarded-For does not escape the auth rate limits.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { latestOutboxMessages } from '../mail/mailer.ts';
import { Browser, parseJson } from '../testing/http.ts';
import { rawRequest } from '../testing/rawHttp.ts';
import { payOnTestCheckout, signedInUser, subscribedUser } from '../testing/users.ts';
import { LIMITED_AUTH_ENDPOINTS } from '../auth/routes.ts';
import { MAX_BODY_DEPTH, MAX_BODY_STRING } from './requestGuards.ts';
import { JSON_CSP } from './security.ts';

const PASSWORD = 'Pa55word-that-must-never-be-logged';
const NEW_PASSWORD = 'An0ther-secret-never-logged';
const AUTH_SECRET = 'auth-secret-that-must-never-appear-in-logs-0123456789';
const SPA_ROUTES = [
  '/',
  '/ai-trading-intelligence',
  '/crypto-analytics-ai',
  '/futures-micro-futures-ai',
  '/dashboard',
  '/success',
  '/forgot-password',
  '/reset-password',
  '/no-such-page',
];

let database: TestDatabase;
let app: App;
let log = '';

/** A concrete URL for a route pattern: parameters and wildcards filled with harmless values. */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, 'probe-id').replace(/\*$/, 'probe');
}

beforeAll(async () => {
  database = await openTestDatabase('pglite');
  const webRoot = mkdtempSync(join(tmpdir(), 'watos-web-'));
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>WATOS</title><div id="root"></div>');
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: '.data-test/security',
    LOG_LEVEL: 'trace',
    MARKET_DATA: 'demo',
    AUTH_SECRET,
  });
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  app = await buildApp({ config, database, webRoot, logStream });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe('the dashboard API gate, over the whole route table', () => {
  it('lists the dashboard routes of every feature', () => {
    const dashboard = app.routeTable.filter((route) => route.dashboard).map((route) => `${route.method} ${route.url}`);
    expect(dashboard).toEqual(
      expect.arrayContaining([
        'GET /prompts',
        'GET /external-api/coinbase-prices',
        'GET /external-api/alert',
        'GET /api/alerts/stream',
      ]),
    );
    expect(dashboard.length).toBeGreaterThanOrEqual(8);
  });

  it('answers 401 to a visitor and 403 to a user without a plan on every dashboard route, whatever the body', async () => {
    const visitor = new Browser(app, 'http://127.0.0.1:3000');
    const { browser: unpaid } = await signedInUser(
      { app, database, config: app.services.config, close: () => Promise.resolve() },
      'no-plan@example.com',
    );
    const routes = app.routeTable.filter((route) => route.dashboard);
    for (const route of routes) {
      const method = route.method as 'GET' | 'POST' | 'PUT' | 'DELETE';
      // A body that would fail validation: the gate must answer before the body is read.
      const body = method === 'GET' || method === 'DELETE' ? undefined : { not: 'valid' };
      const asVisitor = await visitor.request(method, concrete(route.url), body);
      expect({ route: `${method} ${route.url}`, status: asVisitor.statusCode, body: asVisitor.json() }).toEqual({
        route: `${method} ${route.url}`,
        status: 401,
        body: { error: 'Please log in first' },
      });
      const asUnpaid = await unpaid.request(method, concrete(route.url), body);
      expect({ route: `${method} ${route.url}`, status: asUnpaid.statusCode, body: asUnpaid.json() }).toEqual({
        route: `${method} ${route.url}`,
        status: 403,
        body: { error: 'An active subscription is required' },
      });
    }
  });
});

describe('security headers on JSON answers', () => {
  it.each(['/healthz', '/api/plans', '/api/no-such-route'])(
    '%s carries the JSON policy (nothing may load, framed only by our pages) and the other headers',
    async (path) => {
      const response = await app.inject({ method: 'GET', url: path });
      expect(response.headers['content-type']).toContain('application/json');
      expect(response.headers['content-security-policy']).toBe(JSON_CSP);
      expect(JSON_CSP).toBe("default-src 'none'; frame-ancestors 'self'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['referrer-policy']).toBe('same-origin');
    },
  );
});

describe('security headers on every page', () => {
  it.each(SPA_ROUTES)('%s carries the CSP, nosniff, frame and referrer headers', async (path) => {
    const response = await app.inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['referrer-policy']).toBe('same-origin');
    // HSTS is sent only when PUBLIC_URL is https (this app is http, like `npm start`).
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('cookies and logs', () => {
  it('sets session cookies HttpOnly and SameSite=Lax, and logs no password, token or secret', async () => {
    const test = { app, database, config: app.services.config, close: () => Promise.resolve() };
    const { browser, userId } = await signedInUser(test, 'logs@example.com', PASSWORD);
    browser.forget();
    const login = await browser.post('/api/auth/sign-in/email', { email: 'logs@example.com', password: PASSWORD });
    expect(login.statusCode).toBe(200);
    const cookies = [login.headers['set-cookie']].flat().filter((line): line is string => typeof line === 'string');
    const sessionCookie = cookies.find((line) => /session_token=/.test(line));
    expect(sessionCookie).toBeDefined();
    expect(sessionCookie).toMatch(/;\s*HttpOnly/i);
    expect(sessionCookie).toMatch(/;\s*SameSite=Lax/i);
    const sessionToken = decodeURIComponent(sessionCookie!.split(';')[0]!.split('=').slice(1).join('=')).split('.')[0];

    const { sessionId } = await payOnTestCheckout(browser, userId, 'three-day');
    await browser.get(`/api/subscriptions/confirm?session_id=${sessionId}`);

    await new Browser(app, 'http://127.0.0.1:3000').post('/api/auth/request-password-reset', {
      email: 'logs@example.com',
      redirectTo: '/reset-password',
    });
    const [mail] = await latestOutboxMessages(database.db, 'logs@example.com');
    const resetLink = mail!.text.match(/https?:\/\/\S+/)![0];
    const resetToken = new URL(resetLink).searchParams.get('token') ?? resetLink.split('/').at(-1)!.split('?')[0];
    const reset = await new Browser(app, 'http://127.0.0.1:3000').post('/api/account/reset-password', {
      token: resetToken,
      newPassword: NEW_PASSWORD,
    });
    expect(reset.statusCode).toBe(200);

    expect(log.length).toBeGreaterThan(1000);
    expect(log).toContain('"url"');
    for (const secret of [PASSWORD, NEW_PASSWORD, AUTH_SECRET, sessionToken, resetToken]) {
      expect(secret!.length).toBeGreaterThan(8);
      expect(log.includes(secret!), `log contains ${secret!.slice(0, 6)}...`).toBe(false);
    }
    // The checkout session id is no credential (only its owner can pay or confirm it, and it
    // is in the checkout page's path) but the query that carries it is redacted all the same.
    expect(log).toContain('session_id=%5Bredacted%5D');
  });
});

describe('path spellings, body bounds and forwarded headers, over the whole route table', () => {
  let origin: string;
  beforeAll(async () => {
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  it('refuses every route spelled with a dot segment, an encoded dot, a backslash or a doubled slash (400, over a socket)', async () => {
    const routes = app.routeTable.filter((route) => !['HEAD', 'OPTIONS'].includes(route.method));
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      const path = concrete(route.url);
      const lastSlash = path.lastIndexOf('/');
      const spellings = [
        `/.${path}`,
        `/x/..${path}`,
        `/%2e${path}`,
        `/%2E%2E${path}`,
        `/${path}`,
        `${path.slice(0, lastSlash)}/x\\..\\${path.slice(lastSlash + 1)}`,
        `${path.slice(0, lastSlash)}/./${path.slice(lastSlash + 1)}`,
      ];
      for (const spelling of spellings) {
        const answer = await rawRequest(origin, route.method, spelling, {
          headers: { origin: 'http://127.0.0.1:3000', 'content-type': 'application/json' },
          body: route.method === 'GET' ? undefined : '{}',
        });
        expect({ route: `${route.method} ${spelling}`, status: answer.status }).toEqual({
          route: `${route.method} ${spelling}`,
          status: 400,
        });
        expect(parseJson<{ error: string }>(answer.body).error, `${route.method} ${spelling}`).toMatch(
          /^The request path is not valid: /,
        );
      }
    }
  });

  it('answers a body nested too deep or with an over-long text with 400 (413 where the route takes less) on every route that takes one', async () => {
    const test = { app, database, config: app.services.config, close: () => Promise.resolve() };
    const { browser } = await subscribedUser(test, 'bounds@example.com');
    const routes = app.routeTable.filter((route) => !['GET', 'HEAD', 'OPTIONS'].includes(route.method));
    const deep = `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`;
    const long = JSON.stringify({ text: 'x'.repeat(MAX_BODY_STRING + 1) });
    for (const route of routes) {
      for (const [kind, body] of [
        ['deep', deep],
        ['long', long],
      ]) {
        const answer = await rawRequest(origin, route.method, concrete(route.url), {
          headers: {
            origin: 'http://127.0.0.1:3000',
            cookie: browser.cookieHeader,
            'content-type': 'application/json',
          },
          body,
        });
        const context = `${kind} ${route.method} ${route.url} -> ${answer.status} ${answer.body.slice(0, 120)}`;
        if (answer.status === 413) {
          // Only the account routes take less than the app-wide 1 MiB.
          expect(route.url.startsWith('/api/auth/') || route.url.startsWith('/api/account/'), context).toBe(true);
          expect(kind, context).toBe('long');
        } else {
          expect(answer.status, context).toBe(400);
          expect(parseJson<{ error: string }>(answer.body).error, context).toBe(
            kind === 'deep'
              ? `The request body is not accepted: it is nested more than ${MAX_BODY_DEPTH} levels deep.`
              : `The request body is not accepted: a text field is longer than ${MAX_BODY_STRING.toLocaleString('en-US')} characters.`,
          );
        }
      }
    }
  });

  it('does not let a rotating X-Forwarded-For escape the per-IP limit on any rate-limited auth route', async () => {
    const limitedDatabase = await openTestDatabase('pglite');
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: '.data-test/security-xff',
      LOG_LEVEL: 'silent',
      MARKET_DATA: 'demo',
    });
    const limited = await buildApp({
      config,
      database: limitedDatabase,
      webRoot: null,
      logger: false,
      authRateLimits: { perIp: { max: 3, windowMs: 60_000 }, perEmail: { max: 1000, windowMs: 60_000 } },
    });
    try {
      const limitedOrigin = await limited.listen({ host: '127.0.0.1', port: 0 });
      // A body every limited endpoint's checks accept, so the limit is what answers.
      const body = JSON.stringify({
        email: 'xff@example.com',
        password: 'secret-password',
        newPassword: 'secret-password',
        currentPassword: 'secret-password',
        name: 'xff',
        newEmail: 'xff2@example.com',
        token: 'token',
        username: 'xff',
      });
      const post = (path: string, index: number) =>
        rawRequest(limitedOrigin, 'POST', path, {
          headers: {
            origin: config.publicUrl,
            'content-type': 'application/json',
            'x-forwarded-for': `192.0.2.${index}, 198.51.100.${index}`,
          },
          body,
        });
      const first = await Promise.all(
        [1, 2, 3].map(async (index) => (await post('/api/auth/sign-in/email', index)).status),
      );
      expect(first.every((status) => status !== 429)).toBe(true);
      const endpoints = Object.keys(LIMITED_AUTH_ENDPOINTS).map((endpoint) => `/api/auth${endpoint}`);
      expect(
        limited.routeTable.filter((route) => route.method === 'POST' && endpoints.includes(route.url)),
      ).toHaveLength(endpoints.length);
      for (const [index, path] of [...endpoints, '/api/auth/register', '/api/account/reset-password'].entries()) {
        const answer = await post(path, 10 + index);
        expect({ path, status: answer.status }).toEqual({ path, status: 429 });
        expect(parseJson<{ error: string }>(answer.body).error).toMatch(/^Too many attempts\./);
      }
    } finally {
      await limited.close();
      await limitedDatabase.close();
    }
  });
});
