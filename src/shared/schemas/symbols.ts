// Shapes of the symbol calls shared by server and browser: the type-ahead of the chart and
// alerts watchlists (GET /api/symbols/search) and the lookup of one typed symbol
// (GET /api/symbols/resolve). The model itself is src/shared/symbols.ts.
import { z } from 'zod';
import { ASSET_CLASSES, EXCHANGES, SESSION_CALENDAR_IDS } from '../symbols.ts';

export const SYMBOL_SEARCH_MAX_LIMIT = 50;
export const SYMBOL_SEARCH_DEFAULT_LIMIT = 10;
const MAX_SYMBOL_TEXT = 64;

/** GET /api/symbols/search query. */
export const symbolSearchQuery = z.object({
  q: z
    .string({ error: 'q is required: type part of a ticker or a name (e.g., AAPL, Micro Gold)' })
    .trim()
    .min(1, 'q must not be empty: type part of a ticker or a name (e.g., AAPL, Micro Gold)')
    .max(MAX_SYMBOL_TEXT, `q is at most ${MAX_SYMBOL_TEXT} characters`),
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${SYMBOL_SEARCH_MAX_LIMIT}` })
    .int(`limit must be a whole number from 1 to ${SYMBOL_SEARCH_MAX_LIMIT}`)
    .min(1, `limit must be a whole number from 1 to ${SYMBOL_SEARCH_MAX_LIMIT}`)
    .max(SYMBOL_SEARCH_MAX_LIMIT, `limit must be a whole number from 1 to ${SYMBOL_SEARCH_MAX_LIMIT}`)
    .default(SYMBOL_SEARCH_DEFAULT_LIMIT),
});

/** GET /api/symbols/resolve query. */
export const symbolResolveQuery = z.object({
  symbol: z
    .string({ error: 'symbol is required (e.g., AAPL, NASDAQ:AAPL, CME_MINI:MES1!, BTC)' })
    .trim()
    .min(1, 'symbol must not be empty (e.g., AAPL, NASDAQ:AAPL, CME_MINI:MES1!, BTC)')
    .max(MAX_SYMBOL_TEXT, `symbol is at most ${MAX_SYMBOL_TEXT} characters`),
});

/** One market as the API sends it: the model plus its chart-watchlist form. */
export const marketSymbolView = z.object({
  assetClass: z.enum(ASSET_CLASSES),
  id: z.string(),
  ticker: z.string(),
  name: z.string(),
  exchange: z.enum(EXCHANGES),
  currency: z.literal('USD'),
  tickSize: z.number(),
  calendar: z.enum(SESSION_CALENDAR_IDS),
  providerSymbol: z.string(),
  pointValue: z.number().optional(),
  /** The chart watchlist's EXCHANGE:SYMBOL form, e.g. CME_MINI:MES1!. */
  tradingView: z.string(),
});
export type MarketSymbolView = z.infer<typeof marketSymbolView>;

export const symbolSearchResponse = z.object({ symbols: z.array(marketSymbolView) });
export type SymbolSearchResponse = z.infer<typeof symbolSearchResponse>;

export const symbolResolveResponse = z.object({ symbol: marketSymbolView });
export type SymbolResolveResponse = z.infer<typeof symbolResolveResponse>;
