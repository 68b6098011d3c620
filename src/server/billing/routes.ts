// Billing calls of docs/SPEC.md section 7: the plan list, create-checkout, cancel, validate, and
// the /success re-check that fulfils a paid session if its webhook has not arrived yet.
// The service (billing/service.ts) decides; a refusal is a DomainError, which this scope
// answers in docs/SPEC.md's one billing error shape, `{ success: false, error }` (billingErrorHandler).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireSignedIn, type Auth } from '../auth/service.ts';
import type { Database } from '../db/client.ts';
import { DOMAIN_ERROR_STATUS, isDomainError } from '../errors/domain.ts';
import { requireUser } from '../http/requestUser.ts';
import {
  confirmCheckoutQuery,
  confirmCheckoutResponse,
  createCheckoutRequest,
  createCheckoutResponse,
  plansResponse,
  subscriptionParams,
  subscriptionResponse,
  type BillingError,
} from '../../shared/schemas/billing.ts';
import {
  cancelSubscription,
  confirmCheckout,
  listPlans,
  startCheckout,
  validateSubscription,
  type PaymentProvider,
} from './service.ts';

// What the composition root (app.ts) wires besides billingRoutes: the payment provider the
// configuration picks (Stripe or the TEST MODE checkout) and its routes.
export { createStripeProvider, type StripeApiLocation } from './stripe.ts';
export { stripeWebhookRoutes } from './stripeWebhook.ts';
export { createTestCheckoutProvider, testCheckoutRoutes } from './testCheckout.ts';

export interface BillingRoutesOptions {
  db: Database;
  auth: Auth;
  provider: PaymentProvider;
  publicUrl: string;
}

/**
 * The one place a billing refusal becomes HTTP: a DomainError answers its status with
 * `{ success: false, error }`; a provider failure is logged with its cause first. Anything
 * else (the sign-in hook's unauthenticated 401, which docs/SPEC.md answers `{ error }` as every
 * other API does, a malformed request's 400, a fault) goes to the app's handler.
 */
async function billingErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (!isDomainError(error) || error.kind === 'unauthenticated') throw error;
  if (error.kind === 'upstream') request.log.error({ err: error.cause ?? error }, error.message);
  const body: BillingError = { success: false, error: error.message };
  return reply.code(DOMAIN_ERROR_STATUS[error.kind]).send(body);
}

export async function billingRoutes(app: FastifyInstance, options: BillingRoutesOptions): Promise<void> {
  const { db, auth, provider, publicUrl } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();
  app.setErrorHandler(billingErrorHandler);
  // docs/SPEC.md: buying without a user answers 'Please log in first' (401, `{ error }`).
  const signedIn = requireSignedIn(auth);

  routes.get('/api/plans', { schema: { response: { 200: plansResponse } } }, async () => ({
    plans: await listPlans(db),
  }));

  routes.post(
    '/api/subscriptions/create-checkout',
    { preHandler: signedIn, schema: { body: createCheckoutRequest, response: { 200: createCheckoutResponse } } },
    async (request) => startCheckout(db, provider, requireUser(request), request.body, publicUrl),
  );

  routes.get(
    '/api/subscriptions/confirm',
    { preHandler: signedIn, schema: { querystring: confirmCheckoutQuery, response: { 200: confirmCheckoutResponse } } },
    async (request) => ({
      success: true as const,
      status: await confirmCheckout(db, provider, request.query.session_id, requireUser(request).id),
    }),
  );

  routes.post(
    '/api/subscriptions/:id/cancel',
    { preHandler: signedIn, schema: { params: subscriptionParams, response: { 200: subscriptionResponse } } },
    async (request) => ({
      success: true as const,
      error: null,
      subscription: await cancelSubscription(db, provider, request.params.id, requireUser(request).id),
    }),
  );

  routes.get(
    '/api/subscriptions/validate/:id',
    { preHandler: signedIn, schema: { params: subscriptionParams, response: { 200: subscriptionResponse } } },
    async (request) => ({
      success: true as const,
      error: null,
      subscription: await validateSubscription(db, request.params.id, requireUser(request).id),
    }),
  );
}
