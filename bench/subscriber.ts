// A subscriber for benchmarks, made through the app's own routes (register, the e-mailed
// verification link from the embedded outbox, the TEST MODE checkout), like a trader would.
import { createHmac } from 'node:crypto';
import type { App } from '../src/server/app.ts';
import { grantPlan } from '../src/server/billing/service.ts';
import type { DatabaseHandle } from '../src/server/db/client.ts';
import { latestOutboxMessages } from '../src/server/mail/mailer.ts';
import { Browser, jsonBody } from '../src/server/testing/http.ts';

/** Registers, verifies and subscribes a user through the app's own routes; returns the cookie. */
export async function subscriberCookie(
  app: App,
  origin: string,
  database: DatabaseHandle,
  email: string,
): Promise<string> {
  const browser = new Browser(app, origin);
  const expectStatus = (what: string, status: number, wanted: number) => {
    if (status !== wanted) throw new Error(`${what} answered ${status}, expected ${wanted}`);
  };
  expectStatus(
    'register',
    (await browser.post('/api/auth/register', { email, password: 'secret-password', username: 'bench' })).statusCode,
    200,
  );
  const [mail] = await latestOutboxMessages(database.db, email);
  const link = mail?.text.match(/https?:\/\/\S+/)?.[0];
  if (!link) throw new Error('No verification e-mail in the outbox');
  const verify = new URL(link);
  await browser.get(`${verify.pathname}${verify.search}`);
  const me = jsonBody<{ user?: { id: string; email: string } }>(await browser.get('/api/me'));
  if (me.user?.email !== email) throw new Error('The verified user is not signed in');
  const checkout = await browser.post('/api/subscriptions/create-checkout', {
    priceId: 'three-day',
    userId: me.user.id,
    email,
  });
  expectStatus('create-checkout', checkout.statusCode, 200);
  const sessionId = jsonBody<{ sessionId: string }>(checkout).sessionId;
  const paid = await browser.submitForm(`/checkout/test/${sessionId}`, {
    card: '4242 4242 4242 4242',
    expiry: '12/39',
    cvc: '123',
  });
  expectStatus('test checkout', paid.statusCode, 303);
  return browser.cookieHeader;
}

/** A session cookie's value as Better Auth signs it (better-call's signCookieValue): token.HMAC. */
export function signedCookieValue(token: string, secret: string): string {
  return encodeURIComponent(`${token}.${createHmac('sha256', secret).update(token).digest('base64')}`);
}

/**
 * More subscribers, quickly: accounts (e-mail verified) made with Better Auth's own adapter,
 * 3-Day Access granted as `npm run admin -- grant --plan 3day` does, and a session each
 * (createSession, what a sign-in does after the password check) with its signed cookie.
 * Returns one Cookie header per subscriber.
 */
export async function grantedSubscriberCookies(app: App, count: number, secret: string): Promise<string[]> {
  const context = await app.services.auth.$context;
  const cookieName = context.authCookies.sessionToken.name;
  const cookies: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const username = `fanout${index}`;
    const user = await context.internalAdapter.createUser(
      { email: `${username}@example.com`, name: username, username, emailVerified: true },
      { method: 'email-password' },
    );
    await grantPlan(app.services.database.db, user.id, '3day');
    const session = await context.internalAdapter.createSession(user.id);
    cookies.push(`${cookieName}=${signedCookieValue(session.token, secret)}`);
  }
  return cookies;
}
