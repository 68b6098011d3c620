// GET /api/me's answer, shared by the server (its response schema) and the browser (the parse the
// dashboard waits for before its first render). A module of its own, so the browser builds only
// these few schemas before that render, not every account and billing shape (zod builds each
// schema when its module is evaluated). auth.ts and billing.ts re-export them.
import { z } from 'zod';

/** The subscription that decides access (GET /api/me), in docs/SPEC.md's snake_case. */
export const subscriptionSummary = z.object({
  id: z.string(),
  status: z.string(),
  /** ISO-8601; null when the provider has not told us yet. */
  current_period_end: z.string().nullable(),
  price_id: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
});
export type SubscriptionSummary = z.infer<typeof subscriptionSummary>;

/** GET /api/me: who is signed in, and the subscription that decides access (both null for a visitor). */
export const meUser = z.object({ id: z.string(), email: z.string(), username: z.string().nullable() });
export type MeUser = z.infer<typeof meUser>;
export const meResponse = z.object({ user: meUser.nullable(), subscription: subscriptionSummary.nullable() });
export type MeResponse = z.infer<typeof meResponse>;
