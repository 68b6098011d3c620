// The Stripe provider and webhook against a local fake Stripe API with really signed events:
// checkout modes and amounts, replayed, concurrent and out-of-order events, bad signatures,
// Stripe outages, the /success re-check, cancel at period end, and the dashboard gate.
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { checkoutSessions, prices, subscriptions, webhookEvents } from '../db/schema.ts';
import { openTestDatabase } from '../db/testing.ts';
import type { TestApp } from '../testing/app.ts';
import { startFakeStripe, type FakeStripe, type SignedEvent, type StripeObject } from '../testing/fakeStripe.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { signedInUser } from '../testing/users.ts';
import { seedPlans } from './service.ts';
import { createStripeProvider, mapStripeStatus, STRIPE_API_VERSION } from './stripe.ts';

const WEBHOOK_SECRET = 'whsec_test';
let fake: FakeStripe;
let test: TestApp;

beforeAll(async () => {
  fake = await startFakeStripe();
  const database = await openTestDatabase('pglite');
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: '.data-test/unit',
    LOG_LEVEL: 'silent',
    MARKET_DATA: 'demo',
    STRIPE_SECRET_KEY: 'sk_test_x',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
    STRIPE_PRICE_MONTHLY: 'price_monthly_configured',
  });
  const app = await buildApp({
    config,
    database,
    webRoot: null,
    logger: false,
    stripeApi: { host: '127.0.0.1', port: fake.port, protocol: 'http' },
  });
  await app.ready();
  test = {
    app,
    database,
    config,
    async close() {
      await app.close();
      await database.close();
    },
  };
});
afterAll(async () => {
  await test?.close();
  await fake?.close();
});
beforeEach(async () => {
  await test.database.truncateAll();
  await seedPlans(test.database.db, test.config);
});

async function checkout(browser: Browser, userId: string, priceId: string) {
  const response = await browser.post('/api/subscriptions/create-checkout', {
    priceId,
    userId,
    email: 'typed-in@example.com',
  });
  expect(response.statusCode).toBe(200);
  return jsonBody<{
    success: boolean;
    sessionId: string;
    url: string;
    provider: string;
    publishableKey: string;
  }>(response);
}

function deliver(event: SignedEvent) {
  return test.app.inject({
    method: 'POST',
    url: '/api/webhooks/stripe',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': event.signature },
    payload: event.payload,
  });
}

function event(type: string, object: StripeObject) {
  return fake.signedEvent(type, object, WEBHOOK_SECRET);
}

function rows(userId: string) {
  return test.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
}

async function handledEvents(id?: string) {
  const [{ n } = { n: 0 }] = await test.database.db
    .select({ n: count() })
    .from(webhookEvents)
    .where(id ? eq(webhookEvents.id, id) : undefined);
  return n;
}

/** A signed-in user who paid for Monthly on Stripe; the webhook has not been delivered. */
async function paidMonthly(email: string) {
  const user = await signedInUser(test, email);
  const { sessionId } = await checkout(user.browser, user.userId, 'monthly');
  const session = fake.completeSession(sessionId);
  return { ...user, sessionId, session, subscriptionId: session.subscription as string };
}

describe('Stripe checkout', () => {
  it('uses payment mode with our own amount for one-time plans and subscription mode for Monthly', async () => {
    const { browser, userId } = await signedInUser(test, 'modes@example.com');
    const oneTime = await checkout(browser, userId, 'three-day');
    expect(oneTime).toMatchObject({
      success: true,
      provider: 'stripe',
      publishableKey: 'pk_test_x',
      sessionId: expect.stringMatching(/^cs_test_/),
    });
    expect(oneTime.url).toBe(`https://checkout.stripe.com/c/pay/${oneTime.sessionId}`);
    expect(fake.createdSessions.at(-1)).toEqual({
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '299',
      'line_items[0][price_data][product_data][name]': '3-Day Access',
      success_url: `${test.config.publicUrl}/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${test.config.publicUrl}/`,
      client_reference_id: userId,
      customer_email: 'modes@example.com',
      'metadata[userId]': userId,
      'metadata[priceId]': 'three-day',
      'payment_intent_data[metadata][userId]': userId,
      'payment_intent_data[metadata][priceId]': 'three-day',
    });
    const [stored] = await test.database.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, oneTime.sessionId));
    expect(stored).toMatchObject({
      userId,
      priceId: 'three-day',
      provider: 'stripe',
      status: 'open',
      url: oneTime.url,
    });

    await checkout(browser, userId, 'monthly');
    expect(fake.createdSessions.at(-1)).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': 'price_monthly_configured',
      'subscription_data[metadata][userId]': userId,
      'subscription_data[metadata][priceId]': 'monthly',
    });
    // docs/SPEC.md section 9: every call is made on the pinned API version.
    expect(new Set(fake.requests.map((request) => request.stripeVersion))).toEqual(new Set([STRIPE_API_VERSION]));
  });

  it('builds a monthly recurring price from our own row when no Stripe price id is configured', async () => {
    const { userId } = await signedInUser(test, 'inline@example.com');
    const [monthly] = await test.database.db.select().from(prices).where(eq(prices.id, 'monthly'));
    const provider = createStripeProvider(test.database.db, test.config, {
      host: '127.0.0.1',
      port: fake.port,
      protocol: 'http',
    });
    await provider.createCheckout({
      price: { ...monthly!, providerPriceId: null },
      user: { id: userId, email: 'inline@example.com' },
      successUrl: `${test.config.publicUrl}/success?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${test.config.publicUrl}/`,
    });
    expect(fake.createdSessions.at(-1)).toMatchObject({
      mode: 'subscription',
      'line_items[0][price_data][unit_amount]': '2999',
      'line_items[0][price_data][recurring][interval]': 'month',
    });
    expect(fake.createdSessions.at(-1)).not.toHaveProperty(['line_items[0][price]']);
  });
});

describe('Stripe webhooks', () => {
  it('applies the same checkout.session.completed delivered 10 times exactly once', async () => {
    const { browser, userId } = await signedInUser(test, 'replay@example.com');
    const { sessionId } = await checkout(browser, userId, 'three-day');
    const completed = event('checkout.session.completed', fake.completeSession(sessionId));
    for (let delivery = 0; delivery < 10; delivery += 1) {
      const response = await deliver(completed);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ received: true });
    }
    const stored = await rows(userId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      status: 'active',
      provider: 'stripe',
      priceId: 'three-day',
      providerSubscriptionId: sessionId,
    });
    const days = (stored[0]!.currentPeriodEnd!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(2.99);
    expect(days).toBeLessThanOrEqual(3);
    expect(await handledEvents(completed.id)).toBe(1);
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(200);
  });

  it('handles 10 concurrent deliveries of one event once', async () => {
    const { userId, sessionId, session } = await paidMonthly('concurrent@example.com');
    const completed = event('checkout.session.completed', session);
    const before = fake.requests.length;
    const responses = await Promise.all(Array.from({ length: 10 }, () => deliver(completed)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(200));
    expect(await rows(userId)).toHaveLength(1);
    expect(await handledEvents(completed.id)).toBe(1);
    const sessionReads = fake.requests
      .slice(before)
      .filter((request) => request.path === `/v1/checkout/sessions/${sessionId}`);
    expect(sessionReads).toHaveLength(1);
  });

  it("ends in Stripe's current state when a deletion arrives before the creation", async () => {
    const { browser, userId, subscriptionId } = await paidMonthly('order@example.com');
    const created = event('customer.subscription.created', { ...fake.subscription(subscriptionId) });
    const end = Math.floor(Date.now() / 1000) + 60;
    const deleted = event('customer.subscription.deleted', {
      ...fake.updateSubscription(subscriptionId, { status: 'canceled', current_period_end: end }),
    });

    expect((await deliver(deleted)).statusCode).toBe(200);
    expect((await deliver(created)).statusCode).toBe(200);
    const [row] = await rows(userId);
    expect(row).toMatchObject({ status: 'canceled', providerSubscriptionId: subscriptionId, priceId: 'monthly' });
    expect(row!.currentPeriodEnd?.getTime()).toBe(end * 1000);
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(403);
  });

  it('ignores what a stale "updated" payload says and stores what Stripe says now', async () => {
    const { userId, session, subscriptionId } = await paidMonthly('stale@example.com');
    await deliver(event('checkout.session.completed', session));
    const staleActive = event('customer.subscription.updated', {
      ...fake.subscription(subscriptionId),
      status: 'active',
      cancel_at_period_end: false,
    });
    const renewedEnd = Math.floor(Date.now() / 1000) + 40 * 86_400;
    fake.updateSubscription(subscriptionId, {
      status: 'past_due',
      cancel_at_period_end: true,
      current_period_end: renewedEnd,
    });
    await deliver(event('customer.subscription.updated', fake.subscription(subscriptionId)));
    await deliver(staleActive);
    const [row] = await rows(userId);
    expect(row).toMatchObject({ status: 'past_due', cancelAtPeriodEnd: true });
    expect(row!.currentPeriodEnd?.getTime()).toBe(renewedEnd * 1000);
  });

  it('reads the period end from the subscription items on newer API shapes', async () => {
    const { userId, session, subscriptionId } = await paidMonthly('items@example.com');
    const end = Math.floor(Date.now() / 1000) + 10 * 86_400;
    fake.updateSubscription(subscriptionId, {
      current_period_end: undefined,
      items: { object: 'list', data: [{ id: 'si_1', current_period_end: end }] },
    });
    await deliver(event('checkout.session.completed', session));
    expect((await rows(userId))[0]!.currentPeriodEnd?.getTime()).toBe(end * 1000);
  });

  it('syncs invoice events from the subscription Stripe says the invoice bills', async () => {
    const { browser, userId, session, subscriptionId } = await paidMonthly('invoice@example.com');
    await deliver(event('checkout.session.completed', session));
    expect((await rows(userId))[0]!.status).toBe('active');

    fake.updateSubscription(subscriptionId, { status: 'past_due' });
    const failed = fake.createInvoice(subscriptionId, { status: 'open' });
    // The payload names another subscription; the invoice is re-read, so that is never used.
    expect(
      (await deliver(event('invoice.payment_failed', { ...failed, subscription: 'sub_not_this_one' }))).statusCode,
    ).toBe(200);
    expect((await rows(userId))[0]!.status).toBe('past_due');
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(403);

    const nextEnd = Math.floor(Date.now() / 1000) + 61 * 86_400;
    fake.updateSubscription(subscriptionId, { status: 'active', current_period_end: nextEnd });
    const paid = fake.createInvoice(subscriptionId, { status: 'paid' });
    await deliver(event('invoice.paid', paid));
    const [row] = await rows(userId);
    expect(row!.status).toBe('active');
    expect(row!.currentPeriodEnd?.getTime()).toBe(nextEnd * 1000);
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(200);
  });

  it('finds the owner through our checkout session or our own row when the subscription has no metadata', async () => {
    const { userId, session, subscriptionId } = await paidMonthly('nometa@example.com');
    fake.updateSubscription(subscriptionId, { metadata: {} });
    await deliver(event('checkout.session.completed', session));
    expect(await rows(userId)).toHaveLength(1);

    fake.updateSubscription(subscriptionId, { status: 'unpaid' });
    await deliver(event('customer.subscription.updated', fake.subscription(subscriptionId)));
    expect((await rows(userId))[0]!.status).toBe('unpaid');
  });

  it('answers 200 and stores nothing for subscriptions, sessions and event types that are not ours', async () => {
    const { userId } = await signedInUser(test, 'stranger@example.com');
    const foreign = fake.createSubscription({ metadata: { userId, priceId: 'monthly' } });
    const unknownSession = { id: 'cs_test_someone_elses', object: 'checkout.session' };
    for (const unrelated of [
      event('customer.subscription.created', foreign),
      event('checkout.session.completed', unknownSession),
      event('invoice.paid', fake.createInvoice(null, { status: 'paid' })),
      event('customer.created', { id: 'cus_1', object: 'customer' }),
    ]) {
      const response = await deliver(unrelated);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ received: true });
    }
    // Metadata alone does not make a subscription ours: no checkout of this user backs it.
    expect(await rows(userId)).toEqual([]);
    expect(await test.database.db.select().from(subscriptions)).toEqual([]);
  });

  it('refuses a bad, missing or mismatched signature with 400 and changes nothing', async () => {
    const { browser, userId } = await signedInUser(test, 'forged@example.com');
    const { sessionId } = await checkout(browser, userId, 'three-day');
    const session = fake.completeSession(sessionId);
    const forged = fake.signedEvent('checkout.session.completed', session, 'whsec_wrong_secret');
    const bad = await deliver(forged);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Invalid Stripe signature' });

    const genuine = event('checkout.session.completed', session);
    const tampered = await deliver({
      ...genuine,
      payload: genuine.payload.replace('"livemode":false', '"livemode":true'),
    });
    expect(tampered.statusCode).toBe(400);

    const unsigned = await test.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      payload: genuine.payload,
    });
    expect(unsigned.statusCode).toBe(400);
    expect(unsigned.json()).toEqual({ error: 'Missing Stripe signature' });

    expect(await rows(userId)).toEqual([]);
    expect(await handledEvents()).toBe(0);
    const [stored] = await test.database.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
    expect(stored!.status).toBe('open');
  });

  it('answers 500 during a Stripe outage and handles the retried delivery', async () => {
    const { userId, session } = await paidMonthly('outage@example.com');
    const completed = event('checkout.session.completed', session);
    // Two failures outlast the client's single retry.
    fake.failNext(2);
    const failed = await deliver(completed);
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toEqual({ error: 'The Stripe event could not be processed; Stripe will retry it' });
    expect(await handledEvents(completed.id)).toBe(0);
    expect(await rows(userId)).toEqual([]);

    expect((await deliver(completed)).statusCode).toBe(200);
    expect((await rows(userId))[0]!.status).toBe('active');
    expect(await handledEvents(completed.id)).toBe(1);
  });
});

describe('the /success re-check and cancel', () => {
  it('fulfils a paid session before any webhook, idempotently with the webhook later', async () => {
    const { browser, userId } = await signedInUser(test, 'early@example.com');
    const { sessionId } = await checkout(browser, userId, 'monthly');
    expect((await browser.get(`/api/subscriptions/confirm?session_id=${sessionId}`)).json()).toEqual({
      success: true,
      status: 'open',
    });
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(403);

    const session = fake.completeSession(sessionId);
    // One failed request is absorbed by the client's retry.
    fake.failNext(1);
    expect((await browser.get(`/api/subscriptions/confirm?session_id=${sessionId}`)).json()).toEqual({
      success: true,
      status: 'paid',
    });
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(200);
    const [paidSession] = await test.database.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sessionId));
    expect(paidSession!.status).toBe('paid');

    await deliver(event('checkout.session.completed', session));
    await deliver(event('customer.subscription.created', fake.subscription(session.subscription as string)));
    const stored = await rows(userId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      status: 'active',
      providerSubscriptionId: session.subscription,
      providerCustomerId: session.customer,
    });
    const [again] = await test.database.db
      .select()
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.status, 'paid')));
    expect(again!.paidAt).toEqual(paidSession!.paidAt);
  });

  it('cancels at period end on Stripe and keeps access until then', async () => {
    const { browser, session, subscriptionId } = await paidMonthly('cancel@example.com');
    await deliver(event('checkout.session.completed', session));
    const ourId = jsonBody<{ subscription: { id: string } }>(await browser.get('/api/me')).subscription.id;
    const cancel = await browser.post(`/api/subscriptions/${ourId}/cancel`, {});
    expect(cancel.statusCode).toBe(200);
    expect(jsonBody<{ subscription: { id: string } }>(cancel).subscription).toMatchObject({
      cancel_at_period_end: true,
      active: true,
      status: 'active',
    });
    expect(fake.subscription(subscriptionId).cancel_at_period_end).toBe(true);
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: `/v1/subscriptions/${subscriptionId}`,
      form: { cancel_at_period_end: 'true' },
    });
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(200);
  });
});

describe('mapStripeStatus', () => {
  it('gives access only to active and trialing subscriptions', () => {
    expect(
      ['active', 'trialing', 'past_due', 'unpaid', 'canceled', 'incomplete', 'incomplete_expired', 'paused'].map(
        mapStripeStatus,
      ),
    ).toEqual(['active', 'active', 'past_due', 'unpaid', 'canceled', 'incomplete', 'incomplete_expired', 'paused']);
  });
});
