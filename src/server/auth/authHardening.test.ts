// The auth routes against what an outside attack found (issue 14): rate limits reached
// through other spellings of a path, a client-chosen X-Forwarded-For, bodies that made
// Better Auth answer 500 or store unbounded fields, a per-e-mail limit that counted
// successful sign-ins, and error answers Better Auth's official client could not read.
// Path tricks go over a real socket: app.inject (like fetch) normalises the URL first.
import { randomUUID } from 'node:crypto';
import { createAuthClient } from 'better-auth/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { openTestDatabase } from '../db/testing.ts';
import type { TestApp } from '../testing/app.ts';
import { Browser, jsonBody, parseJson } from '../testing/http.ts';
import { rawRequest } from '../testing/rawHttp.ts';
import { signedInUser } from '../testing/users.ts';
import type { AuthRateLimitPolicy } from './rateLimits.ts';

interface Harness extends TestApp {
  origin: string;
}

async function startApp(env: Record<string, string>, authRateLimits: AuthRateLimitPolicy): Promise<Harness> {
  const database = await openTestDatabase('pglite');
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: '.data-test/auth-hardening',
    LOG_LEVEL: 'silent',
    MARKET_DATA: 'demo',
    ...env,
  });
  const app: App = await buildApp({ config, database, webRoot: null, logger: false, authRateLimits });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    database,
    config,
    origin,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

const LOOSE_IP = { max: 10_000, windowMs: 60_000 };

function json(test: Harness, body: unknown, extra: Record<string, string> = {}) {
  return {
    headers: { origin: test.config.publicUrl, 'content-type': 'application/json', ...extra },
    body: JSON.stringify(body),
  };
}

describe('every spelling of a throttled endpoint is throttled (item 1)', () => {
  let test: Harness;
  beforeAll(async () => {
    test = await startApp({}, { perIp: LOOSE_IP, perEmail: { max: 3, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await test?.close();
  });

  it('refuses dot segments, encoded dots, backslashes and doubled slashes with 400 over a real socket', async () => {
    const spellings = [
      '/api/auth/./sign-in/email',
      '/api/auth/x/../sign-in/email',
      '/api/auth/%2e/sign-in/email',
      '/api/auth/x/%2E%2e/sign-in/email',
      '/api/auth/x/.%2e/sign-in/email',
      '/api/auth//sign-in/email',
      '/api/auth/sign-in//email',
      '/api/auth\\sign-in/email',
      '/api/./auth/request-password-reset',
      '/api/auth/x/../reset-password',
      '/api/auth/./send-verification-email',
      '/api/auth/./sign-up/email',
      '/./api/auth/register',
    ];
    for (const path of spellings) {
      const answer = await rawRequest(
        test.origin,
        'POST',
        path,
        json(test, { email: 'nobody@example.com', password: 'whatever-password' }),
      );
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: expect.stringMatching(/^The request path is not valid/) });
    }
  });

  it('keeps an account locked whatever the spelling, once its failures reach the limit', async () => {
    const { browser } = await signedInUser(test, 'spelled@example.com', 'right-password');
    browser.forget();
    let status = 0;
    for (let attempt = 0; attempt < 10 && status !== 429; attempt += 1) {
      status = (
        await browser.post('/api/auth/sign-in/email', { email: 'spelled@example.com', password: 'wrong-password' })
      ).statusCode;
    }
    expect(status).toBe(429);
    const right = { email: 'spelled@example.com', password: 'right-password' };
    // The attack of the report: the right password through another spelling after the lock.
    const spellings = [
      '/api/auth/sign-in/email',
      '/api/auth/sign-in/email?x=1',
      '/api/auth/sign-in/email/',
      '/api/auth/SIGN-IN/email',
      '/api/auth/Sign-In/Email/',
      '/api/auth/sign-in/%65mail',
      '/api/auth/sign-in%2Femail',
      '/api/auth/sign-in/email;x',
      '/api/auth/./sign-in/email',
      '/api/auth/x/../sign-in/email',
    ];
    for (const path of spellings) {
      const answer = await rawRequest(test.origin, 'POST', path, json(test, right));
      expect({ path, status: answer.status }).toEqual({ path, status: expect.toBeOneOf([400, 404, 429]) });
      expect(answer.headers['set-cookie'] ?? []).toEqual([]);
    }
    // The limits are applied by the loose spelling too, not just left to Better Auth's 404.
    const loose = await rawRequest(test.origin, 'POST', '/api/auth/SIGN-IN/email', json(test, right));
    expect(loose.status).toBe(429);
  });
});

describe('X-Forwarded-For and TRUST_PROXY (item 2)', () => {
  const tight = { perIp: { max: 5, windowMs: 60_000 }, perEmail: { max: 100, windowMs: 60_000 } };

  it('reads TRUST_PROXY as nothing, a hop count or a list of proxies, and names it when wrong', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: '.data-test/auth-hardening' };
    expect(loadConfig(base).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const wrong of ['true', 'banana', '10.0.0.0/33', '1.2.3.4/8/9', ',']) {
      expect(() => loadConfig({ ...base, TRUST_PROXY: wrong }), wrong).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, TRUST_PROXY: wrong }), wrong).toThrow(/TRUST_PROXY/);
    }
  });

  it('unset: rotating X-Forwarded-For values do not escape the per-IP limit', async () => {
    const test = await startApp({}, tight);
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 7; attempt += 1) {
        const answer = await rawRequest(
          test.origin,
          'POST',
          '/api/auth/sign-in/email',
          json(
            test,
            { email: `rotate-${attempt}@example.com`, password: 'wrong-password' },
            { 'x-forwarded-for': `198.51.100.${attempt + 1}` },
          ),
        );
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    } finally {
      await test.close();
    }
  });

  it.each([
    ['a hop count', '1'],
    ['the proxy network', '127.0.0.0/8'],
  ])(
    'set to %s: the address the proxy appended is the client, whatever the client wrote before it',
    async (_name, trust) => {
      const test = await startApp({ TRUST_PROXY: trust }, tight);
      try {
        const attempt = (index: number, forwardedFor: string) =>
          rawRequest(
            test.origin,
            'POST',
            '/api/auth/sign-in/email',
            json(
              test,
              { email: `hop-${index}@example.com`, password: 'wrong-password' },
              { 'x-forwarded-for': forwardedFor },
            ),
          );
        const statuses: number[] = [];
        // The client writes a new address each time; our proxy appends the real one.
        for (let index = 0; index < 6; index += 1)
          statuses.push((await attempt(index, `10.9.8.${index}, 203.0.113.7`)).status);
        expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
        // Another client behind the same proxy has its own count.
        expect((await attempt(7, '203.0.113.8')).status).toBe(401);
      } finally {
        await test.close();
      }
    },
  );
});

describe('auth bodies: 400 with a clear message, the same limits on every path (item 9)', () => {
  let test: Harness;
  let browser: Browser;
  beforeAll(async () => {
    test = await startApp({}, { perIp: LOOSE_IP, perEmail: { max: 100, windowMs: 60_000 } });
    ({ browser } = await signedInUser(test, 'fields@example.com'));
  });
  afterAll(async () => {
    await test?.close();
  });

  it.each([
    ['a null name', { name: null }, /^name: Name is required/],
    ['a NUL in the name', { name: 'a\u0000b' }, /^name: Name may not contain control characters/],
    ['a 41-character name', { name: 'n'.repeat(41) }, /^name: Name must be at most 40 characters long/],
    [
      'a 5,000-character username',
      { username: 'u'.repeat(5000) },
      /^username: Username must be at most 40 characters long/,
    ],
    ['a NUL in the username', { username: 'x\u0000' }, /^username: Username may not contain control characters/],
    // Issue 33: C1 controls, Unicode line separators and bidi overrides forge lines and names too.
    [
      'a NEL in the name',
      { name: 'a\u0085b' },
      /^name: Name may not contain control characters or line breaks \(U\+0085\)$/,
    ],
    [
      'a line separator in the name',
      { name: 'Joe\u2028Bcc: evil@x.test' },
      /^name: Name may not contain control characters or line breaks \(U\+2028\)$/,
    ],
    [
      'a right-to-left override in the username',
      { username: 'evil\u202Egnp.exe' },
      /^username: Username may not contain control characters or line breaks \(U\+202E\)$/,
    ],
    ['a NUL in another field', { image: 'https://x.test/\u0000' }, /^image: image may not contain control characters/],
    ['a NUL in an unknown field', { other: 'a\u0000' }, /^other: may not contain NUL characters/],
  ])('update-user refuses %s', async (_case, body, message) => {
    const answer = await browser.post('/api/auth/update-user', body);
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      error: expect.stringMatching(message),
      message: expect.stringMatching(message),
      code: 'VALIDATION_ERROR',
    });
  });

  it('update-user still takes a valid name and username (trimmed)', async () => {
    const answer = await browser.post('/api/auth/update-user', { name: ' Trader Joe ', username: 'joe' });
    expect(answer.statusCode).toBe(200);
    const me = jsonBody<{ user: { username: string } }>(await browser.get('/api/me'));
    expect(me.user.username).toBe('joe');
  });

  it.each([
    [
      'a 5,000-character username',
      { username: 'u'.repeat(5000) },
      /^username: Username must be at most 40 characters long/,
    ],
    ['a 41-character name', { name: 'n'.repeat(41) }, /^name: Name must be at most 40 characters long/],
    ['an over-long e-mail', { email: `${'e'.repeat(250)}@example.com` }, /^email: Email is too long/],
    [
      'a paragraph separator in the name',
      { name: 'n\u2029x' },
      /^name: Name may not contain control characters or line breaks \(U\+2029\)$/,
    ],
    [
      'a C1 control in the username',
      { username: 'u\u009bv' },
      /^username: Username may not contain control characters or line breaks \(U\+009B\)$/,
    ],
    [
      'a 129-character password',
      { password: 'p'.repeat(129) },
      /^password: Password must be at most 128 characters long/,
    ],
  ])('sign-up/email refuses %s like registration does', async (_case, override, message) => {
    const body = {
      name: 'signer',
      email: `signer-${randomUUID()}@example.com`,
      password: 'secret-password',
      ...override,
    };
    const answer = await new Browser(test.app, test.config.publicUrl).post('/api/auth/sign-up/email', body);
    expect(answer.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(answer).error).toMatch(message);
  });

  it('answers a 900 KB name with 413 before Better Auth sees it', async () => {
    const answer = await new Browser(test.app, test.config.publicUrl).post('/api/auth/sign-up/email', {
      name: 'n'.repeat(900_000),
      email: 'big@example.com',
      password: 'secret-password',
    });
    expect(answer.statusCode).toBe(413);
    expect(answer.json()).toMatchObject({ error: 'Request body is too large', message: 'Request body is too large' });
  });

  it('answers a JSON body nested 20,000 levels deep with a 4xx, never a 500, on auth and other routes', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const headers = { origin: test.config.publicUrl, cookie: browser.cookieHeader, 'content-type': 'application/json' };
    // Within the auth body limit: refused for its depth.
    const nested = await rawRequest(test.origin, 'POST', '/api/auth/update-user', {
      headers,
      body: `{"name":${'['.repeat(2_000)}${']'.repeat(2_000)}}`,
    });
    expect(nested.status).toBe(400);
    expect(JSON.parse(nested.body)).toMatchObject({
      error: 'The request body is not accepted: it is nested more than 32 levels deep.',
      code: 'BAD_REQUEST',
    });
    // The report's 20,000 levels: over the auth body limit.
    expect((await rawRequest(test.origin, 'POST', '/api/auth/update-user', { headers, body: deep })).status).toBe(413);
    // Any other JSON route (1 MiB limit): refused for its depth.
    const other = await rawRequest(test.origin, 'POST', '/api/subscriptions/create-checkout', { headers, body: deep });
    expect(other.status).toBe(400);
    expect(parseJson<{ error: string }>(other.body).error).toBe(
      'The request body is not accepted: it is nested more than 32 levels deep.',
    );
  });
});

describe('the per-e-mail sign-in limit counts failures only (item 11)', () => {
  let test: Harness;
  beforeAll(async () => {
    test = await startApp({}, { perIp: LOOSE_IP, perEmail: { max: 3, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await test?.close();
  });

  it('never locks out an account that keeps signing in successfully', async () => {
    const { browser } = await signedInUser(test, 'often@example.com', 'right-password');
    for (let attempt = 0; attempt < 6; attempt += 1) {
      browser.forget();
      expect(
        (await browser.post('/api/auth/sign-in/email', { email: 'often@example.com', password: 'right-password' }))
          .statusCode,
      ).toBe(200);
    }
  });

  it('locks after max failures in a row, and a success clears the count', async () => {
    const { browser } = await signedInUser(test, 'guessed@example.com', 'right-password');
    const signIn = async (password: string) => {
      browser.forget();
      return (await browser.post('/api/auth/sign-in/email', { email: 'guessed@example.com', password })).statusCode;
    };
    // Two failures, a success (clears), three failures: allowed; then locked even for the right password.
    expect([await signIn('wrong-1'), await signIn('wrong-2'), await signIn('right-password')]).toEqual([401, 401, 200]);
    expect([await signIn('wrong-3'), await signIn('wrong-4'), await signIn('wrong-5')]).toEqual([401, 401, 401]);
    expect([await signIn('wrong-6'), await signIn('right-password')]).toEqual([429, 429]);
  });

  it('still counts every mail-sending request on one address', async () => {
    const visitor = new Browser(test.app, test.config.publicUrl);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      statuses.push(
        (
          await visitor.post('/api/auth/request-password-reset', {
            email: 'mailed@example.com',
            redirectTo: '/reset-password',
          })
        ).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe("Better Auth's official client reads our answers (item 12)", () => {
  let test: Harness;
  beforeAll(async () => {
    test = await startApp({}, { perIp: LOOSE_IP, perEmail: { max: 2, windowMs: 60_000 } });
    await signedInUser(test, 'client@example.com', 'right-password');
  });
  afterAll(async () => {
    await test?.close();
  });

  it('gets code and message for a wrong password, a refused field and a 429', async () => {
    const client = createAuthClient({
      baseURL: test.origin,
      fetchOptions: { headers: { origin: test.config.publicUrl } },
    });
    const wrong = await client.signIn.email({ email: 'client@example.com', password: 'wrong-password' });
    expect(wrong.error).toMatchObject({
      status: 401,
      code: 'INVALID_EMAIL_OR_PASSWORD',
      message: 'Invalid email or password',
    });

    const refused = await client.signUp.email({
      name: 'n'.repeat(41),
      email: 'new-client@example.com',
      password: 'secret-password',
    });
    expect(refused.error).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'name: Name must be at most 40 characters long',
    });

    await client.signIn.email({ email: 'client@example.com', password: 'wrong-password' });
    const limited = await client.signIn.email({ email: 'client@example.com', password: 'right-password' });
    expect(limited.error).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      message: expect.stringMatching(/^Too many attempts\. Please wait \d+ seconds and try again\.$/),
    });
  });

  it('keeps docs/SPEC.md’s { success, error } on /api/auth/register', async () => {
    const answer = await rawRequest(
      test.origin,
      'POST',
      '/api/auth/register',
      json(test, { email: 'spec@example.com', password: 'secret1', username: 'u'.repeat(41) }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 'username: Username must be at most 40 characters long' });
  });
});
