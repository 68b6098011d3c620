// Watchlist rules shared by server and browser (docs/SPEC.md section 4 and 5): the chart
// watchlist holds EXCHANGE:SYMBOL entries, the alerts panel plain symbols; both upper-case.
import { z } from 'zod';
import { WATCHLIST_FORMAT_ALERT, WATCHLIST_MAX_SYMBOLS } from './watchlistRules.ts';

// The zod-free texts and limits (the browser's first paint uses them without zod).
export * from './watchlistRules.ts';

export const chartSymbol = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9_.!-]{1,20}:[A-Z0-9_.!/-]{1,30}$/, WATCHLIST_FORMAT_ALERT);

export const alertSymbol = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9.\-/]{1,20}$/, 'Symbols are letters, digits, dots or dashes (e.g., AAPL, BTC)');

const unique = (symbols: string[]) => [...new Set(symbols)];

export const watchlistKinds = { chart: chartSymbol, alerts: alertSymbol } as const;
export type WatchlistKind = keyof typeof watchlistKinds;

export function watchlistBody(kind: WatchlistKind) {
  return z.object({
    symbols: z
      .array(watchlistKinds[kind])
      .max(WATCHLIST_MAX_SYMBOLS, `A watchlist holds at most ${WATCHLIST_MAX_SYMBOLS} symbols`)
      .transform(unique),
  });
}

/** GET and PUT /api/watchlists/{kind}: the saved symbols (the defaults for a user with none). */
export const watchlistResponse = z.object({ symbols: z.array(z.string()) });
export type WatchlistResponse = z.infer<typeof watchlistResponse>;
