// Issue 33, item 1: a cookie planted beside a victim's real session cookie must not borrow the
// victim's dashboard access. The gate asks Better Auth, which verifies the cookie of the
// deployment's own name; nothing is remembered under raw cookie text, so a tossed value stays
// a stranger whatever it was sent with. Reproduced on an https deployment (the session cookie
// is `__Secure-better-auth.session_token` there, the tossed one has the plain name).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser } from '../testing/http.ts';
import { signedInUser, subscribedUser } from '../testing/users.ts';

const HTTPS_DEPLOYMENT = {
  PUBLIC_URL: 'https://app.example.test',
  BILLING: 'test',
  NODE_ENV: 'test',
  TEST_HOOKS: 'true',
};

describe('a planted session cookie (issue 33, item 1)', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp(HTTPS_DEPLOYMENT);
  });
  afterAll(async () => {
    await test?.close();
  });

  // What the victim's own request with both cookies gets: Better Auth reads the cookie of the
  // deployment's name, the first one when the name comes twice (then the victim is refused,
  // never let in as the tossed value).
  it.each([
    [
      'the plain name before the deployment cookie',
      200,
      (victim: string) => `better-auth.session_token=tossed-123; ${victim}`,
    ],
    ['the same name twice', 401, (victim: string) => `${victim.replace(/=.*$/, '=tossed-123.c2ln')}; ${victim}`],
    [
      'the plain name after the deployment cookie',
      200,
      (victim: string) => `${victim}; better-auth.session_token=tossed-123`,
    ],
  ])('passes nothing on to the tossed value alone: %s', async (_case, bothStatus, plant) => {
    const { browser } = await subscribedUser(test, `victim-${Math.random().toString(36).slice(2)}@example.com`);
    const victim = browser.cookieHeader
      .split('; ')
      .find((cookie) => cookie.startsWith('__Secure-better-auth.session_token='))!;
    expect(victim).toBeDefined();
    const attacker = new Browser(test.app, test.config.publicUrl);
    const send = (cookie: string, url: string) => attacker.request('GET', url, undefined, { cookie });

    expect((await send('better-auth.session_token=tossed-123', '/api/alert-rules/webhook')).statusCode).toBe(401);
    // The victim's browser carries both.
    expect((await send(plant(victim), '/external-api/coinbase-prices')).statusCode).toBe(bothStatus);
    // The tossed value alone is still nobody, on every kind of dashboard route.
    for (const url of ['/api/alert-rules/webhook', '/files', '/external-api/coinbase-prices', '/prompts']) {
      expect((await send('better-auth.session_token=tossed-123', url)).statusCode).toBe(401);
      expect((await send('__Secure-better-auth.session_token=tossed-123.c2ln', url)).statusCode).toBe(401);
    }
  });

  it('counts password guesses under the session cookie Better Auth names on this deployment', async () => {
    expect((await test.app.services.auth.$context).authCookies.sessionToken.name).toBe(
      '__Secure-better-auth.session_token',
    );
    const { browser } = await signedInUser(test, 'https-guess@example.com', 'first-password');
    // A plain-named cookie planted in front must not start a fresh count for the same session.
    const planted = `better-auth.session_token=tossed-123; ${browser.cookieHeader}`;
    const change = (currentPassword: string) =>
      test.app.inject({
        method: 'POST',
        url: '/api/account/reset-password',
        headers: { cookie: planted, origin: test.config.publicUrl, 'content-type': 'application/json' },
        payload: { newPassword: 'second-password', currentPassword },
      });
    for (let guess = 0; guess < 10; guess += 1) expect((await change(`guess-${guess}-password`)).statusCode).toBe(403);
    expect((await change('first-password')).statusCode).toBe(429);
  });
});
