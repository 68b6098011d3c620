// GET /external-api/alert (docs/SPEC.md section 7): the market-wide alert log, filtered. The
// recent window (recent.ts) answers from memory what it holds; the database answers the rest.
import fastifyEtag from '@fastify/etag';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/client.ts';
import { alertLogResponse, alertQuery } from '../../shared/schemas/alerts.ts';
import type { RecentAlertLog } from './recent.ts';
import { queryAlerts } from './service.ts';

// What the composition root (app.ts, main.ts) wires besides the alert log: the live stream's
// routes and the alert engine (run by main.ts on the shards this instance holds).
export { alertStreamRoutes, alertTestHookRoutes } from './stream.ts';
export { createAlertEngine } from './engine.ts';
export { createRecentAlertLog, type RecentAlertLog } from './recent.ts';

const ALERT_LOG_PATH = '/external-api/alert';

/** An answer already serialised as the response schema would (the recent window's). */
function sendJsonText(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

export async function alertRoutes(
  app: FastifyInstance,
  options: {
    db: Database;
    recent?: RecentAlertLog;
  },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { recent } = options;
  // Polled: an ETag of the answer (weak: made before compression, shared by every encoding),
  // and 304 without a body for a poll whose If-None-Match still matches.
  await app.register(fastifyEtag, { weak: true });
  routes.get(
    ALERT_LOG_PATH,
    { schema: { querystring: alertQuery, response: { 200: alertLogResponse } } },
    async (request, reply) => {
      reply.header('Cache-Control', 'private, max-age=5');
      const memory = recent?.answer(request.query);
      if (memory) return sendJsonText(reply, memory.body);
      return { alerts: await queryAlerts(options.db, request.query) };
    },
  );
}
