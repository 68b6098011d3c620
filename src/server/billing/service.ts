// Billing: the only module that reads or writes the billing tables (products, prices,
// checkout_sessions, subscriptions, webhook_events). The plans of docs/SPEC.md section 9, the
// subscription that decides access, checkout / confirm / cancel as the routes use them, the
// grants and revocations of the admin CLI, and fulfilment: the one code path that turns a
// payment into access, shared by the Stripe webhook, the /success re-check and the built-in
// test checkout. Refusals are DomainErrors; billing/routes.ts answers them in docs/SPEC.md's
// `{ success: false, error }` shape.
import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { checkoutSessions, prices, products, subscriptions, webhookEvents } from '../db/schema.ts';
import { onlyRow } from '../db/rows.ts';
import { DomainError, forbidden, invalid, notFound } from '../errors/domain.ts';
import { PLANS, type PlanId } from '../../shared/constants.ts';
import type {
  CreateCheckoutResponse,
  PlanView,
  SubscriptionDetail,
  SubscriptionSummary,
} from '../../shared/schemas/billing.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import type { PaymentProvider, PriceRow, SubscriptionRow } from './provider.ts';

export type { SubscriptionSummary };
export type { PaymentProvider } from './provider.ts';

// ---------------------------------------------------------------------------------------------
// Plans

function stripePriceIds(config: Config): Record<PlanId, string | undefined> {
  return {
    'live-test': config.STRIPE_PRICE_LIVE_TEST,
    'three-day': config.STRIPE_PRICE_THREE_DAY,
    monthly: config.STRIPE_PRICE_MONTHLY,
  };
}

/** The three plans as rows of `products` and `prices`, seeded (and kept in step with the constants) at start-up. */
export async function seedPlans(db: Database, config: Config): Promise<void> {
  const providerIds = stripePriceIds(config);
  for (const plan of PLANS) {
    const product = {
      id: `prod-${plan.id}`,
      name: plan.name,
      description: plan.description,
      features: plan.features,
      popular: plan.popular,
      active: true,
    };
    await db.insert(products).values(product).onConflictDoUpdate({ target: products.id, set: product });
    const price = {
      id: plan.id,
      productId: product.id,
      active: true,
      unitAmount: plan.unitAmount,
      currency: 'usd',
      interval: plan.interval,
      accessDays: plan.accessDays,
      providerPriceId: providerIds[plan.id] ?? null,
    };
    await db.insert(prices).values(price).onConflictDoUpdate({ target: prices.id, set: price });
  }
}

/** The plan cards: active prices, cheapest first. */
export async function listPlans(db: Database): Promise<PlanView[]> {
  const rows = await db
    .select({ price: prices, product: products })
    .from(prices)
    .innerJoin(products, eq(prices.productId, products.id))
    .where(eq(prices.active, true))
    .orderBy(asc(prices.unitAmount));
  return rows.map(({ price, product }) => ({
    priceId: price.id,
    productId: product.id,
    name: product.name,
    description: product.description,
    features: product.features,
    popular: product.popular,
    unitAmount: price.unitAmount,
    currency: price.currency,
    interval: price.interval,
    accessDays: price.accessDays,
  }));
}

async function findActivePrice(db: Database, priceId: string): Promise<PriceRow | null> {
  const [row] = await db.select().from(prices).where(eq(prices.id, priceId));
  return row && row.active ? row : null;
}

/** The product name of a price (what a Stripe line item is called). */
export async function productNameOf(db: Database, productId: string): Promise<string | null> {
  const [product] = await db.select({ name: products.name }).from(products).where(eq(products.id, productId));
  return product?.name ?? null;
}

// ---------------------------------------------------------------------------------------------
// Fulfilment

export interface AccessGrant {
  userId: string;
  priceId: string;
  provider: string;
  /** The provider's id of what was bought: a subscription id, or the checkout session id of a one-time payment. */
  providerSubscriptionId: string;
  providerCustomerId?: string | null;
  status: string;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd?: boolean;
}

/** Stores a grant (idempotent per provider and provider subscription id); returns our subscription id. */
export async function applyGrant(db: Database, grant: AccessGrant): Promise<string> {
  const values = {
    userId: grant.userId,
    priceId: grant.priceId,
    provider: grant.provider,
    providerSubscriptionId: grant.providerSubscriptionId,
    providerCustomerId: grant.providerCustomerId ?? null,
    status: grant.status,
    currentPeriodEnd: grant.currentPeriodEnd,
    cancelAtPeriodEnd: grant.cancelAtPeriodEnd ?? false,
    updatedAt: new Date(),
  };
  const row = onlyRow(
    await db
      .insert(subscriptions)
      .values({ id: `sub_${randomUUID()}`, ...values })
      .onConflictDoUpdate({ target: [subscriptions.provider, subscriptions.providerSubscriptionId], set: values })
      .returning({ id: subscriptions.id }),
  );
  return row.id;
}

/** Adds whole calendar months in UTC (Jan 31 + 1 month = Feb 28/29, like card billing). */
export function addMonths(from: Date, months: number): Date {
  const result = new Date(from);
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

/** The access a paid checkout session buys, measured from the moment it was paid. */
export function periodEndFor(price: { interval: string; accessDays: number | null }, paidAt: Date): Date {
  if (price.interval === 'month') return addMonths(paidAt, 1);
  return new Date(paidAt.getTime() + (price.accessDays ?? 1) * 86_400_000);
}

/** Marks our checkout session paid, once (a session paid already keeps its first paidAt). */
export async function markCheckoutSessionPaid(db: Database, sessionId: string, paidAt = new Date()): Promise<void> {
  await db
    .update(checkoutSessions)
    .set({ status: 'paid', paidAt })
    .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.status, 'open')));
}

/**
 * Marks our checkout session paid (once) and grants its access. A repeated call finds the
 * session already paid and re-applies the same grant, which changes nothing.
 */
export async function fulfilCheckoutSession(
  db: Database,
  sessionId: string,
  details: {
    providerSubscriptionId?: string;
    providerCustomerId?: string | null;
    currentPeriodEnd?: Date;
    paidAt?: Date;
  } = {},
): Promise<string | null> {
  const [session] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
  if (!session) return null;
  const paidAt = session.paidAt ?? details.paidAt ?? new Date();
  if (session.status !== 'paid') await markCheckoutSessionPaid(db, sessionId, paidAt);
  // checkout_sessions.price_id references prices: the row is there.
  const price = onlyRow(await db.select().from(prices).where(eq(prices.id, session.priceId)));
  return applyGrant(db, {
    userId: session.userId,
    priceId: session.priceId,
    provider: session.provider,
    providerSubscriptionId: details.providerSubscriptionId ?? session.id,
    providerCustomerId: details.providerCustomerId,
    status: 'active',
    currentPeriodEnd: details.currentPeriodEnd ?? periodEndFor(price, paidAt),
  });
}

// ---------------------------------------------------------------------------------------------
// Checkout sessions (the providers record and read theirs here)

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

export async function recordCheckoutSession(
  db: Database,
  session: { id: string; userId: string; priceId: string; provider: string; url: string },
): Promise<void> {
  await db.insert(checkoutSessions).values(session);
}

/** Our checkout session `id`, if `provider` hosts it. */
export async function findCheckoutSession(
  db: Database,
  id: string,
  provider?: string,
): Promise<CheckoutSessionRow | null> {
  const [row] = await db
    .select()
    .from(checkoutSessions)
    .where(
      provider
        ? and(eq(checkoutSessions.id, id), eq(checkoutSessions.provider, provider))
        : eq(checkoutSessions.id, id),
    );
  return row ?? null;
}

/** Whether one of our `provider` checkout sessions backs this user buying this price. */
export async function hasCheckoutFor(
  db: Database,
  provider: string,
  userId: string,
  priceId: string,
): Promise<boolean> {
  const [session] = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.provider, provider),
        eq(checkoutSessions.userId, userId),
        eq(checkoutSessions.priceId, priceId),
      ),
    )
    .limit(1);
  return session !== undefined;
}

/** The built-in test checkout page's view of a session: only its owner's, only a test one. */
export async function findOwnTestCheckout(db: Database, sessionId: string, userId: string) {
  const [row] = await db
    .select({ session: checkoutSessions, price: prices, product: products })
    .from(checkoutSessions)
    .innerJoin(prices, eq(checkoutSessions.priceId, prices.id))
    .innerJoin(products, eq(prices.productId, products.id))
    .where(eq(checkoutSessions.id, sessionId));
  return row && row.session.userId === userId && row.session.provider === 'test' ? row : null;
}

// ---------------------------------------------------------------------------------------------
// Subscriptions

/** The subscription that decides access: the active one with the latest period end. */
/** Which of a user's subscriptions is the current one: an active one first, then the latest end. */
const CURRENT_FIRST = [sql`${subscriptions.status} = 'active' desc`, desc(subscriptions.currentPeriodEnd)] as const;

function summaryOf(row: SubscriptionRow): SubscriptionSummary {
  return {
    id: row.id,
    status: row.status,
    current_period_end: row.currentPeriodEnd?.toISOString() ?? null,
    price_id: row.priceId,
    cancel_at_period_end: row.cancelAtPeriodEnd,
  };
}

export async function currentSubscription(db: Database, userId: string): Promise<SubscriptionSummary | null> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(...CURRENT_FIRST)
    .limit(1);
  return row ? summaryOf(row) : null;
}

/**
 * currentSubscription of many users in one query (the live streams' periodic re-check): by
 * user id, the users without any subscription left out.
 */
export async function currentSubscriptions(
  db: Database,
  userIds: readonly string[],
): Promise<Map<string, SubscriptionSummary>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([subscriptions.userId])
    .from(subscriptions)
    .where(inArray(subscriptions.userId, [...userIds]))
    .orderBy(subscriptions.userId, ...CURRENT_FIRST);
  return new Map(rows.map((row) => [row.userId, summaryOf(row)]));
}

function describe(row: SubscriptionRow): SubscriptionDetail {
  const state = subscriptionState({ status: row.status, current_period_end: row.currentPeriodEnd });
  return {
    id: row.id,
    status: row.status,
    price_id: row.priceId,
    current_period_end: row.currentPeriodEnd?.toISOString() ?? null,
    cancel_at_period_end: row.cancelAtPeriodEnd,
    active: state.hasActiveSubscription,
    expired: state.isSubscriptionExpired,
  };
}

/** Our subscription row of a provider's subscription, if we keep one. */
export async function findProviderSubscription(
  db: Database,
  provider: string,
  providerSubscriptionId: string,
): Promise<SubscriptionRow | null> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.provider, provider), eq(subscriptions.providerSubscriptionId, providerSubscriptionId)));
  return row ?? null;
}

/** Stops renewal in our own records (the built-in test checkout has no provider to ask). */
export async function markCancelAtPeriodEnd(db: Database, subscriptionId: string): Promise<void> {
  await db
    .update(subscriptions)
    .set({ cancelAtPeriodEnd: true, updatedAt: new Date() })
    .where(eq(subscriptions.id, subscriptionId));
}

const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

async function ownSubscription(db: Database, id: string, userId: string): Promise<SubscriptionRow | null> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), eq(subscriptions.userId, userId)));
  return row ?? null;
}

/** A user's own subscription with docs/SPEC.md's access rules applied (404 for anyone else's). */
export async function validateSubscription(db: Database, id: string, userId: string): Promise<SubscriptionDetail> {
  const row = await ownSubscription(db, id, userId);
  if (!row) throw notFound(SUBSCRIPTION_NOT_FOUND);
  return describe(row);
}

/** Stops a Monthly plan renewing; access stays until the period ends. */
export async function cancelSubscription(
  db: Database,
  provider: PaymentProvider,
  id: string,
  userId: string,
): Promise<SubscriptionDetail> {
  const row = await ownSubscription(db, id, userId);
  if (!row) throw notFound(SUBSCRIPTION_NOT_FOUND);
  const [price] = row.priceId ? await db.select().from(prices).where(eq(prices.id, row.priceId)) : [];
  if (price && price.interval !== 'month') {
    throw invalid('One-time plans do not renew, so there is nothing to cancel. Access ends at the end of the period.');
  }
  try {
    await provider.cancelAtPeriodEnd(row);
  } catch (error) {
    throw new DomainError('upstream', 'Failed to cancel subscription', {}, { cause: error });
  }
  const updated = await ownSubscription(db, row.id, userId);
  return describe(updated ?? row);
}

// ---------------------------------------------------------------------------------------------
// Checkout

export interface CheckoutInput {
  priceId: string;
  /** The account the browser believes it buys for; must be the signed-in user's. */
  userId: string;
}

/** Opens a checkout session at the provider for the signed-in user. */
export async function startCheckout(
  db: Database,
  provider: PaymentProvider,
  user: { id: string; email: string },
  input: CheckoutInput,
  publicUrl: string,
): Promise<CreateCheckoutResponse> {
  if (input.userId !== user.id) throw forbidden('You can only start a checkout for your own account');
  const price = await findActivePrice(db, input.priceId);
  if (!price) throw invalid('This plan is not available');
  try {
    const session = await provider.createCheckout({
      price,
      user: { id: user.id, email: user.email },
      successUrl: `${publicUrl}/success?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${publicUrl}/`,
    });
    return {
      success: true,
      error: null,
      sessionId: session.sessionId,
      url: session.url,
      provider: provider.kind,
      publishableKey: provider.publishableKey,
    };
  } catch (error) {
    throw new DomainError(
      'upstream',
      'The payment provider could not start the checkout. Please try again.',
      {},
      { cause: error },
    );
  }
}

/** The /success re-check: the user's own checkout session, fulfilled if the provider says it is paid. */
export async function confirmCheckout(
  db: Database,
  provider: PaymentProvider,
  sessionId: string,
  userId: string,
): Promise<'paid' | 'open'> {
  const session = await findCheckoutSession(db, sessionId);
  if (!session || session.userId !== userId) throw notFound('Checkout session not found');
  return provider.confirm(session.id);
}

// ---------------------------------------------------------------------------------------------
// Webhook events: each provider event is handled once

/** Claims an event id; false when it was claimed already (a duplicate or concurrent delivery). */
export async function claimWebhookEvent(
  db: Database,
  event: { id: string; provider: string; type: string },
): Promise<boolean> {
  const claimed = await db
    .insert(webhookEvents)
    .values(event)
    .onConflictDoNothing()
    .returning({ id: webhookEvents.id });
  return claimed.length > 0;
}

/** Releases a claim after a failure, so the provider's retry does the work. */
export async function releaseWebhookEvent(db: Database, id: string): Promise<void> {
  await db.delete(webhookEvents).where(eq(webhookEvents.id, id));
}

// ---------------------------------------------------------------------------------------------
// Operator grants (scripts/admin.ts)

const ADMIN_PLAN_ALIASES: Readonly<Record<string, string>> = {
  monthly: 'monthly',
  '3day': 'three-day',
  livetest: 'live-test',
};

/** Gives a user a plan by hand (no payment), from now for the plan's period; returns its end. */
export async function grantPlan(db: Database, userId: string, alias: string): Promise<Date> {
  const priceId = ADMIN_PLAN_ALIASES[alias];
  if (!priceId) throw invalid(`--plan must be one of ${Object.keys(ADMIN_PLAN_ALIASES).join(', ')}`);
  const price = await findActivePrice(db, priceId);
  if (!price) throw invalid(`Plan ${alias} is not active`);
  const now = new Date();
  const currentPeriodEnd = periodEndFor(price, now);
  await applyGrant(db, {
    userId,
    priceId,
    provider: 'admin',
    providerSubscriptionId: `admin-${userId}-${now.getTime()}`,
    status: 'active',
    currentPeriodEnd,
  });
  return currentPeriodEnd;
}

/** Ends every active subscription of a user now; returns how many. */
export async function revokeAccess(db: Database, userId: string): Promise<number> {
  const revoked = await db
    .update(subscriptions)
    .set({ status: 'canceled', currentPeriodEnd: new Date(), updatedAt: new Date() })
    .where(and(eq(subscriptions.userId, userId), eq(subscriptions.status, 'active')))
    .returning({ id: subscriptions.id });
  return revoked.length;
}

/**
 * Which of these users hold an active subscription now (status active, period not over): the
 * alert rules fire only for them. One query for the whole batch.
 */
export async function usersWithActiveSubscription(
  db: Database,
  userIds: readonly string[],
  now: Date = new Date(),
): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ userId: subscriptions.userId })
    .from(subscriptions)
    .where(
      and(
        inArray(subscriptions.userId, [...new Set(userIds)]),
        eq(subscriptions.status, 'active'),
        gt(subscriptions.currentPeriodEnd, now),
      ),
    );
  return new Set(rows.map((row) => row.userId));
}
