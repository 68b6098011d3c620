// Issue 14, item 8: a form auto-submitted from another port of the same host created a
// conversation in the victim's account (SameSite=Lax counts it as same-site). Every
// state-changing route now checks Origin / Sec-Fetch-Site; this walks the whole route table.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { subscribedUser } from '../testing/users.ts';
import { CSRF_EXEMPT_ROUTES, CSRF_REFUSAL, isSameOriginRequest } from './csrf.ts';
import { jsonBody } from '../testing/http.ts';

let test: TestApp;
let cookie: string;
let userId: string;
let appOrigin: string;
/** The same host on another port: same-site for SameSite=Lax, another origin for us. */
let otherPort: string;

function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, 'probe-id').replace(/\*$/, 'probe');
}

async function conversationCount(): Promise<number> {
  const [row] = await test.database.db
    .select({ n: count() })
    .from(conversations)
    .where(eq(conversations.userId, userId));
  return row!.n;
}

function createConversation(headers: Record<string, string>) {
  return test.app.inject({
    method: 'POST',
    url: '/api/conversations',
    headers: { cookie, 'content-type': 'application/json', ...headers },
    payload: '{}',
  });
}

beforeAll(async () => {
  test = await createTestApp();
  appOrigin = new URL(test.config.publicUrl).origin;
  const url = new URL(appOrigin);
  otherPort = `${url.protocol}//${url.hostname}:${Number(url.port) + 1}`;
  const victim = await subscribedUser(test, 'csrf-victim@example.com');
  cookie = victim.browser.cookieHeader;
  userId = victim.userId;
}, 60_000);

afterAll(async () => {
  await test?.close();
});

describe('CSRF guard on the app routes', () => {
  it('refuses a form posted from another port of the same host, and creates nothing', async () => {
    const before = await conversationCount();
    // What the attacker's page makes the victim's browser send: a simple form post.
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/conversations',
      headers: {
        cookie,
        origin: otherPort,
        'sec-fetch-site': 'same-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'title=pwned',
    });
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toContain('application/json');
    expect(response.json()).toEqual({ error: CSRF_REFUSAL });
    // The same with a JSON body and only the Origin header.
    expect((await createConversation({ origin: otherPort })).statusCode).toBe(403);
    expect(await conversationCount()).toBe(before);
  });

  it('allows the same origin, a browser saying same-origin, and clients that are no browser', async () => {
    const before = await conversationCount();
    expect((await createConversation({ origin: appOrigin })).statusCode).toBe(200);
    expect((await createConversation({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    // curl, the admin CLI, server to server: neither header.
    expect((await createConversation({})).statusCode).toBe(200);
    // Chrome's own form posts under Referrer-Policy: no-referrer (the TEST MODE checkout form).
    expect((await createConversation({ origin: 'null', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect(await conversationCount()).toBe(before + 4);
  });

  it.each([
    [{ origin: 'http://evil.example' }],
    [{ origin: 'https://127.0.0.1:3000' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ origin: 'null' }],
    [{ origin: 'null', 'sec-fetch-site': 'cross-site' }],
  ])('refuses %o', async (headers) => {
    const response = await createConversation(headers);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: CSRF_REFUSAL });
  });

  it("serves pages with Referrer-Policy: same-origin, so the app's own form posts carry their Origin", async () => {
    // Under no-referrer, browsers send `Origin: null` on same-origin form posts (the TEST MODE
    // checkout), and no Sec-Fetch-Site over plain http on a LAN address: indistinguishable
    // from a forgery.
    const response = await test.app.inject({ method: 'GET', url: '/api/plans' });
    expect(response.headers['referrer-policy']).toBe('same-origin');
  });

  it('leaves reads alone: a cross-site GET is answered as usual', async () => {
    const response = await test.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { cookie, origin: otherPort, 'sec-fetch-site': 'same-site' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('guards every state-changing route of the route table before anything else answers', async () => {
    const changing = test.app.routeTable.filter((route) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method));
    expect(changing.map((route) => `${route.method} ${route.url}`)).toEqual(
      expect.arrayContaining([
        'POST /api/conversations',
        'POST /upload',
        'DELETE /files/:id',
        'PUT /api/watchlists/chart',
        'POST /api/subscriptions/create-checkout',
        'POST /api/auth/register',
        'POST /api/auth/*',
        'POST /checkout/test/:sessionId',
      ]),
    );
    for (const route of changing) {
      for (const headers of [{ origin: otherPort }, { 'sec-fetch-site': 'cross-site' }]) {
        for (const asUser of [true, false]) {
          const response = await test.app.inject({
            method: route.method as 'POST' | 'PUT' | 'PATCH' | 'DELETE',
            url: concrete(route.url),
            headers: { ...headers, ...(asUser ? { cookie } : {}), 'content-type': 'application/json' },
            payload: '{}',
          });
          expect({
            route: `${route.method} ${route.url}`,
            headers,
            asUser,
            status: response.statusCode,
            body: response.json(),
          }).toEqual({
            route: `${route.method} ${route.url}`,
            headers,
            asUser,
            status: 403,
            body: { error: CSRF_REFUSAL },
          });
        }
      }
    }
  });
});

describe('the Stripe webhook', () => {
  let stripeApp: TestApp;
  beforeAll(async () => {
    stripeApp = await createTestApp({ STRIPE_SECRET_KEY: 'sk_test_csrf', STRIPE_WEBHOOK_SECRET: 'whsec_csrf' });
  });
  afterAll(async () => {
    await stripeApp?.close();
  });

  it('is exempt (Stripe posts it and signs it): a foreign origin reaches the signature check', async () => {
    expect([...CSRF_EXEMPT_ROUTES]).toEqual(['POST /api/webhooks/stripe']);
    expect(stripeApp.app.routeTable).toContainEqual(
      expect.objectContaining({ method: 'POST', url: '/api/webhooks/stripe' }),
    );
    const response = await stripeApp.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe',
      headers: {
        origin: 'https://hooks.stripe.com',
        'content-type': 'application/json',
        'stripe-signature': 't=1,v1=bad',
      },
      payload: '{}',
    });
    expect(response.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(response).error).not.toBe(CSRF_REFUSAL);
  });
});

describe('isSameOriginRequest', () => {
  it('compares whole origins: scheme, host and port', () => {
    const app = 'https://app.example.com';
    expect(isSameOriginRequest({ origin: 'https://app.example.com' }, app)).toBe(true);
    expect(isSameOriginRequest({ origin: 'HTTPS://APP.EXAMPLE.COM' }, app)).toBe(true);
    expect(isSameOriginRequest({ origin: 'http://app.example.com' }, app)).toBe(false);
    expect(isSameOriginRequest({ origin: 'https://app.example.com:8443' }, app)).toBe(false);
    expect(isSameOriginRequest({ origin: 'https://evil.app.example.com' }, app)).toBe(false);
    expect(isSameOriginRequest({ origin: 'https://app.example.com.evil.example' }, app)).toBe(false);
    // A matching Origin is enough; a browser that sends Origin never contradicts it.
    expect(isSameOriginRequest({ origin: 'https://app.example.com', 'sec-fetch-site': 'same-origin' }, app)).toBe(true);
    expect(isSameOriginRequest({ 'sec-fetch-site': 'none' }, app)).toBe(true);
    expect(isSameOriginRequest({}, app)).toBe(true);
  });
});
