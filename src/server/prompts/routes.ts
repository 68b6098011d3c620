// GET /prompts (docs/SPEC.md section 7): the prompt catalogue, optionally one category, from the
// `prompts` table that start-up seeds from catalogue.ts (service.ts).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/client.ts';
import { promptsQuery, promptsResponse } from '../../shared/schemas/prompts.ts';
import { listPrompts } from './service.ts';

export async function promptRoutes(app: FastifyInstance, options: { db: Database }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/prompts',
    { schema: { querystring: promptsQuery, response: { 200: promptsResponse } } },
    async (request) => ({ prompts: await listPrompts(options.db, request.query.category) }),
  );
}
