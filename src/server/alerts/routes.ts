// GET /external-api/alert (docs/SPEC.md section 7): the market-wide alert log, filtered.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/client.ts';
import { alertLogResponse, alertQuery } from '../../shared/schemas/alerts.ts';
import { queryAlerts } from './service.ts';

// What the composition root (app.ts, main.ts) wires besides the alert log: the live stream's
// routes and the alert engine (run by main.ts on the single leader).
export { alertStreamRoutes, alertTestHookRoutes } from './stream.ts';
export { createAlertEngine } from './engine.ts';

export async function alertRoutes(app: FastifyInstance, options: { db: Database }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/external-api/alert',
    { schema: { querystring: alertQuery, response: { 200: alertLogResponse } } },
    async (request) => ({ alerts: await queryAlerts(options.db, request.query) }),
  );
}
