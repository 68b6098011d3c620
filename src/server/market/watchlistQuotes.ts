// GET /api/market/watchlist (issue 17, item 3): the watchlist table's figures for up to 50
// symbols in any form the symbol table resolves: last price, change since the session open, a
// sparkline of the newest one-minute closes and the newest engine alert, all read from the
// candle store (two queries for every symbol together) and the alert store (one). Nothing is
// made up: a symbol with no bars yet says so, an unknown one gets the table's explanation.
//
// "Session open" is the session the newest stored bar belongs to: the regular session for
// stocks, ETFs and indices (09:30 ET), the CME Globex session for futures (18:00 ET the evening
// before), and for crypto, which never closes, the UTC day (00:00 UTC).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sessionAt } from '../../shared/sessions.ts';
import {
  watchlistQuotesQuery,
  watchlistQuotesResponse,
  type MarketSource,
  type WatchlistEntry,
} from '../../shared/schemas/market.ts';
import { resolveSymbol, unknownSymbolMessage, type MarketSymbol } from '../../shared/symbols.ts';
import type { Database } from '../db/client.ts';
import { firstMinuteCandlesIn, latestMinuteCandlesOf, type StoredCandle } from './service.ts';

/** One-minute closes a sparkline shows: the last hour of trading. */
const SPARKLINE_POINTS = 60;

/** The newest engine alert of a plain ticker, as the alerts feature's service gives it. */
interface LatestAlertOfTicker {
  alertType: string;
  message: string;
  timestamp: Date;
}

export interface WatchlistQuoteOptions {
  db: Database;
  /** The newest alert of each plain ticker (the alerts feature's service, given by the composition root). */
  latestAlerts: (tickers: readonly string[]) => Promise<ReadonlyMap<string, LatestAlertOfTicker>>;
}

const SOURCES: readonly MarketSource[] = ['coinbase', 'yahoo', 'demo'];

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** Where the session of the bar opening at `time` opened (epoch ms), or null outside any session. */
function sessionOpenOf(symbol: MarketSymbol, time: number): number | null {
  return sessionAt(symbol.calendar, time).sessionOpen ?? null;
}

/** The watchlist entries of the given symbols, in the order given. */
async function watchlistQuotes(options: WatchlistQuoteOptions, queries: readonly string[]): Promise<WatchlistEntry[]> {
  const resolved = queries.map((query) => ({ query, symbol: resolveSymbol(query) }));
  const known = [...new Map(resolved.flatMap(({ symbol }) => (symbol ? [[symbol.id, symbol] as const] : []))).values()];
  const [bars, alerts] = await Promise.all([
    latestMinuteCandlesOf(
      options.db,
      known.map((symbol) => symbol.id),
      SPARKLINE_POINTS,
    ),
    options.latestAlerts([...new Set(known.map((symbol) => symbol.ticker))]),
  ]);

  // The session's first bar is among the newest bars unless the session is older than them.
  const sessionOpens = new Map<string, number>();
  const openBars = new Map<string, StoredCandle>();
  const older: Array<{ productId: string; from: number; before: number }> = [];
  for (const symbol of known) {
    const series = bars.get(symbol.id);
    const newest = series?.at(-1);
    if (!series || !newest) continue;
    const open = sessionOpenOf(symbol, newest.time);
    if (open === null || open > newest.time) continue;
    sessionOpens.set(symbol.id, open);
    if (series[0]!.time < open) {
      const first = series.find((bar) => bar.time >= open);
      if (first) openBars.set(symbol.id, first);
    } else {
      older.push({ productId: symbol.id, from: open, before: newest.time + 1 });
    }
  }
  for (const [productId, bar] of await firstMinuteCandlesIn(options.db, older)) openBars.set(productId, bar);

  return resolved.map(({ query, symbol }): WatchlistEntry => {
    if (!symbol) return { status: 'unknown', query, error: unknownSymbolMessage(query) };
    const alert = alerts.get(symbol.ticker);
    const latestAlert = alert
      ? { type: alert.alertType, message: alert.message, time: alert.timestamp.toISOString() }
      : null;
    const base = {
      query,
      id: symbol.id,
      ticker: symbol.ticker,
      name: symbol.name,
      assetClass: symbol.assetClass,
      latestAlert,
    };
    const series = bars.get(symbol.id) ?? [];
    const newest = series.at(-1);
    if (!newest) {
      return {
        status: 'no-data',
        ...base,
        last: null,
        lastTime: null,
        sessionOpen: null,
        sessionOpenTime: null,
        change: null,
        changePercent: null,
        sparkline: [],
        sparklineFrom: null,
        source: null,
        delayed: false,
        message: `No prices for ${symbol.ticker} yet: its first bars have not been stored.`,
      };
    }
    const openBar = sessionOpens.has(symbol.id) ? openBars.get(symbol.id) : undefined;
    const change = openBar ? newest.close - openBar.open : null;
    const source = SOURCES.find((entry) => entry === newest.source) ?? null;
    return {
      status: 'priced',
      ...base,
      last: newest.close,
      lastTime: new Date(newest.time).toISOString(),
      sessionOpen: openBar?.open ?? null,
      sessionOpenTime: openBar ? new Date(openBar.time).toISOString() : null,
      change: change === null ? null : round(change, 8),
      changePercent: change === null || !openBar || openBar.open === 0 ? null : round((change / openBar.open) * 100, 4),
      sparkline: series.map((bar) => bar.close),
      sparklineFrom: new Date(series[0]!.time).toISOString(),
      source,
      delayed: source === 'yahoo',
      message: null,
    };
  });
}

export async function watchlistQuoteRoutes(app: FastifyInstance, options: WatchlistQuoteOptions): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/api/market/watchlist',
      { schema: { querystring: watchlistQuotesQuery, response: { 200: watchlistQuotesResponse } } },
      async (request) => ({
        entries: await watchlistQuotes(options, request.query.symbols),
        asOf: new Date().toISOString(),
      }),
    );
}
