// The alert rules API (issue 16), under the dashboard's gate (signed in, subscribed):
//   GET/POST /api/alert-rules, PUT/PATCH/DELETE /api/alert-rules/:id,
//   GET /api/alert-rules/triggered, GET /api/alert-rules/deliveries,
//   GET /api/push/key, POST/DELETE /api/push/subscriptions,
//   GET /api/alert-rules/webhook, POST /api/alert-rules/webhook/rotate, POST /api/alert-rules/webhook/test,
// and the test hook POST /api/test/rules/price (TEST_HOOKS only).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../db/client.ts';
import { requireUser } from '../http/requestUser.ts';
import { WEBHOOK_SIGNATURE_HEADER } from '../../shared/schemas/alertRules.ts';
import { vetUrl, OutboundLookupError } from '../http/outboundGuard.ts';
import { invalid } from '../errors/domain.ts';
import { perUserLimit } from '../http/rateLimit.ts';
import {
  alertRule,
  alertRuleList,
  pushKeyResponse,
  pushSubscriptionBody,
  pushSubscriptionsResponse,
  pushUnsubscribeBody,
  webhookSecretResponse,
  webhookTestBody,
  webhookTestResponse,
  ruleDeliveryList,
  ruleFiringList,
  ruleIdParams,
  ruleInput,
  ruleListQuery,
  rulePageQuery,
  ruleStatusBody,
  testRulePriceBody,
  testRulePriceResponse,
} from '../../shared/schemas/alertRules.ts';
import { countPushSubscriptions, deletePushSubscription, savePushSubscription } from './push.ts';
import type { RulesRuntime } from './runtime.ts';
import { getOrCreateWebhookSecret, rotateWebhookSecret, testWebhook } from './webhook.ts';
import {
  countRules,
  createRule,
  deleteRule,
  listDeliveries,
  listFirings,
  listRules,
  setRuleStatus,
  updateRule,
  type RuleLimits,
} from './store.ts';

/** Webhook test sends one user may make a minute: enough to debug a receiver, not a traffic cannon. */
const WEBHOOK_TESTS_PER_MINUTE = 10;

export interface RuleRouteOptions {
  db: Database;
  limits: RuleLimits;
  /** The VAPID public key browsers subscribe with. */
  vapidPublicKey: string;
  webhookTimeoutMs: number;
}

export async function alertRuleRoutes(app: FastifyInstance, options: RuleRouteOptions): Promise<void> {
  const { db, limits } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/api/alert-rules',
    { schema: { querystring: ruleListQuery, response: { 200: alertRuleList } } },
    async (request) => {
      const userId = requireUser(request).id;
      const [page, counts] = await Promise.all([listRules(db, userId, request.query), countRules(db, userId)]);
      return {
        rules: page.items,
        nextCursor: page.nextCursor,
        activeCount: counts.active,
        maxActive: limits.maxActive,
        totalCount: counts.total,
        maxTotal: limits.maxTotal,
      };
    },
  );
  routes.post(
    '/api/alert-rules',
    { schema: { body: ruleInput, response: { 201: alertRule } } },
    async (request, reply) => reply.code(201).send(await createRule(db, requireUser(request).id, request.body, limits)),
  );
  routes.put(
    '/api/alert-rules/:id',
    { schema: { params: ruleIdParams, body: ruleInput, response: { 200: alertRule } } },
    async (request) => updateRule(db, requireUser(request).id, request.params.id, request.body, limits),
  );
  routes.patch(
    '/api/alert-rules/:id',
    { schema: { params: ruleIdParams, body: ruleStatusBody, response: { 200: alertRule } } },
    async (request) => setRuleStatus(db, requireUser(request).id, request.params.id, request.body.status, limits),
  );
  routes.delete(
    '/api/alert-rules/:id',
    { schema: { params: ruleIdParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await deleteRule(db, requireUser(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
  routes.get(
    '/api/alert-rules/triggered',
    { schema: { querystring: rulePageQuery, response: { 200: ruleFiringList } } },
    async (request) => {
      const page = await listFirings(db, requireUser(request).id, request.query);
      return { firings: page.items, nextCursor: page.nextCursor };
    },
  );
  routes.get(
    '/api/alert-rules/deliveries',
    { schema: { querystring: rulePageQuery, response: { 200: ruleDeliveryList } } },
    async (request) => {
      const page = await listDeliveries(db, requireUser(request).id, request.query);
      return { deliveries: page.items, nextCursor: page.nextCursor };
    },
  );

  routes.get('/api/push/key', { schema: { response: { 200: pushKeyResponse } } }, async () => ({
    publicKey: options.vapidPublicKey,
  }));
  routes.post(
    '/api/push/subscriptions',
    { schema: { body: pushSubscriptionBody, response: { 200: pushSubscriptionsResponse } } },
    async (request) => {
      const userId = requireUser(request).id;
      await savePushSubscription(db, userId, request.body, { allowPrivateTargets: limits.allowPrivateTargets });
      return { count: await countPushSubscriptions(db, userId) };
    },
  );
  routes.delete(
    '/api/push/subscriptions',
    { schema: { body: pushUnsubscribeBody, response: { 200: pushSubscriptionsResponse } } },
    async (request) => {
      const userId = requireUser(request).id;
      await deletePushSubscription(db, userId, request.body.endpoint);
      return { count: await countPushSubscriptions(db, userId) };
    },
  );

  const secretAnswer = (secret: string) => ({ secret, header: WEBHOOK_SIGNATURE_HEADER });
  routes.get('/api/alert-rules/webhook', { schema: { response: { 200: webhookSecretResponse } } }, async (request) =>
    secretAnswer(await getOrCreateWebhookSecret(db, requireUser(request).id)),
  );
  routes.post(
    '/api/alert-rules/webhook/rotate',
    { schema: { response: { 200: webhookSecretResponse } } },
    async (request) => secretAnswer(await rotateWebhookSecret(db, requireUser(request).id)),
  );
  const limitTests = perUserLimit({
    name: 'webhook-test',
    max: WEBHOOK_TESTS_PER_MINUTE,
    windowMs: 60_000,
    message: (wait) => `At most ${WEBHOOK_TESTS_PER_MINUTE} webhook tests a minute. Please wait ${wait} and try again.`,
  });
  routes.post(
    '/api/alert-rules/webhook/test',
    {
      schema: { body: webhookTestBody, response: { 200: webhookTestResponse } },
      config: { rateLimit: limitTests },
    },
    async (request) => {
      const { url } = request.body;
      // A URL the guard refuses is the user's mistake (400), not a failed delivery.
      await vetUrl(url, { allowPrivateTargets: limits.allowPrivateTargets, label: 'Webhook URL' }).catch(
        (error: unknown) => {
          throw error instanceof OutboundLookupError ? invalid(error.message) : error;
        },
      );
      const secret = await getOrCreateWebhookSecret(db, requireUser(request).id);
      return testWebhook(url, secret, {
        timeoutMs: options.webhookTimeoutMs,
        allowPrivateTargets: limits.allowPrivateTargets,
      });
    },
  );
}

/** Test-only (TEST_HOOKS=true): a price update for a symbol through the rules' real path. */
export async function alertRuleTestHookRoutes(app: FastifyInstance, options: { runtime: RulesRuntime }) {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/api/test/rules/price',
    { schema: { body: testRulePriceBody, response: { 200: testRulePriceResponse } } },
    async (request) => {
      const recorded = await options.runtime.priceUpdate(request.body.symbol, request.body.price);
      return { fired: recorded.firings.length };
    },
  );
}
