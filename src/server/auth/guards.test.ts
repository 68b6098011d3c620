// The dashboard gate's access cache: grants expire after the TTL and never outlive the
// subscription's period end, and a sign-out ends access at once even for a replayed cookie.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { session, subscriptions } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { createAccessCache, sessionTokenOf, type SessionUser } from './guards.ts';

const trader: SessionUser = { id: 'u1', email: 'u1@example.com', username: 'u1', emailVerified: true };

describe('sessionTokenOf', () => {
  it.each([
    ['better-auth.session_token=abc123.c2lnbmF0dXJl', 'abc123'],
    ['better-auth.session_token=abc123.c2ln%2Bb%2F%3D', 'abc123'],
    ['__Secure-better-auth.session_token=tok.sig', 'tok'],
    ['better-auth.session_token=no-signature', null],
    ['better-auth.session_token=.sig', null],
    ['better-auth.session_token=%E0%A4%A.sig', null],
  ])('reads %s as %s', (cookie, token) => {
    expect(sessionTokenOf(cookie)).toBe(token);
  });
});

describe('createAccessCache', () => {
  it('keeps a grant for the TTL, never past the period end, and forgets everything on clear', () => {
    let clock = 1_000_000;
    const cache = createAccessCache(5_000, 10, () => clock);
    cache.grant('a', trader, Number.POSITIVE_INFINITY);
    cache.grant('b', trader, clock + 1_000);
    expect(cache.get('a')).toEqual(trader);
    expect(cache.get('b')).toEqual(trader);
    clock += 1_001;
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(trader);
    clock += 4_000;
    expect(cache.get('a')).toBeUndefined();
    cache.grant('c', trader, Number.POSITIVE_INFINITY);
    cache.clear();
    expect(cache.get('c')).toBeUndefined();
  });

  it('stays bounded, forgetting the oldest grant first', () => {
    const cache = createAccessCache(60_000, 2, () => 0);
    cache.grant('first', trader, 10);
    cache.grant('second', trader, 10);
    cache.grant('third', trader, 10);
    expect(cache.get('first')).toBeUndefined();
    expect(cache.get('second')).toEqual(trader);
    expect(cache.get('third')).toEqual(trader);
  });

  it('tells its listeners after every clear, even when one of them throws, until they unsubscribe', () => {
    const cache = createAccessCache();
    const heard: string[] = [];
    cache.onClear(() => {
      throw new Error('a broken listener');
    });
    const stop = cache.onClear(() => heard.push('cleared'));
    cache.clear();
    cache.clear();
    stop();
    cache.clear();
    expect(heard).toEqual(['cleared', 'cleared']);
  });
});

describe('the dashboard gate with its cache', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp();
  });
  afterAll(async () => {
    await test?.close();
  });

  it("sessionTokenOf reads the token of a real session's cookie", async () => {
    const { browser, userId } = await subscribedUser(test, 'token-of-cookie@example.com');
    const cookie = /better-auth\.session_token=[^;]+/.exec(browser.cookieHeader)![0];
    const [row] = await test.database.db.select().from(session).where(eq(session.userId, userId));
    expect(sessionTokenOf(cookie)).toBe(row.token);
  });

  it('refuses a replayed cookie right after sign-out', async () => {
    const { browser } = await subscribedUser(test, 'gate-signout@example.com');
    expect((await browser.get('/prompts')).statusCode).toBe(200);
    expect((await browser.get('/prompts')).statusCode).toBe(200);
    const stolen = browser.cookieHeader;
    expect((await browser.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    const replay = new Browser(test.app, test.config.publicUrl);
    const response = await replay.request('GET', '/prompts', undefined, { cookie: stolen });
    expect(response.statusCode).toBe(401);
  });

  it('stops access when the subscription period ends, even within the TTL', async () => {
    const { browser, userId } = await subscribedUser(test, 'gate-expiry@example.com');
    await test.database.db
      .update(subscriptions)
      .set({ currentPeriodEnd: new Date(Date.now() + 800) })
      .where(eq(subscriptions.userId, userId));
    expect((await browser.get('/prompts')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect((await browser.get('/prompts')).statusCode).toBe(403);
  });

  it('checks a burst of calls with one cookie once, each cookie apart', async () => {
    const { browser } = await subscribedUser(test, 'gate-burst@example.com');
    const other = await subscribedUser(test, 'gate-burst-other@example.com');
    const leaving = await subscribedUser(test, 'gate-burst-leaving@example.com');
    // Any sign-out empties the cache: every cookie below must be checked again.
    expect((await leaving.browser.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    const lookups = vi.spyOn(test.app.services.auth.api, 'getSession');
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, () => browser.get('/prompts')),
        ...Array.from({ length: 4 }, () => other.browser.get('/prompts')),
      ]);
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(12).fill(200));
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
    }
  });
});
