// Billing calls of SPEC.md section 7: the plan list, create-checkout, cancel, validate, and
// the /success re-check that fulfils a paid session if its webhook has not arrived yet.
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Auth } from '../auth/auth.ts';
import { requireSignedIn } from '../auth/guards.ts';
import type { Database } from '../db/client.ts';
import { checkoutSessions, prices, subscriptions } from '../db/schema.ts';
import { HttpError } from '../http/errors.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import { createCheckoutRequest } from '../../shared/schemas/billing.ts';
import { findActivePrice, listPlans } from './plans.ts';
import type { PaymentProvider, SubscriptionRow } from './provider.ts';

export interface BillingRoutesOptions {
  db: Database;
  auth: Auth;
  provider: PaymentProvider;
  publicUrl: string;
}

function describe(row: SubscriptionRow) {
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

export async function billingRoutes(app: FastifyInstance, options: BillingRoutesOptions): Promise<void> {
  const { db, auth, provider, publicUrl } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = requireSignedIn(auth);

  routes.get('/api/plans', async () => ({ plans: await listPlans(db) }));

  routes.post(
    '/api/subscriptions/create-checkout',
    { schema: { body: createCheckoutRequest } },
    async (request, reply) => {
      // SPEC.md: buying without a user answers 'Please log in first'.
      await signedIn(request, reply);
      const user = request.user!;
      if (request.body.userId !== user.id) {
        return reply.code(403).send({ success: false, error: 'You can only start a checkout for your own account' });
      }
      const price = await findActivePrice(db, request.body.priceId);
      if (!price) return reply.code(400).send({ success: false, error: 'This plan is not available' });
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
        request.log.error({ err: error }, 'checkout session failed');
        return reply
          .code(502)
          .send({ success: false, error: 'The payment provider could not start the checkout. Please try again.' });
      }
    },
  );

  routes.get(
    '/api/subscriptions/confirm',
    { schema: { querystring: z.object({ session_id: z.string().min(1).max(300) }) } },
    async (request, reply) => {
      await signedIn(request, reply);
      const [session] = await db
        .select()
        .from(checkoutSessions)
        .where(and(eq(checkoutSessions.id, request.query.session_id), eq(checkoutSessions.userId, request.user!.id)));
      if (!session) throw new HttpError(404, 'Checkout session not found');
      const status = await provider.confirm(session.id);
      return { success: true, status };
    },
  );

  async function ownSubscription(id: string, userId: string) {
    const [row] = await db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.id, id), eq(subscriptions.userId, userId)));
    return row ?? null;
  }

  routes.post(
    '/api/subscriptions/:id/cancel',
    { schema: { params: z.object({ id: z.string().min(1).max(100) }) } },
    async (request, reply) => {
      await signedIn(request, reply);
      const row = await ownSubscription(request.params.id, request.user!.id);
      if (!row) return reply.code(404).send({ success: false, error: 'Subscription not found' });
      const [price] = row.priceId ? await db.select().from(prices).where(eq(prices.id, row.priceId)) : [];
      if (price && price.interval !== 'month') {
        return reply.code(400).send({
          success: false,
          error: 'One-time plans do not renew, so there is nothing to cancel. Access ends at the end of the period.',
        });
      }
      try {
        await provider.cancelAtPeriodEnd(row);
      } catch (error) {
        request.log.error({ err: error }, 'cancel failed');
        return reply.code(502).send({ success: false, error: 'Failed to cancel subscription' });
      }
      const updated = await ownSubscription(row.id, request.user!.id);
      return { success: true, error: null, subscription: describe(updated!) };
    },
  );

  routes.get(
    '/api/subscriptions/validate/:id',
    { schema: { params: z.object({ id: z.string().min(1).max(100) }) } },
    async (request, reply) => {
      await signedIn(request, reply);
      const row = await ownSubscription(request.params.id, request.user!.id);
      if (!row) return reply.code(404).send({ success: false, error: 'Subscription not found' });
      return { success: true, error: null, subscription: describe(row) };
    },
  );
}
