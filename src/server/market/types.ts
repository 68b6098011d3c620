// The market-data provider interface (DESIGN.md section 1): Coinbase's public APIs when
// reachable, the seeded demo feed otherwise. Every answer says which source produced it so
// the UI can label demo data; nothing simulated is ever passed off as real.
export type { MarketSource } from '../../shared/schemas/market.ts';
import type { MarketSource } from '../../shared/schemas/market.ts';
import type { CandleInput } from '../../signals/candles.ts';

export interface Quote {
  /** Coinbase product id, e.g. 'BTC-USD'. */
  productId: string;
  spot: number;
  buy: number;
  sell: number;
  /** When the provider produced the figures. */
  at: Date;
}

export type QuoteResult = { ok: true; quote: Quote } | { ok: false; error: string };

/** Candle granularities we store: one minute and one hour. */
export type Granularity = 60 | 3600;

/** A candle with its open time in epoch milliseconds (UTC); the signals engine's input row. */
export type CandleRow = CandleInput;

export interface MarketDataProvider {
  readonly source: MarketSource;
  /** Spot, buy and sell for each product; a failed product is reported, not thrown. */
  quotes(productIds: readonly string[]): Promise<Map<string, QuoteResult>>;
  /** Closed candles in [start, end), oldest first. */
  candles(productId: string, granularity: Granularity, start: Date, end: Date): Promise<CandleRow[]>;
  /** One quick request, no retries: is the provider reachable right now? */
  probe?(): Promise<boolean>;
}

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
