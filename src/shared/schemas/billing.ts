// Shapes of the billing calls shared by server and browser.
import { z } from 'zod';

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
