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
import {
  alertRule,
  alertRuleList,
  listLimitQuery,
  ruleDeliveryList,
  ruleFiringList,
  ruleIdParams,
  ruleInput,
  ruleStatusBody,
  testRulePriceBody,
  testRulePriceResponse,
} from '../../shared/schemas/alertRules.ts';
import type { RulesRuntime } from './runtime.ts';
import {
  createRule,
  deleteRule,
  listDeliveries,
  listFirings,
  listRules,
  setRuleStatus,
  updateRule,
  type RuleLimits,
} from './store.ts';

export interface RuleRouteOptions {
  db: Database;
  limits: RuleLimits;
}

export async function alertRuleRoutes(app: FastifyInstance, options: RuleRouteOptions): Promise<void> {
  const { db, limits } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/alert-rules', { schema: { response: { 200: alertRuleList } } }, async (request) => ({
    rules: await listRules(db, requireUser(request).id),
    maxActive: limits.maxActive,
  }));
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
    { schema: { querystring: listLimitQuery, response: { 200: ruleFiringList } } },
    async (request) => ({ firings: await listFirings(db, requireUser(request).id, request.query.limit) }),
  );
  routes.get(
    '/api/alert-rules/deliveries',
    { schema: { querystring: listLimitQuery, response: { 200: ruleDeliveryList } } },
    async (request) => ({ deliveries: await listDeliveries(db, requireUser(request).id, request.query.limit) }),
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
