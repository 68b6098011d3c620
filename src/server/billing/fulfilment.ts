// Fulfilment: the one code path that turns a payment into access, shared by the Stripe
// webhook, the /success re-check and the built-in test checkout. Idempotent: the same
// payment applied twice leaves one subscription row with the same state.
import { and, eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client.ts';
import { checkoutSessions, prices, subscriptions } from '../db/schema.ts';

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
  const [row] = await db
    .insert(subscriptions)
    .values({ id: `sub_${randomUUID()}`, ...values })
    .onConflictDoUpdate({ target: [subscriptions.provider, subscriptions.providerSubscriptionId], set: values })
    .returning({ id: subscriptions.id });
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
  if (session.status !== 'paid') {
    await db
      .update(checkoutSessions)
      .set({ status: 'paid', paidAt })
      .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.status, 'open')));
  }
  const [price] = await db.select().from(prices).where(eq(prices.id, session.priceId));
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
