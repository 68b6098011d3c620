// POST /api/webhooks/stripe: verifies the signature on the raw body (default tolerance),
// handles each event id once, and re-reads the session, subscription or invoice from Stripe
// instead of trusting the payload, because events arrive late, twice, or out of order.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type Stripe from 'stripe';
import type { Database } from '../db/client.ts';
import { plainError, stripeWebhookResponse } from '../../shared/schemas/billing.ts';
import { claimWebhookEvent, releaseWebhookEvent } from './service.ts';
import type { StripeProvider } from './stripe.ts';

export interface StripeWebhookOptions {
  db: Database;
  provider: StripeProvider;
}

/** The work an event calls for, or null for event types we do not use. */
function handlerFor(event: Stripe.Event, provider: StripeProvider): (() => Promise<string>) | null {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return () => provider.syncCheckoutSession(event.data.object.id);
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return () => provider.syncSubscription(event.data.object.id);
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoiceId = event.data.object.id;
      return invoiceId ? () => provider.syncInvoice(invoiceId) : null;
    }
    default:
      return null;
  }
}

export async function stripeWebhookRoutes(app: FastifyInstance, options: StripeWebhookOptions): Promise<void> {
  const { db, provider } = options;
  // The signature covers the exact bytes Stripe sent; this plugin's scope keeps them raw.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const routes = app.withTypeProvider<ZodTypeProvider>();
  const response = { 200: stripeWebhookResponse, 400: plainError, 500: plainError };
  routes.post('/api/webhooks/stripe', { schema: { response } }, async (request, reply) => {
    const signature = request.headers['stripe-signature'];
    if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
      return reply.code(400).send({ error: 'Missing Stripe signature' });
    }
    let event: Stripe.Event;
    try {
      event = provider.verifyEvent(request.body, signature);
    } catch {
      return reply.code(400).send({ error: 'Invalid Stripe signature' });
    }

    const handle = handlerFor(event, provider);
    const received = { received: true as const };
    if (!handle) return received;

    // Claiming the id first makes a concurrent duplicate delivery skip instead of racing.
    if (!(await claimWebhookEvent(db, { id: event.id, provider: 'stripe', type: event.type }))) return received;

    try {
      const outcome = await handle();
      if (outcome === 'ignored')
        request.log.info({ eventId: event.id, type: event.type }, 'Stripe event names nothing of ours');
    } catch (error) {
      // Release the claim so Stripe's retry of this event does the work.
      await releaseWebhookEvent(db, event.id);
      request.log.error({ err: error, eventId: event.id, type: event.type }, 'Stripe webhook handling failed');
      return reply.code(500).send({ error: 'The Stripe event could not be processed; Stripe will retry it' });
    }
    return received;
  });
}
