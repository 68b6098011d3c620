// The Stripe payment provider (STRIPE_SECRET_KEY set): hosted Checkout Sessions, payment mode
// for the one-time plans and subscription mode for Monthly, the amount always from our own
// prices table. Payment state is always re-read from Stripe, never taken from a payload, and
// stored through the shared fulfilment, so webhooks, /success re-checks and replays agree.
import Stripe from 'stripe';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { PaymentProvider } from './provider.ts';
import {
  applyGrant,
  findCheckoutSession,
  findProviderSubscription,
  fulfilCheckoutSession,
  hasCheckoutFor,
  markCheckoutSessionPaid,
  productNameOf,
  recordCheckoutSession,
} from './service.ts';

/** docs/SPEC.md section 9 pins the payment client's API version. */
export const STRIPE_API_VERSION = '2023-10-16';

/** Where the Stripe API lives; tests point it at a local fake. */
export interface StripeApiLocation {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

/** Which of our users bought a Stripe subscription, and which of our prices. */
interface SubscriptionOwner {
  userId: string;
  priceId: string;
}

/** 'ignored': Stripe knows the object but nothing of ours refers to it (e.g. another app on the same account). */
type SyncOutcome = 'synced' | 'ignored';

export interface StripeProvider extends PaymentProvider {
  readonly kind: 'stripe';
  /** Checks the Stripe-Signature header against the exact raw body; throws when it does not match. */
  verifyEvent(rawBody: Buffer, signature: string): Stripe.Event;
  /** Re-reads a checkout session and fulfils it when paid. */
  syncCheckoutSession(sessionId: string): Promise<'paid' | 'open' | 'ignored'>;
  /** Re-reads a subscription and stores its current state for its owner. */
  syncSubscription(subscriptionId: string, owner?: SubscriptionOwner): Promise<SyncOutcome>;
  /** Re-reads an invoice and syncs the subscription it bills, if any. */
  syncInvoice(invoiceId: string): Promise<SyncOutcome>;
}

function createStripeClient(secretKey: string, location?: StripeApiLocation): Stripe {
  return new Stripe(secretKey, {
    // The SDK's types only admit its newest version, but the API serves any dated one and
    // every field we read is checked for both shapes.
    apiVersion: STRIPE_API_VERSION as unknown as Stripe.LatestApiVersion,
    timeout: 80_000,
    maxNetworkRetries: 1,
    ...location,
  });
}

/** Stripe's subscription status on ours: trialing gives access like active; every other status passes through and gives none. */
export function mapStripeStatus(status: string): string {
  return status === 'trialing' ? 'active' : status;
}

/** Fields that API 2023-10-16 sends but the SDK's newer types no longer declare. */
interface LegacySubscriptionFields {
  current_period_end?: number | null;
}
interface LegacyInvoiceFields {
  subscription?: string | Stripe.Subscription | null;
}

function subscriptionPeriodEnd(subscription: Stripe.Subscription): Date {
  // API 2023-10-16 keeps the period on the subscription; since 2025-03-31 it lives on each item.
  const legacy = (subscription as unknown as LegacySubscriptionFields).current_period_end;
  const itemEnds = subscription.items.data
    .map((item) => item.current_period_end)
    .filter((end) => typeof end === 'number');
  const seconds = legacy ?? (itemEnds.length > 0 ? Math.max(...itemEnds) : null);
  // No period at all means nothing is paid ahead, so access ends now.
  return seconds === null ? new Date() : new Date(seconds * 1000);
}

function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const legacy = (invoice as unknown as LegacyInvoiceFields).subscription;
  return idOf(legacy ?? invoice.parent?.subscription_details?.subscription);
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  return typeof value === 'string' ? value : (value?.id ?? null);
}

export function createStripeProvider(db: Database, config: Config, options?: StripeApiLocation): StripeProvider {
  const secretKey = config.STRIPE_SECRET_KEY;
  const webhookSecret = config.STRIPE_WEBHOOK_SECRET;
  if (!secretKey || !webhookSecret) throw new Error('Stripe needs both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  const stripe = createStripeClient(secretKey, options);

  /**
   * Our user and price for a Stripe subscription: the row we already keep for it, else the
   * metadata we put on it at checkout, trusted only if one of our checkout sessions backs it.
   */
  async function ownerOf(subscription: Stripe.Subscription): Promise<SubscriptionOwner | null> {
    const known = await findProviderSubscription(db, 'stripe', subscription.id);
    if (known?.priceId) return { userId: known.userId, priceId: known.priceId };
    const { userId, priceId } = subscription.metadata ?? {};
    if (!userId || !priceId) return null;
    return (await hasCheckoutFor(db, 'stripe', userId, priceId)) ? { userId, priceId } : null;
  }

  async function storeSubscription(subscription: Stripe.Subscription, owner: SubscriptionOwner): Promise<void> {
    await applyGrant(db, {
      ...owner,
      provider: 'stripe',
      providerSubscriptionId: subscription.id,
      providerCustomerId: idOf(subscription.customer),
      status: mapStripeStatus(subscription.status),
      currentPeriodEnd: subscriptionPeriodEnd(subscription),
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
    });
  }

  async function syncSubscription(subscriptionId: string, owner?: SubscriptionOwner): Promise<SyncOutcome> {
    const subscription = await stripe.subscriptions.retrieve(subscriptionId);
    const resolved = owner ?? (await ownerOf(subscription));
    if (!resolved) return 'ignored';
    await storeSubscription(subscription, resolved);
    return 'synced';
  }

  async function syncCheckoutSession(sessionId: string): Promise<'paid' | 'open' | 'ignored'> {
    const ours = await findCheckoutSession(db, sessionId, 'stripe');
    if (!ours) return 'ignored';
    const session = await stripe.checkout.sessions.retrieve(sessionId);
    const paid =
      session.payment_status === 'paid' ||
      (session.status === 'complete' && session.payment_status === 'no_payment_required');
    if (!paid) return 'open';

    const subscriptionId = idOf(session.subscription);
    if (!subscriptionId) {
      // A one-time plan: access runs from the moment we first see it paid.
      await fulfilCheckoutSession(db, sessionId, { providerCustomerId: idOf(session.customer) });
      return 'paid';
    }
    // Monthly: access follows the subscription's own status and period, not a fixed grant.
    await markCheckoutSessionPaid(db, sessionId);
    await syncSubscription(subscriptionId, { userId: ours.userId, priceId: ours.priceId });
    return 'paid';
  }

  return {
    kind: 'stripe',
    publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? null,

    async createCheckout({ price, user, successUrl, cancelUrl }) {
      const recurring = price.interval === 'month';
      const productName = await productNameOf(db, price.productId);
      const lineItem: Stripe.Checkout.SessionCreateParams.LineItem = price.providerPriceId
        ? { price: price.providerPriceId, quantity: 1 }
        : {
            quantity: 1,
            price_data: {
              currency: price.currency,
              unit_amount: price.unitAmount,
              product_data: { name: productName ?? price.id },
              ...(recurring ? { recurring: { interval: 'month' as const } } : {}),
            },
          };
      const metadata = { userId: user.id, priceId: price.id };
      const session = await stripe.checkout.sessions.create({
        mode: recurring ? 'subscription' : 'payment',
        line_items: [lineItem],
        success_url: successUrl,
        cancel_url: cancelUrl,
        client_reference_id: user.id,
        customer_email: user.email,
        metadata,
        // Copied onto the subscription so its later events name their owner.
        ...(recurring ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
      });
      if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
      await recordCheckoutSession(db, {
        id: session.id,
        userId: user.id,
        priceId: price.id,
        provider: 'stripe',
        url: session.url,
      });
      return { sessionId: session.id, url: session.url };
    },

    async confirm(sessionId) {
      return (await syncCheckoutSession(sessionId)) === 'paid' ? 'paid' : 'open';
    },

    async cancelAtPeriodEnd(row) {
      if (!row.providerSubscriptionId || !row.priceId)
        throw new Error(`Subscription ${row.id} has no Stripe subscription to cancel`);
      const updated = await stripe.subscriptions.update(row.providerSubscriptionId, { cancel_at_period_end: true });
      await storeSubscription(updated, { userId: row.userId, priceId: row.priceId });
    },

    verifyEvent(rawBody, signature) {
      return stripe.webhooks.constructEvent(rawBody, signature, webhookSecret);
    },
    syncCheckoutSession,
    syncSubscription,

    async syncInvoice(invoiceId) {
      const invoice = await stripe.invoices.retrieve(invoiceId);
      const subscriptionId = invoiceSubscriptionId(invoice);
      return subscriptionId ? syncSubscription(subscriptionId) : 'ignored';
    },
  };
}
