// The setup study's HTTP API (issue 36), inside the dashboard scope (401/403 without a
// subscription): POST /api/studies takes a studyRequest and answers a studyResponse. Admitted
// per user like the track record's backtests (forecasts' admission: one running per user, a
// few a minute; 429 with Retry-After past that); the study runs in the worker pool, and a client
// that goes away takes its study with it. Errors name the field ("symbols: No market data for
// ..."; "conditions.0: watos_edge cannot be studied ...").
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { studyRequest, studyResponse } from '../../shared/schemas/scans.ts';
import { whileClientWaits } from '../http/clientGone.ts';
import { requireUser } from '../http/requestUser.ts';
import type { StudyService } from './service.ts';

export async function studyRoutes(
  app: FastifyInstance,
  options: { studies: StudyService; admit: (request: FastifyRequest) => Promise<() => void> },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/api/studies',
    { schema: { body: studyRequest, response: { 200: studyResponse } } },
    async (request, reply) => {
      requireUser(request);
      return whileClientWaits(reply, (signal) =>
        options.studies.study(request.body, { admit: () => options.admit(request), signal }),
      );
    },
  );
}
