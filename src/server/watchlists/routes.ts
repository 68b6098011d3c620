// GET/PUT /api/watchlists/{chart|alerts}: a user's watchlists, saved on the server so they
// follow the trader to any device. A user with none gets SPEC.md's defaults.
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/client.ts';
import { watchlists } from '../db/schema.ts';
import { DEFAULT_ALERTS_WATCHLIST, DEFAULT_CHART_WATCHLIST } from '../../shared/constants.ts';
import { watchlistBody, type WatchlistKind } from '../../shared/schemas/watchlists.ts';

const DEFAULTS: Record<WatchlistKind, readonly string[]> = {
  chart: DEFAULT_CHART_WATCHLIST,
  alerts: DEFAULT_ALERTS_WATCHLIST,
};

export async function loadWatchlist(db: Database, userId: string, kind: WatchlistKind): Promise<string[]> {
  const [row] = await db
    .select()
    .from(watchlists)
    .where(and(eq(watchlists.userId, userId), eq(watchlists.kind, kind)));
  return row ? row.symbols : [...DEFAULTS[kind]];
}

export async function watchlistRoutes(app: FastifyInstance, options: { db: Database }): Promise<void> {
  const { db } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();
  for (const kind of ['chart', 'alerts'] as const) {
    routes.get(`/api/watchlists/${kind}`, async (request) => ({
      symbols: await loadWatchlist(db, request.user!.id, kind),
    }));
    routes.put(`/api/watchlists/${kind}`, { schema: { body: watchlistBody(kind) } }, async (request) => {
      const symbols = request.body.symbols;
      await db
        .insert(watchlists)
        .values({ userId: request.user!.id, kind, symbols })
        .onConflictDoUpdate({ target: [watchlists.userId, watchlists.kind], set: { symbols, updatedAt: new Date() } });
      return { symbols };
    });
  }
}
