// Test users through the real flows: register, open the e-mailed verification link, and
// (optionally) buy a plan on the built-in test checkout.
import { expect } from 'vitest';
import { latestOutboxMessages } from '../mail/service.ts';
import type { TestApp } from './app.ts';
import { Browser, jsonBody } from './http.ts';

export async function signedInUser(
  test: TestApp,
  email: string,
  password = 'secret-password',
): Promise<{ browser: Browser; userId: string }> {
  const browser = new Browser(test.app, test.config.publicUrl);
  const registered = await browser.post('/api/auth/register', { email, password, username: email.split('@')[0] });
  expect(registered.statusCode).toBe(200);
  const [mail] = await latestOutboxMessages(test.database.db, email);
  const link = new URL(mail!.text.match(/https?:\/\/\S+/)![0]);
  await browser.get(`${link.pathname}${link.search}`);
  const me = jsonBody<{ user: { id: string; email: string } }>(await browser.get('/api/me'));
  expect(me.user.email).toBe(email);
  return { browser, userId: me.user.id };
}

export async function payOnTestCheckout(
  browser: Browser,
  userId: string,
  priceId: string,
  card = '4242 4242 4242 4242',
) {
  const checkout = await browser.post('/api/subscriptions/create-checkout', {
    priceId,
    userId,
    email: 'ignored@example.com',
  });
  expect(checkout.statusCode).toBe(200);
  const sessionId = jsonBody<{ sessionId: string }>(checkout).sessionId;
  const response = await browser.submitForm(`/checkout/test/${sessionId}`, { card, expiry: '12/39', cvc: '123' });
  return { sessionId, response };
}

export async function subscribedUser(test: TestApp, email: string, priceId = 'three-day') {
  const user = await signedInUser(test, email);
  const { response } = await payOnTestCheckout(user.browser, user.userId, priceId);
  expect(response.statusCode).toBe(303);
  return user;
}
