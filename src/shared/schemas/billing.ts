// Shapes of the billing calls shared by server and browser.
import { z } from 'zod';
import { textPathId } from './pathIds.ts';
import { subscriptionSummary } from './me.ts';

export const planView = z.object({
  priceId: z.string(),
  productId: z.string(),
  name: z.string(),
  description: z.string(),
  features: z.array(z.string()),
  popular: z.boolean(),
  /** Integer cents. */
  unitAmount: z.number().int(),
  currency: z.string(),
  interval: z.enum(['one_time', 'month']),
  accessDays: z.number().int().nullable(),
});
export type PlanView = z.infer<typeof planView>;

export const createCheckoutRequest = z.object({
  priceId: z.string({ error: 'priceId is required' }).min(1, 'priceId is required').max(100),
  userId: z.string({ error: 'userId is required' }).min(1, 'userId is required').max(100),
  email: z.string().max(254).optional(),
});
export type CreateCheckoutRequest = z.infer<typeof createCheckoutRequest>;

/** GET /api/plans: the active plans, cheapest first. */
export const plansResponse = z.object({ plans: z.array(planView) });
export type PlansResponse = z.infer<typeof plansResponse>;

export { subscriptionSummary, type SubscriptionSummary } from './me.ts';

/** A subscription with docs/SPEC.md's access rules applied (cancel and validate). */
export const subscriptionDetail = subscriptionSummary.extend({ active: z.boolean(), expired: z.boolean() });
export type SubscriptionDetail = z.infer<typeof subscriptionDetail>;

/**
 * Every refused billing call answers `{ success: false, error }` (docs/SPEC.md section 7), except
 * a visitor's 401 and a malformed request's 400, which answer `{ error }` like every route.
 */
export const billingError = z.object({ success: z.literal(false), error: z.string() });
export type BillingError = z.infer<typeof billingError>;

/** POST /api/subscriptions/create-checkout: where the browser goes to pay. */
export const createCheckoutResponse = z.object({
  success: z.literal(true),
  error: z.null(),
  sessionId: z.string(),
  url: z.string(),
  provider: z.enum(['stripe', 'test']),
  /** Stripe.js key; null for the built-in TEST MODE checkout. */
  publishableKey: z.string().nullable(),
});
export type CreateCheckoutResponse = z.infer<typeof createCheckoutResponse>;

/** GET /api/subscriptions/confirm?session_id=: whether the checkout session is paid (and fulfilled). */
export const confirmCheckoutQuery = z.object({ session_id: z.string().min(1).max(300) });
export const confirmCheckoutResponse = z.object({ success: z.literal(true), status: z.enum(['paid', 'open']) });
export type ConfirmCheckoutResponse = z.infer<typeof confirmCheckoutResponse>;

export const subscriptionParams = z.object({ id: textPathId });

/** POST /api/subscriptions/:id/cancel and GET /api/subscriptions/validate/:id. */
export const subscriptionResponse = z.object({
  success: z.literal(true),
  error: z.null(),
  subscription: subscriptionDetail,
});
export type SubscriptionResponse = z.infer<typeof subscriptionResponse>;

/** POST /api/webhooks/stripe: Stripe only needs a 2xx; errors answer `{ error }`. */
export const stripeWebhookResponse = z.object({ received: z.literal(true) });
export const plainError = z.object({ error: z.string() });
