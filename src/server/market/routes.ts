// Market-data routes: GET /external-api/coinbase-prices (docs/SPEC.md section 7), and the candles
// of any symbol of the table (every asset class) with the alerts that fired on them (the own
// candle chart: any timeframe bucketed from the store, with the overlays and RSI asked for).
import fastifyEtag from '@fastify/etag';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AlertRecord } from '../../shared/alertDisplay.ts';
import { CHART_TIMEFRAME_SPECS, candleQuery, candleResponse, priceSnapshot } from '../../shared/schemas/market.ts';
import { symbolById, tickerOf } from '../../shared/tickers.ts';
import type { Database } from '../db/client.ts';
import { chartBars } from './chartBars.ts';
import { latestCandles, type QuoteService } from './service.ts';
import { watchlistQuoteRoutes, type WatchlistQuoteOptions } from './watchlistQuotes.ts';

export interface MarketRouteOptions {
  quotes: QuoteService;
  db: Database;
  /**
   * The alerts of one ticker since a moment, oldest first (the chart's markers). Given by the
   * composition root (the alerts feature's service), so market does not depend on alerts,
   * whose engine depends on market.
   */
  alertsSince: (ticker: string, since: Date) => Promise<AlertRecord[]>;
  /** The newest alert of each ticker (the watchlist table), given the same way. */
  latestAlerts: WatchlistQuoteOptions['latestAlerts'];
}

const PRICES_PATH = '/external-api/coinbase-prices';

export async function marketRoutes(app: FastifyInstance, options: MarketRouteOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // Polled answers: an ETag of the answer, and a poll whose If-None-Match still matches gets
  // 304 without a body. Weak: it is made before compression, so every encoding shares it.
  await app.register(fastifyEtag, { weak: true });
  await watchlistQuoteRoutes(app, options);
  // Every subscriber polls the same snapshot for 10 s: serialize it once (with the response
  // schema, as Fastify would), not per request.
  const serialized = new WeakMap<object, string>();
  // Untyped on purpose: the reply is that text, which a JSON content type sends as it is.
  app.get(PRICES_PATH, { schema: { response: { 200: priceSnapshot } } }, async (_request, reply) => {
    const snapshot = await options.quotes.snapshot();
    let body = serialized.get(snapshot);
    if (body === undefined) {
      body = JSON.stringify(priceSnapshot.parse(snapshot));
      serialized.set(snapshot, body);
    }
    return reply.header('Cache-Control', 'private, max-age=5').type('application/json; charset=utf-8').send(body);
  });

  routes.get(
    '/api/market/candles',
    { schema: { querystring: candleQuery, response: { 200: candleResponse } } },
    async (request) => {
      const { symbol, timeframe, limit, overlays, rsi } = request.query;
      const chart = await chartBars(
        (granularity, count) => latestCandles(options.db, symbol, granularity, count),
        timeframe,
        limit,
        overlays,
        rsi,
      );
      const bars = chart.bars;
      const since = bars.length > 0 ? new Date(bars[0]!.time) : new Date();
      return {
        symbol,
        timeframe,
        granularity: CHART_TIMEFRAME_SPECS[timeframe].seconds,
        // The newest bar's source: what the chart shows now ('yahoo' is labelled delayed).
        source: bars.at(-1)?.source ?? null,
        assetClass: symbolById(symbol)?.assetClass ?? 'crypto',
        candles: bars.map((bar) => ({
          time: new Date(bar.time).toISOString(),
          open: bar.open,
          high: bar.high,
          low: bar.low,
          close: bar.close,
          volume: bar.volume,
        })),
        overlays: chart.overlays,
        rsi: chart.rsi,
        alerts: await options.alertsSince(tickerOf(symbol), since),
      };
    },
  );
}
