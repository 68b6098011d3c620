// Shapes of the market-data calls shared by server and browser: the exchange price snapshot
// (docs/SPEC.md section 3: exchange price response) and the candles of one asset with the alerts
// that fired on them.
import { z } from 'zod';
import { resolveSymbol, unknownSymbolMessage } from '../symbols.ts';
import { alertRecord } from './alerts.ts';

/** Who produced market figures: Coinbase (real time), Yahoo Finance (delayed where the exchange delays) or the demo feed. */
export const marketSource = z.enum(['coinbase', 'yahoo', 'demo']);
export type MarketSource = z.infer<typeof marketSource>;

export const priceEntry = z.object({
  symbol: z.string(),
  spot_price: z.number().nullable(),
  buy_price: z.number().nullable(),
  sell_price: z.number().nullable(),
  spread_percent: z.number().nullable(),
  last_updated: z.string().nullable(),
  error: z.string().optional(),
});
export type PriceEntry = z.infer<typeof priceEntry>;

/** GET /external-api/coinbase-prices. */
export const priceSnapshot = z.object({
  summary: z.object({
    total_cryptos_requested: z.number(),
    successful_fetches: z.number(),
    failed_fetches: z.number(),
    /** Sum of one unit of every asset priced, in USD. */
    total_market_value_tracked: z.number(),
  }),
  prices: z.record(z.string(), priceEntry),
  metadata: z.object({ timestamp: z.string(), source: marketSource, exchange: z.string() }),
});
export type PriceSnapshot = z.infer<typeof priceSnapshot>;

/** Candle sizes the store keeps, in seconds: one minute and one hour. */
export type CandleGranularity = 60 | 3600;

/** GET /api/market/candles query. */
export const candleQuery = z.object({
  /** Any form the symbol table resolves (BTC-USD, AAPL, NASDAQ:AAPL, MES1!); answered with its canonical id. */
  symbol: z
    .string()
    .max(64, 'symbol is too long')
    .transform((value, context) => {
      const symbol = resolveSymbol(value);
      if (symbol) return symbol.id;
      context.addIssue({ code: 'custom', message: unknownSymbolMessage(value) });
      return z.NEVER;
    }),
  granularity: z
    .enum(['60', '3600'], { error: 'granularity must be 60 or 3600 seconds' })
    .default('3600')
    .transform((value) => Number(value) as CandleGranularity),
  limit: z.coerce.number().int().min(10).max(1000).default(300),
});

export const candleBar = z.object({
  /** Open time, ISO 8601 UTC. */
  time: z.string(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});

/** GET /api/market/candles: the newest bars oldest first, and the alerts since the first. */
export const candleResponse = z.object({
  symbol: z.string(),
  granularity: z.number(),
  /** Which provider the bars came from ('coinbase', 'yahoo' or 'demo'); null when none are stored. */
  source: z.string().nullable(),
  /** The symbol's asset class (crypto, stock, etf, index, future, micro-future). */
  assetClass: z.string(),
  candles: z.array(candleBar),
  alerts: z.array(alertRecord),
});
export type CandleResponse = z.infer<typeof candleResponse>;
