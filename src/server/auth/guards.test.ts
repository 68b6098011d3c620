// The dashboard gate: Better Auth's session cookie cache spares the database, yet a sign-out
// ends access at once even for a replayed cookie (the cache's version moves); the subscription
// check is remembered by user id, never past the period end, and a burst shares one read.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { currentSubscription } from '../billing/service.ts';
import { session, subscriptions } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { createSubscriptionAccess, sessionTokenIn } from './guards.ts';
import { createSessionChanges } from './sessionChanges.ts';

describe('sessionTokenIn', () => {
  const plain = 'better-auth.session_token';
  it.each([
    ['better-auth.session_token=abc123.c2lnbmF0dXJl', plain, 'abc123'],
    ['better-auth.session_token=abc123.c2ln%2Bb%2F%3D', plain, 'abc123'],
    ['theme=dark; better-auth.session_token=tok.sig', plain, 'tok'],
    ['better-auth.session_token=no-signature', plain, null],
    ['better-auth.session_token=.sig', plain, null],
    ['better-auth.session_token=%E0%A4%A.sig', plain, null],
    // Only the deployment's own name counts, and its first occurrence (as Better Auth reads it).
    ['__Secure-better-auth.session_token=tok.sig', plain, null],
    ['better-auth.session_token=tossed.x; __Secure-better-auth.session_token=tok.sig', '__Secure-' + plain, 'tok'],
    ['better-auth.session_token=first.x; better-auth.session_token=second.y', plain, 'first'],
    ['xbetter-auth.session_token=tok.sig', plain, null],
  ])('reads %s (cookie %s) as %s', (cookie, name, token) => {
    expect(sessionTokenIn(cookie, name)).toBe(token);
  });
});

describe('createSessionChanges', () => {
  it('moves its generation and tells its listeners after every change, even when one throws', () => {
    const changes = createSessionChanges();
    const heard: string[] = [];
    changes.onChange(() => {
      throw new Error('a broken listener');
    });
    const stop = changes.onChange(() => heard.push(changes.generation));
    const first = changes.generation;
    changes.changed();
    changes.changed();
    stop();
    changes.changed();
    expect(heard).toEqual(['1', '2']);
    expect(new Set([first, ...heard, changes.generation]).size).toBe(4);
  });
});

describe('the dashboard gate', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp();
  });
  afterAll(async () => {
    await test?.close();
  });

  it("keeps the session token Better Auth verified on the request's cookie", async () => {
    const { browser, userId } = await subscribedUser(test, 'token-of-cookie@example.com');
    const [row] = await test.database.db.select().from(session).where(eq(session.userId, userId));
    // Better Auth's own name for the cookie on an http deployment (no `__Secure-` prefix).
    const name = (await test.app.services.auth.$context).authCookies.sessionToken.name;
    expect(name).toBe('better-auth.session_token');
    expect(sessionTokenIn(browser.cookieHeader, name)).toBe(row!.token);
  });

  it('reads a cached session without the database, and a replayed cookie is refused right after sign-out', async () => {
    const { browser } = await subscribedUser(test, 'gate-signout@example.com');
    expect((await browser.get('/prompts')).statusCode).toBe(200);
    // The signed session copy Better Auth keeps in a cookie (its cookie cache).
    expect(browser.cookieHeader).toMatch(/better-auth\.session_data=/);
    const stolen = browser.cookieHeader;
    const replay = new Browser(test.app, test.config.publicUrl);
    const { internalAdapter } = await test.app.services.auth.$context;
    const sessionReads = vi.spyOn(internalAdapter, 'findSession');
    try {
      expect((await replay.request('GET', '/prompts', undefined, { cookie: stolen })).statusCode).toBe(200);
      expect(sessionReads).not.toHaveBeenCalled();
    } finally {
      sessionReads.mockRestore();
    }
    expect((await browser.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    // The stolen copy still carries a valid signed session_data cookie: the moved generation
    // sends it to the database, where the session is gone.
    const response = await replay.request('GET', '/prompts', undefined, { cookie: stolen });
    expect(response.statusCode).toBe(401);
  });

  it('stops access when the subscription period ends, even within the cache TTL', async () => {
    const { browser, userId } = await subscribedUser(test, 'gate-expiry@example.com');
    await test.database.db
      .update(subscriptions)
      .set({ currentPeriodEnd: new Date(Date.now() + 800) })
      .where(eq(subscriptions.userId, userId));
    expect((await browser.get('/prompts')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect((await browser.get('/prompts')).statusCode).toBe(403);
  });
});

describe('createSubscriptionAccess', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp();
  });
  afterAll(async () => {
    await test?.close();
  });

  it('reads a burst of checks of one user once, each user apart, and keeps no refusal', async () => {
    const { userId } = await subscribedUser(test, 'access-burst@example.com');
    const { userId: other } = await subscribedUser(test, 'access-burst-other@example.com');
    const reads = vi.fn((id: string) => currentSubscription(test.database.db, id));
    {
      const access = createSubscriptionAccess(reads);
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, () => access.isActive(userId)),
        ...Array.from({ length: 4 }, () => access.isActive(other)),
      ]);
      expect(answers).toEqual(Array(12).fill(true));
      expect(reads).toHaveBeenCalledTimes(2);
      expect(await access.isActive('nobody')).toBe(false);
      expect(await access.isActive('nobody')).toBe(false);
      expect(reads).toHaveBeenCalledTimes(4);
      access.clear();
      expect(await access.isActive(userId)).toBe(true);
      expect(reads).toHaveBeenCalledTimes(5);
    }
  });
});
