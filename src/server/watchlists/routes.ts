// GET/PUT /api/watchlists/{chart|alerts}: a user's watchlists, saved on the server so they
// follow the trader to any device. A user with none gets docs/SPEC.md's defaults.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/client.ts';
import { requireUser } from '../http/requestUser.ts';
import { watchlistBody, watchlistResponse } from '../../shared/schemas/watchlists.ts';
import { loadWatchlist, saveWatchlist } from './service.ts';

export async function watchlistRoutes(app: FastifyInstance, options: { db: Database }): Promise<void> {
  const { db } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();
  for (const kind of ['chart', 'alerts'] as const) {
    routes.get(`/api/watchlists/${kind}`, { schema: { response: { 200: watchlistResponse } } }, async (request) => ({
      symbols: await loadWatchlist(db, requireUser(request).id, kind),
    }));
    routes.put(
      `/api/watchlists/${kind}`,
      { schema: { body: watchlistBody(kind), response: { 200: watchlistResponse } } },
      async (request) => ({ symbols: await saveWatchlist(db, requireUser(request).id, kind, request.body.symbols) }),
    );
  }
}
