// The track record's HTTP API (inside the dashboard scope: 401/403 without a subscription):
// - GET /api/track-record?signal=&symbol=&assetClass=&timeframe=&period=&source=: the live
//   record, resolved forecasts scored (kind 'live').
// - GET /api/track-record/backtest?symbol=&signal=&timeframe=: a walk-forward backtest over
//   the grid's history, scored the same way (kind 'backtest'). It runs in a worker; a client
//   that goes away takes its backtest with it (dropped from the queue, or stopped).
// - GET /api/track-record/mine?...: the signed-in trader's own rules' forecasts (issue 36),
//   scored the same way, with each rule's published flag; POST /api/track-record/mine/publish
//   {ruleId, published} shows a rule's record among the traders' published rules (GET
//   /api/track-record/rules, scored apart) or withdraws it. The product's own record never
//   includes a trader's rule.
// - POST /api/test/forecasts/resolve (TEST_HOOKS only): the demo feed's bars stored up to `now`
//   and the forecasts due by then resolved, so tests need not wait for the horizon.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  backtestQuery,
  myTrackRecordResponse,
  publishRuleRecordBody,
  publishRuleRecordResponse,
  testResolveForecastsBody,
  testResolveForecastsResponse,
  trackRecordQuery,
  trackRecordResponse,
} from '../../shared/schemas/trackRecord.ts';
import type { Database } from '../db/client.ts';
import { whileClientWaits } from '../http/clientGone.ts';
import { requireUser } from '../http/requestUser.ts';
import { advanceDemoCandles, type BacktestAdmission, type ForecastService } from './service.ts';

export async function trackRecordRoutes(
  app: FastifyInstance,
  options: { forecasts: ForecastService; admitBacktest: BacktestAdmission },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/api/track-record',
    { schema: { querystring: trackRecordQuery, response: { 200: trackRecordResponse } } },
    async (request) => options.forecasts.trackRecord(request.query),
  );
  // "My rules" (issue 36): the signed-in trader's own rules' forecasts, scored the same way.
  routes.get(
    '/api/track-record/mine',
    { schema: { querystring: trackRecordQuery, response: { 200: myTrackRecordResponse } } },
    async (request) => options.forecasts.mine(requireUser(request).id, request.query),
  );
  // The rules traders chose to publish, each scored apart from the product's own record.
  routes.get(
    '/api/track-record/rules',
    { schema: { querystring: trackRecordQuery, response: { 200: trackRecordResponse } } },
    async (request) => options.forecasts.publishedRules(request.query),
  );
  routes.post(
    '/api/track-record/mine/publish',
    { schema: { body: publishRuleRecordBody, response: { 200: publishRuleRecordResponse } } },
    async (request) => options.forecasts.publish(requireUser(request).id, request.body.ruleId, request.body.published),
  );
  routes.get(
    '/api/track-record/backtest',
    { schema: { querystring: backtestQuery, response: { 200: trackRecordResponse } } },
    async (request, reply) => {
      requireUser(request);
      return whileClientWaits(reply, (signal) =>
        options.forecasts.backtest(request.query, { admit: () => options.admitBacktest(request), signal }),
      );
    },
  );
}

/** Test-only (TEST_HOOKS=true): advance the demo feed's stored bars to `now` and resolve. */
export async function trackRecordTestHookRoutes(
  app: FastifyInstance,
  options: { db: Database; forecasts: ForecastService },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/api/test/forecasts/resolve',
    { schema: { body: testResolveForecastsBody, response: { 200: testResolveForecastsResponse } } },
    async (request) => {
      const now = request.body.now ? Date.parse(request.body.now) : Date.now();
      await options.forecasts.flush();
      const storedBars = await advanceDemoCandles(options.db, now);
      return { storedBars, ...(await options.forecasts.resolveDue(now)) };
    },
  );
}
