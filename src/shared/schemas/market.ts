// Shapes of the market-data calls shared by server and browser: the exchange price snapshot
// (docs/SPEC.md section 3: exchange price response) and the candles of one asset with the alerts
// that fired on them.
import { z } from 'zod';
import { resolveSymbol, unknownSymbolMessage } from '../symbols.ts';
import { alertRecord } from './alerts.ts';
import { CHART_OVERLAYS, CHART_TIMEFRAMES, WATCHLIST_QUOTES_MAX, type ChartOverlay } from './chartOptions.ts';

// The zod-free options and limits (the browser's first paint uses them without zod).
export * from './chartOptions.ts';

/**
 * Who produced market figures: Coinbase (real time), Yahoo Finance (delayed where the exchange
 * delays), the demo feed, or Alpaca's licensed US-stock stream (real time; only with a key).
 */
export const marketSource = z.enum(['coinbase', 'yahoo', 'demo', 'alpaca']);
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

/** GET /api/market/candles query. */
export const candleQuery = z
  .object({
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
    /** The bar length; wins over `granularity`. */
    timeframe: z
      .enum(CHART_TIMEFRAMES, { error: `timeframe must be one of ${CHART_TIMEFRAMES.join(', ')}` })
      .optional(),
    /** The older form of the bar length, kept for existing callers: 60 is 1m, 3600 is 1h. */
    granularity: z.enum(['60', '3600'], { error: 'granularity must be 60 or 3600 seconds' }).optional(),
    limit: z.coerce.number().int().min(10).max(1000).default(300),
    /** Comma-separated overlays to compute, e.g. `sma20,ema20,bb20`. */
    overlays: z
      .string()
      .max(200, 'overlays is too long')
      .transform((value, context) => {
        const picked = [
          ...new Set(
            value
              .split(',')
              .map((part) => part.trim())
              .filter(Boolean),
          ),
        ];
        const unknown = picked.filter((part) => !(CHART_OVERLAYS as readonly string[]).includes(part));
        if (unknown.length > 0) {
          context.addIssue({
            code: 'custom',
            message: `unknown overlay ${unknown[0]}: use ${CHART_OVERLAYS.join(', ')}`,
          });
          return z.NEVER;
        }
        return picked as ChartOverlay[];
      })
      .default([]),
    /** The RSI period for the RSI pane; left out, no RSI is computed. */
    rsi: z.coerce
      .number({ error: 'rsi must be a whole number between 2 and 100' })
      .int('rsi must be a whole number between 2 and 100')
      .min(2, 'rsi must be a whole number between 2 and 100')
      .max(100, 'rsi must be a whole number between 2 and 100')
      .optional(),
  })
  .transform(({ timeframe, granularity, ...rest }) => ({
    ...rest,
    timeframe: timeframe ?? (granularity === '60' ? '1m' : '1h'),
  }));

export const candleBar = z.object({
  /** Open time, ISO 8601 UTC. */
  time: z.string(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});

/** One indicator line, aligned with the bars: null during its warm-up (never a made-up value). */
export const indicatorLine = z.array(z.number().nullable());

export const overlaySeries = z.object({
  id: z.enum(CHART_OVERLAYS),
  label: z.string(),
  /** One line (SMA, EMA) or three (Bollinger: upper, middle, lower), each aligned with the bars. */
  lines: z.array(z.object({ name: z.string(), values: indicatorLine })),
});
export type OverlaySeries = z.infer<typeof overlaySeries>;

/** GET /api/market/candles: the newest bars oldest first, and the alerts since the first. */
export const candleResponse = z.object({
  symbol: z.string(),
  timeframe: z.enum(CHART_TIMEFRAMES),
  /** The bar length in seconds (86400 for 1D). */
  granularity: z.number(),
  /** Which provider the bars came from ('coinbase', 'yahoo' or 'demo'); null when none are stored. */
  source: z.string().nullable(),
  /** The symbol's asset class (crypto, stock, etf, index, future, micro-future). */
  assetClass: z.string(),
  candles: z.array(candleBar),
  /** The overlays asked for, in the order asked. */
  overlays: z.array(overlaySeries).default([]),
  /** RSI of the closes when asked for, aligned with the bars. */
  rsi: z.object({ period: z.number(), values: indicatorLine }).nullable().default(null),
  alerts: z.array(alertRecord),
});
export type CandleResponse = z.infer<typeof candleResponse>;

/** GET /api/market/watchlist query: `symbols`, comma-separated, any form the symbol table resolves. */
export const watchlistQuotesQuery = z.object({
  symbols: z
    .string({ error: 'symbols is required: a comma-separated list, e.g. AAPL,BTC,NASDAQ:MSFT' })
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      ),
    ])
    .refine((list) => list.length > 0, 'symbols is required: a comma-separated list, e.g. AAPL,BTC,NASDAQ:MSFT')
    .refine((list) => list.length <= WATCHLIST_QUOTES_MAX, `At most ${WATCHLIST_QUOTES_MAX} symbols a request`),
});

/** The newest engine alert of a symbol. */
export const watchlistAlert = z.object({
  /** The generator's alert type, e.g. 'Breakout'. */
  type: z.string(),
  message: z.string(),
  /** When the condition was seen, ISO 8601 UTC. */
  time: z.string(),
});

/** A symbol the table knows: its figures from the candle store, or none yet (`status: 'no-data'`, every number null). */
export const watchlistQuote = z.object({
  status: z.enum(['priced', 'no-data']),
  /** The form the caller asked for, as given. */
  query: z.string(),
  /** Canonical id: BTC-USD, AAPL, MES1!. */
  id: z.string(),
  ticker: z.string(),
  name: z.string(),
  assetClass: z.string(),
  /** Close of the newest stored one-minute bar. */
  last: z.number().nullable(),
  /** Open time of that bar, ISO 8601 UTC. */
  lastTime: z.string().nullable(),
  /**
   * Open of the first stored one-minute bar of the session the newest bar belongs to (stocks:
   * the regular session; futures: the Globex session; crypto: the UTC day).
   */
  sessionOpen: z.number().nullable(),
  /** Open time of that bar, ISO 8601 UTC. */
  sessionOpenTime: z.string().nullable(),
  /** last - sessionOpen. */
  change: z.number().nullable(),
  /** change / sessionOpen * 100. */
  changePercent: z.number().nullable(),
  /** Closes of the newest stored one-minute bars (at most 60), oldest first. */
  sparkline: z.array(z.number()),
  /** Open time of the sparkline's first bar, ISO 8601 UTC. */
  sparklineFrom: z.string().nullable(),
  latestAlert: watchlistAlert.nullable(),
  /** Provider of the newest bar; null without bars. */
  source: marketSource.nullable(),
  /** True when that provider's figures are delayed (Yahoo Finance). */
  delayed: z.boolean(),
  /** 'no-data': what to tell the trader. */
  message: z.string().nullable(),
});
export type WatchlistQuote = z.infer<typeof watchlistQuote>;

/** A symbol the table does not know, with the table's explanation. */
export const watchlistUnknown = z.object({
  status: z.literal('unknown'),
  query: z.string(),
  error: z.string(),
});

export const watchlistEntry = z.discriminatedUnion('status', [watchlistQuote, watchlistUnknown]);
export type WatchlistEntry = z.infer<typeof watchlistEntry>;

/** GET /api/market/watchlist: one entry a requested symbol, in the order asked. */
export const watchlistQuotesResponse = z.object({
  entries: z.array(watchlistEntry),
  /** When the server answered, ISO 8601 UTC. */
  asOf: z.string(),
});
export type WatchlistQuotesResponse = z.infer<typeof watchlistQuotesResponse>;
