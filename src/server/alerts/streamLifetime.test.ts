// How long a live alert stream may live, over real sockets: it ends at sign-out, at session
// revocation and password change, at the subscription's period end and at an out-of-band
// revocation (another instance, the admin CLI); one user holds at most ten; other users'
// streams are untouched throughout.
import { and, eq } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscriptionAccess, dashboardFeature, registerDashboardApi } from '../auth/service.ts';
import { currentSubscription } from '../billing/service.ts';
import { subscriptions } from '../db/schema.ts';
import { errorHandling } from '../http/errors.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import type { LiveAlert } from './bus.ts';
import { alertStreamRoutes } from './stream.ts';

/** Streams one user may hold (the figure; stream.ts's CAP). */
const CAP = 10;

let test: TestApp;
let base: string;
const watchers: Watcher[] = [];

function baseOf(app: FastifyInstance): string {
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

beforeAll(async () => {
  test = await createTestApp();
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  base = baseOf(test.app);
});
afterAll(async () => {
  for (const watcher of watchers) await watcher.stop();
  await test?.close();
});

interface Watcher {
  status: number;
  messages: string[];
  endReason: string | null;
  /** Date.now() when the server ended the stream, null while it is open. */
  endedAt: number | null;
  stop(): Promise<void>;
}

/** Opens a stream and reads it in the background, noting alerts, the end event and the end. */
async function watch(cookie: string, origin = base): Promise<Watcher> {
  const controller = new AbortController();
  const response = await fetch(`${origin}/api/alerts/stream`, { headers: { cookie }, signal: controller.signal });
  const watcher: Watcher = {
    status: response.status,
    messages: [],
    endReason: null,
    endedAt: null,
    async stop() {
      controller.abort();
      await reading.catch(() => undefined);
    },
  };
  watchers.push(watcher);
  const reading = (async () => {
    if (!response.body) return;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop() ?? '';
      for (const block of blocks) {
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event === 'alert' && data) watcher.messages.push((JSON.parse(data) as LiveAlert).message);
        if (event === 'end' && data) watcher.endReason = (JSON.parse(data) as { reason: string }).reason;
      }
    }
    watcher.endedAt = Date.now();
  })();
  reading.catch(() => undefined);
  // The stream is registered once its first bytes arrived.
  await new Promise((resolve) => setTimeout(resolve, 150));
  return watcher;
}

let nextAlertId = 1000;
async function publish(message: string) {
  await test.app.services.alertBus.publish([
    {
      id: (nextAlertId += 1),
      source: 'demo',
      ticker: 'BTC',
      alert_type: 'BreakoutAlertGenerator',
      message,
      timestamp: '2026-01-01 00:00:00',
    },
  ]);
}

/** Another session of the same account, as a second browser would open it. */
async function signIn(email: string, password = 'secret-password'): Promise<Browser> {
  const browser = new Browser(test.app, test.config.publicUrl);
  const response = await browser.post('/api/auth/sign-in/email', { email, password });
  expect(response.statusCode).toBe(200);
  return browser;
}

// How soon "at once" must be: far below the 30 s periodic re-check (so only the immediate
// re-check or the period-end timer can pass), with room for a busy 2-core CI machine.
const PROMPTLY_MS = 3000;

describe('live alert streams end with the access they were opened with', () => {
  it('ends at once at sign-out, leaving other users streaming', async () => {
    const { browser } = await subscribedUser(test, 'stream-signout@example.com');
    const { browser: bystander } = await subscribedUser(test, 'stream-bystander@example.com');
    const mine = await watch(browser.cookieHeader);
    const theirs = await watch(bystander.cookieHeader);
    expect([mine.status, theirs.status]).toEqual([200, 200]);

    const signedOutAt = Date.now();
    expect((await browser.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    await expect.poll(() => mine.endedAt, { timeout: PROMPTLY_MS, interval: 20 }).not.toBeNull();
    expect(mine.endedAt! - signedOutAt).toBeLessThan(PROMPTLY_MS);
    expect(mine.endReason).toBe('signed-out');

    await publish('after the sign-out');
    await expect.poll(() => theirs.messages).toContain('after the sign-out');
    expect(theirs.endedAt).toBeNull();
    expect(mine.messages).not.toContain('after the sign-out');
  });

  it('ends the streams of revoked sessions and of sessions a password change ended, keeping the current one', async () => {
    const { browser: laptop } = await subscribedUser(test, 'stream-revoke@example.com');
    const phone = await signIn('stream-revoke@example.com');
    const tablet = await signIn('stream-revoke@example.com');
    const onLaptop = await watch(laptop.cookieHeader);
    const onPhone = await watch(phone.cookieHeader);
    expect([onLaptop.status, onPhone.status]).toEqual([200, 200]);

    expect((await laptop.post('/api/auth/revoke-other-sessions', {})).statusCode).toBe(200);
    await expect.poll(() => onPhone.endedAt, { timeout: PROMPTLY_MS, interval: 20 }).not.toBeNull();
    expect(onPhone.endReason).toBe('signed-out');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(onLaptop.endedAt).toBeNull();

    const again = await signIn('stream-revoke@example.com');
    const onAgain = await watch(again.cookieHeader);
    expect(onAgain.status).toBe(200);
    const changed = await laptop.post('/api/auth/change-password', {
      currentPassword: 'secret-password',
      newPassword: 'another-secret-1',
      revokeOtherSessions: true,
    });
    expect(changed.statusCode).toBe(200);
    await expect.poll(() => onAgain.endedAt, { timeout: PROMPTLY_MS, interval: 20 }).not.toBeNull();

    // The tablet's session was revoked before it streamed: it cannot open one either.
    expect((await watch(tablet.cookieHeader)).status).toBe(401);
    // The laptop changed its own password and stays signed in (with a fresh cookie).
    const fresh = await watch(laptop.cookieHeader);
    expect(fresh.status).toBe(200);
    await publish('after the password change');
    await expect.poll(() => fresh.messages).toContain('after the password change');
  });

  it('ends at the subscription period end', async () => {
    const { browser, userId } = await subscribedUser(test, 'stream-expiry@example.com');
    const periodEnd = Date.now() + 1500;
    await test.database.db
      .update(subscriptions)
      .set({ currentPeriodEnd: new Date(periodEnd) })
      .where(eq(subscriptions.userId, userId));
    const stream = await watch(browser.cookieHeader);
    expect(stream.status).toBe(200);
    await expect.poll(() => stream.endedAt, { timeout: 1500 + PROMPTLY_MS, interval: 20 }).not.toBeNull();
    expect(stream.endedAt!).toBeGreaterThanOrEqual(periodEnd);
    expect(stream.endedAt! - periodEnd).toBeLessThan(PROMPTLY_MS);
    expect(stream.endReason).toBe('subscription-ended');
  });

  it(`closes a user's oldest stream when an ${CAP + 1}th opens`, async () => {
    const { browser } = await subscribedUser(test, 'stream-cap@example.com');
    const { browser: bystander } = await subscribedUser(test, 'stream-cap-bystander@example.com');
    const theirs = await watch(bystander.cookieHeader);
    const streams: Watcher[] = [];
    for (let index = 0; index < CAP; index += 1) streams.push(await watch(browser.cookieHeader));
    expect(streams.every((stream) => stream.status === 200 && stream.endedAt === null)).toBe(true);

    const eleventh = await watch(browser.cookieHeader);
    expect(eleventh.status).toBe(200);
    await expect.poll(() => streams[0]!.endedAt, { timeout: PROMPTLY_MS, interval: 20 }).not.toBeNull();
    expect(streams[0]!.endReason).toBe('too-many-streams');

    await publish('to the newest ten');
    const open = [...streams.slice(1), eleventh];
    await expect.poll(() => open.every((stream) => stream.messages.includes('to the newest ten'))).toBe(true);
    expect(open.every((stream) => stream.endedAt === null)).toBe(true);
    await expect.poll(() => theirs.messages).toContain('to the newest ten');
  });
});

describe('a stream on another instance (no shared access cache)', () => {
  let other: FastifyInstance;
  let otherBase: string;

  beforeAll(async () => {
    // A second instance on the same database and bus: the real gate and stream route, told of
    // nothing this instance does, so only its periodic re-check can notice a revocation.
    other = Fastify({ logger: false });
    other.setValidatorCompiler(validatorCompiler);
    other.setSerializerCompiler(serializerCompiler);
    await other.register(errorHandling);
    other.decorate('routeTable', []);
    const { auth, alertBus, database } = test.app.services;
    await registerDashboardApi(other, {
      auth,
      subscriptionAccess: createSubscriptionAccess((userId) => currentSubscription(database.db, userId)),
      features: [dashboardFeature(alertStreamRoutes, { db: database.db, bus: alertBus, recheckMs: 300 })],
    });
    await other.listen({ host: '127.0.0.1', port: 0 });
    otherBase = baseOf(other);
  });
  afterAll(async () => {
    await other?.close();
  });

  it('ends after an admin revocation and after a sign-out made elsewhere, within the re-check interval', async () => {
    const { browser, userId } = await subscribedUser(test, 'stream-admin@example.com');
    const { browser: second } = await subscribedUser(test, 'stream-elsewhere@example.com');
    const revoked = await watch(browser.cookieHeader, otherBase);
    const signedOut = await watch(second.cookieHeader, otherBase);
    expect([revoked.status, signedOut.status]).toEqual([200, 200]);

    // What `npm run admin -- revoke` does.
    await test.database.db
      .update(subscriptions)
      .set({ status: 'canceled', currentPeriodEnd: new Date(), updatedAt: new Date() })
      .where(and(eq(subscriptions.userId, userId), eq(subscriptions.status, 'active')));
    await expect.poll(() => revoked.endedAt, { timeout: 1500, interval: 20 }).not.toBeNull();
    expect(revoked.endReason).toBe('subscription-ended');

    expect(signedOut.endedAt).toBeNull();
    expect((await second.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    await expect.poll(() => signedOut.endedAt, { timeout: 1500, interval: 20 }).not.toBeNull();
    expect(signedOut.endReason).toBe('signed-out');
  });
});
