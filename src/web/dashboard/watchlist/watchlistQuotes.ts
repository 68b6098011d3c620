// Browser side of the watchlist table (issue 17, item 3): the figures of a watchlist's symbols
// (GET /api/market/watchlist, re-read every minute) and the trader's choice between the table
// and the compact chips, remembered per watchlist in localStorage.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { WATCHLIST_QUOTES_MAX } from '../../../shared/schemas/chartOptions.ts';
import { apiFetch, schemaOnDemand } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/**
 * How often the table re-reads its figures: once a minute (it was every 15 s), since the live
 * connection's ticks keep Last, change and % current in between; the re-read brings the session
 * open, the sparkline's new bar and the latest alert, and the prices of a tab without ticks.
 */
const WATCHLIST_REFRESH_MS = 60_000;

/**
 * Sooner while a symbol's first bars are still being stored (a server that has just started
 * backfills for a few seconds), so that its row does not say "No prices ... yet" for a minute.
 */
const WATCHLIST_FIRST_BARS_REFRESH_MS = 10_000;

/** The answer's schema, imported with the first answer (the table is on the dashboard's first paint). */
const watchlistQuotesResponse = schemaOnDemand(
  async () => (await import('../../../shared/schemas/market.ts')).watchlistQuotesResponse,
);

export function useWatchlistQuotes(symbols: readonly string[]) {
  const asked = symbols.slice(0, WATCHLIST_QUOTES_MAX);
  return useQuery({
    queryKey: queryKeys.market.watchlist(asked),
    enabled: asked.length > 0,
    refetchInterval: (query) =>
      query.state.data?.entries.some((entry) => entry.status === 'no-data')
        ? WATCHLIST_FIRST_BARS_REFRESH_MS
        : WATCHLIST_REFRESH_MS,
    // Keep last figures on screen while a changed list loads.
    placeholderData: (previous) => previous,
    queryFn: () =>
      apiFetch(
        `/api/market/watchlist?${new URLSearchParams({ symbols: asked.join(',') }).toString()}`,
        watchlistQuotesResponse,
      ),
  });
}

export type WatchlistView = 'table' | 'chips';

/** localStorage key of a watchlist's view. */
export function watchlistViewKey(list: 'chart' | 'alerts'): string {
  return `watchlist-view:${list}`;
}

function storedView(key: string): WatchlistView {
  try {
    return localStorage.getItem(key) === 'chips' ? 'chips' : 'table';
  } catch {
    return 'table';
  }
}

/** The table by default; the chips once the trader picks them, on this browser. */
export function useWatchlistView(list: 'chart' | 'alerts'): [WatchlistView, (view: WatchlistView) => void] {
  const key = watchlistViewKey(list);
  const [view, setView] = useState<WatchlistView>(() => storedView(key));
  return [
    view,
    (next) => {
      setView(next);
      try {
        localStorage.setItem(key, next);
      } catch {
        // Storage refused (private mode, quota): the choice lasts for this page only.
      }
    },
  ];
}
