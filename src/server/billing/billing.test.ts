// Billing on the built-in test checkout: plans, checkout rules, paying and declining,
// idempotent fulfilment, cancel/validate, and the one gate in front of every dashboard API.
import { eq } from 'drizzle-orm';
import { SUBSCRIPTION_CACHE_TTL_MS } from '../auth/guards.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { subscriptions } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { payOnTestCheckout, signedInUser, subscribedUser } from '../testing/users.ts';
import { addMonths, currentSubscription, currentSubscriptions, periodEndFor, seedPlans } from './service.ts';
import { cardProblem } from './testCheckout.ts';
import type { PlanView } from '../../shared/schemas/billing.ts';
import type { WatchlistResponse } from '../../shared/schemas/watchlists.ts';

let test: TestApp;
beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});
beforeEach(async () => {
  await test.database.truncateAll();
  await seedPlans(test.database.db, test.config);
});

describe('plans', () => {
  it('lists the three plans from the database in price order, in cents', async () => {
    const response = await new Browser(test.app, test.config.publicUrl).get('/api/plans');
    const { plans } = jsonBody<{ plans: PlanView[] }>(response);
    expect(plans.map((plan) => [plan.priceId, plan.unitAmount, plan.popular, plan.interval])).toEqual([
      ['live-test', 50, false, 'one_time'],
      ['three-day', 299, false, 'one_time'],
      ['monthly', 2999, true, 'month'],
    ]);
    expect(plans[2]!.features).toEqual(['Full platform access', 'Priority support', 'Advanced analytics']);
  });
});

describe('checkout', () => {
  it('refuses a visitor, a foreign userId and an unknown price', async () => {
    const visitor = await new Browser(test.app, test.config.publicUrl).post('/api/subscriptions/create-checkout', {
      priceId: 'monthly',
      userId: 'x',
    });
    expect(visitor.statusCode).toBe(401);
    expect(visitor.json()).toEqual({ error: 'Please log in first' });

    const { browser, userId } = await signedInUser(test, 'buyer@example.com');
    const foreign = await browser.post('/api/subscriptions/create-checkout', {
      priceId: 'monthly',
      userId: 'someone-else',
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({ success: false, error: 'You can only start a checkout for your own account' });

    const unknown = await browser.post('/api/subscriptions/create-checkout', { priceId: 'free-forever', userId });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ success: false, error: 'This plan is not available' });

    const missing = await browser.post('/api/subscriptions/create-checkout', { userId });
    expect(missing.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(missing).error).toContain('priceId');
  });

  it('pays 3-Day Access with 4242, grants three days, and /success confirmation is idempotent', async () => {
    const { browser, userId } = await signedInUser(test, 'payer@example.com');
    const before = Date.now();
    const { sessionId, response } = await payOnTestCheckout(browser, userId, 'three-day');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/success?session_id=${sessionId}`);

    for (let replay = 0; replay < 3; replay += 1) {
      const confirm = await browser.get(`/api/subscriptions/confirm?session_id=${sessionId}`);
      expect(confirm.json()).toEqual({ success: true, status: 'paid' });
    }
    const rows = await test.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('active');
    const days = (rows[0]!.currentPeriodEnd!.getTime() - before) / 86_400_000;
    expect(days).toBeGreaterThan(2.99);
    expect(days).toBeLessThan(3.01);

    const me = jsonBody<{ subscription: unknown }>(await browser.get('/api/me'));
    expect(me.subscription).toMatchObject({ status: 'active', price_id: 'three-day' });
  });

  it('declines 4000 0000 0000 0002 with a clear message and grants nothing', async () => {
    const { browser, userId } = await signedInUser(test, 'declined@example.com');
    const { sessionId, response } = await payOnTestCheckout(browser, userId, 'monthly', '4000 0000 0000 0002');
    expect(response.statusCode).toBe(402);
    expect(response.body).toContain('Your card was declined.');
    expect(response.body).toContain('TEST MODE');
    expect(await test.database.db.select().from(subscriptions)).toEqual([]);
    expect((await browser.get(`/api/subscriptions/confirm?session_id=${sessionId}`)).json()).toEqual({
      success: true,
      status: 'open',
    });
  });

  it("does not show or pay another user's checkout session", async () => {
    const owner = await signedInUser(test, 'owner@example.com');
    const checkout = jsonBody<{ sessionId: string }>(
      await owner.browser.post('/api/subscriptions/create-checkout', { priceId: 'monthly', userId: owner.userId }),
    );
    const thief = await signedInUser(test, 'thief@example.com');
    expect((await thief.browser.get(`/checkout/test/${checkout.sessionId}`)).statusCode).toBe(404);
    const paid = await thief.browser.submitForm(`/checkout/test/${checkout.sessionId}`, {
      card: '4242424242424242',
      expiry: '12/39',
      cvc: '123',
    });
    expect(paid.statusCode).toBe(404);
    expect(await test.database.db.select().from(subscriptions)).toEqual([]);
  });
});

describe('cancel and validate', () => {
  it('cancels Monthly at period end, keeps access, and refuses other users', async () => {
    const { browser } = await subscribedUser(test, 'monthly@example.com', 'monthly');
    const subscriptionId = jsonBody<{ subscription: { id: string } }>(await browser.get('/api/me')).subscription.id;

    const other = await signedInUser(test, 'other@example.com');
    expect((await other.browser.post(`/api/subscriptions/${subscriptionId}/cancel`, {})).json()).toEqual({
      success: false,
      error: 'Subscription not found',
    });

    const cancel = await browser.post(`/api/subscriptions/${subscriptionId}/cancel`, {});
    expect(cancel.statusCode).toBe(200);
    expect(jsonBody<{ subscription: { id: string } }>(cancel).subscription).toMatchObject({
      cancel_at_period_end: true,
      active: true,
      status: 'active',
    });
    const validate = await browser.get(`/api/subscriptions/validate/${subscriptionId}`);
    expect(validate.json()).toMatchObject({
      success: true,
      error: null,
      subscription: { id: subscriptionId, active: true, expired: false },
    });
  });

  it('explains that a one-time plan has nothing to cancel', async () => {
    const { browser } = await subscribedUser(test, 'onetime@example.com', 'live-test');
    const subscriptionId = jsonBody<{ subscription: { id: string } }>(await browser.get('/api/me')).subscription.id;
    const cancel = await browser.post(`/api/subscriptions/${subscriptionId}/cancel`, {});
    expect(cancel.statusCode).toBe(400);
    expect(jsonBody<{ success: boolean }>(cancel).success).toBe(false);
  });
});

describe('dashboard API gate', () => {
  it('answers 401 without a user, 403 without an active subscription, and serves subscribers', async () => {
    const anonymous = await new Browser(test.app, test.config.publicUrl).get('/api/watchlists/chart');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'Please log in first' });

    const { browser, userId } = await signedInUser(test, 'nosub@example.com');
    const forbidden = await browser.get('/api/watchlists/chart');
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ error: 'An active subscription is required' });

    await payOnTestCheckout(browser, userId, 'live-test');
    const allowed = await browser.get('/api/watchlists/chart');
    expect(allowed.statusCode).toBe(200);
    expect(jsonBody<WatchlistResponse>(allowed).symbols[0]).toBe('NASDAQ:AAPL');

    // An out-of-band change (another instance's webhook, an operator's revoke) reaches a
    // cached grant of the dashboard gate within its TTL.
    await test.database.db
      .update(subscriptions)
      .set({ currentPeriodEnd: new Date(Date.now() - 1000) })
      .where(eq(subscriptions.userId, userId));
    await new Promise((resolve) => setTimeout(resolve, SUBSCRIPTION_CACHE_TTL_MS + 100));
    expect((await browser.get('/api/watchlists/chart')).statusCode).toBe(403);
  });
});

describe('currentSubscriptions', () => {
  it('picks for each user, in one query, the subscription currentSubscription picks', async () => {
    const { db } = test.database;
    const ids = [];
    for (const name of ['active', 'latest', 'open-ended', 'none'])
      ids.push((await signedInUser(test, `current-${name}@example.com`)).userId);
    const [active, latest, openEnded, none] = ids;
    const now = Date.now();
    const row = (id: string, userId: string, status: string, endInDays: number | null) => ({
      id,
      userId,
      status,
      currentPeriodEnd: endInDays === null ? null : new Date(now + endInDays * 86_400_000),
      provider: 'test',
    });
    await db.insert(subscriptions).values([
      // An active one wins over a canceled one that ends later.
      row('a-canceled', active!, 'canceled', 30),
      row('a-active', active!, 'active', 5),
      // Among inactive ones, the latest end.
      row('l-old', latest!, 'canceled', -10),
      row('l-new', latest!, 'canceled', -2),
      // No end sorts first in a descending order, in both queries.
      row('o-none', openEnded!, 'canceled', null),
      row('o-dated', openEnded!, 'past_due', 3),
    ]);
    const many = await currentSubscriptions(db, ids);
    for (const userId of [active, latest, openEnded])
      expect(many.get(userId!)).toEqual(await currentSubscription(db, userId!));
    expect([many.get(active!)?.id, many.get(latest!)?.id, many.get(openEnded!)?.id]).toEqual([
      'a-active',
      'l-new',
      'o-none',
    ]);
    expect(many.has(none!)).toBe(false);
    expect(await currentSubscription(db, none!)).toBeNull();
    expect(await currentSubscriptions(db, [])).toEqual(new Map());
  });
});

describe('pure billing rules', () => {
  it('adds calendar months the way card billing does', () => {
    expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2028-01-31T10:00:00Z'), 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addMonths(new Date('2026-12-15T00:00:00Z'), 1).toISOString()).toBe('2027-01-15T00:00:00.000Z');
  });

  it('gives one-time plans their days of access', () => {
    const paid = new Date('2026-03-01T00:00:00Z');
    expect(periodEndFor({ interval: 'one_time', accessDays: 3 }, paid).toISOString()).toBe('2026-03-04T00:00:00.000Z');
    expect(periodEndFor({ interval: 'one_time', accessDays: 1 }, paid).toISOString()).toBe('2026-03-02T00:00:00.000Z');
  });

  it('checks test cards like a card form', () => {
    const now = new Date('2026-06-01T00:00:00Z');
    expect(cardProblem({ number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' }, now)).toBeNull();
    expect(cardProblem({ number: '4242 4242 4242 4241', expiry: '12/30', cvc: '123' }, now)).toBe(
      'Your card number is invalid.',
    );
    expect(cardProblem({ number: '4242424242424242', expiry: '05/26', cvc: '123' }, now)).toBe(
      "Your card's expiration date is in the past.",
    );
    expect(cardProblem({ number: '4242424242424242', expiry: '13/30', cvc: '123' }, now)).toMatch(/invalid/);
    expect(cardProblem({ number: '4242424242424242', expiry: '12/30', cvc: '1' }, now)).toBe(
      "Your card's security code is invalid.",
    );
    expect(cardProblem({ number: '4000 0000 0000 0002', expiry: '12/30', cvc: '123' }, now)).toMatch(
      /^Your card was declined\./,
    );
  });
});
