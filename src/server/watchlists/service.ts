// Watchlists: the only module that reads or writes the `watchlists` table. A user with no
// saved list gets the product's defaults (chart: EXCHANGE:SYMBOL entries, alerts: plain symbols).
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { watchlists } from '../db/schema.ts';
import { DEFAULT_ALERTS_WATCHLIST, DEFAULT_CHART_WATCHLIST } from '../../shared/constants.ts';
import type { WatchlistKind } from '../../shared/schemas/watchlists.ts';

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

/** Replaces the user's list (symbols already validated and de-duplicated by the shared schema). */
export async function saveWatchlist(
  db: Database,
  userId: string,
  kind: WatchlistKind,
  symbols: string[],
): Promise<string[]> {
  await db
    .insert(watchlists)
    .values({ userId, kind, symbols })
    .onConflictDoUpdate({ target: [watchlists.userId, watchlists.kind], set: { symbols, updatedAt: new Date() } });
  return symbols;
}
