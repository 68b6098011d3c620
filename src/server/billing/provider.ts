// The payment-provider interface: Stripe (billing/stripe.ts) when configured, otherwise the
// built-in TEST MODE checkout (billing/testCheckout.ts). Routes only talk to this.
import type { prices, subscriptions } from '../db/schema.ts';

export type PriceRow = typeof prices.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

interface CheckoutRequest {
  price: PriceRow;
  user: { id: string; email: string };
  successUrl: string;
  cancelUrl: string;
}

export interface PaymentProvider {
  readonly kind: 'stripe' | 'test';
  /** Stripe.js key for the browser; null for the built-in checkout. */
  readonly publishableKey: string | null;
  createCheckout(request: CheckoutRequest): Promise<{ sessionId: string; url: string }>;
  /** Re-reads a checkout session at the provider and fulfils it when paid (idempotent). */
  confirm(sessionId: string): Promise<'paid' | 'open'>;
  /** Stops renewal; access stays until the current period ends. */
  cancelAtPeriodEnd(subscription: SubscriptionRow): Promise<void>;
}
