// GET /external-api/alert (docs/SPEC.md section 7): the market-wide alert log, filtered. The
// recent window (recent.ts) answers from memory what it holds; the database answers the rest.
import type { FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/client.ts';
import { alertLogResponse, alertQuery, type AlertQuery } from '../../shared/schemas/alerts.ts';
import { sendSharedJson } from '../http/compression.ts';
import type { PreparedAnswers } from '../http/preparedAnswers.ts';
import { rememberingQueryCompiler } from '../http/memoValidator.ts';
import type { RecentAlertLog } from './recent.ts';
import { queryAlerts } from './service.ts';

// What the composition root (app.ts, main.ts) wires besides the alert log: the live stream's
// routes and the alert engine (run by main.ts on the single leader).
export { alertStreamRoutes, alertTestHookRoutes } from './stream.ts';
export { createAlertEngine } from './engine.ts';
export { createRecentAlertLog, type RecentAlertLog } from './recent.ts';

export const ALERT_LOG_PATH = '/external-api/alert';

export async function alertRoutes(
  app: FastifyInstance,
  options: {
    db: Database;
    recent?: RecentAlertLog;
    /** Where the recent window's answers are prepared for the many requests of one query text. */
    prepared?: PreparedAnswers;
  },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { recent, prepared } = options;
  routes.get(
    ALERT_LOG_PATH,
    {
      schema: { querystring: alertQuery, response: { 200: alertLogResponse } },
      // The same query texts arrive thousands of times a second: each is validated once, and
      // answered by Fastify once while the window's answer to it stays the same.
      validatorCompiler: rememberingQueryCompiler(validatorCompiler),
      ...(prepared && recent
        ? { onSend: prepared.share(ALERT_LOG_PATH, (query) => recent.answer(query as AlertQuery)?.body) }
        : {}),
    },
    async (request, reply) => {
      const memory = recent?.answer(request.query);
      if (memory) return sendSharedJson(request, reply, memory.body);
      return { alerts: await queryAlerts(options.db, request.query) };
    },
  );
}
