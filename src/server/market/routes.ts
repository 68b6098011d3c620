// Market-data routes: GET /external-api/coinbase-prices (SPEC.md section 7), and the candles
// of one asset with the alerts that fired on them (the exchange view's chart).
import { and, asc, desc, eq, gte } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import type { Database } from '../db/client.ts';
import { alerts, candles } from '../db/schema.ts';
import { toAlertRecord } from '../alerts/store.ts';
import type { QuoteService } from './quotes.ts';
import { tickerOf } from '../../shared/tickers.ts';

const candleQuery = z.object({
  symbol: z.enum(CRYPTO_SYMBOLS, { error: 'symbol must be one of the 28 tracked products, e.g. BTC-USD' }),
  granularity: z
    .enum(['60', '3600'], { error: 'granularity must be 60 or 3600 seconds' })
    .default('3600')
    .transform(Number),
  limit: z.coerce.number().int().min(10).max(1000).default(300),
});

export async function marketRoutes(
  app: FastifyInstance,
  options: { quotes: QuoteService; db: Database },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // Every subscriber polls the same snapshot for 10 s: serialize it once, not per request.
  const serialized = new WeakMap<object, string>();
  routes.get('/external-api/coinbase-prices', async (_request, reply) => {
    const snapshot = await options.quotes.snapshot();
    let body = serialized.get(snapshot);
    if (body === undefined) {
      body = JSON.stringify(snapshot);
      serialized.set(snapshot, body);
    }
    return reply.header('Cache-Control', 'private, max-age=5').type('application/json; charset=utf-8').send(body);
  });

  routes.get('/api/market/candles', { schema: { querystring: candleQuery } }, async (request) => {
    const { symbol, granularity, limit } = request.query;
    const rows = await options.db
      .select()
      .from(candles)
      .where(and(eq(candles.productId, symbol), eq(candles.granularity, granularity)))
      .orderBy(desc(candles.time))
      .limit(limit);
    rows.reverse();
    const since = rows[0]?.time ?? new Date();
    const fired = await options.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.ticker, tickerOf(symbol)), gte(alerts.timestamp, since)))
      .orderBy(asc(alerts.timestamp))
      .limit(500);
    return {
      symbol,
      granularity,
      source: rows[0]?.source ?? null,
      candles: rows.map((row) => ({
        time: row.time.toISOString(),
        open: row.open,
        high: row.high,
        low: row.low,
        close: row.close,
        volume: row.volume,
      })),
      alerts: fired.map(toAlertRecord),
    };
  });
}
