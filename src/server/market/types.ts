// The market-data provider interface (DESIGN.md section 1): Coinbase's public APIs for crypto,
// Yahoo Finance for stocks, ETFs, indices and futures, each with the seeded demo feed when it
// cannot be reached. Products are the symbol table's canonical ids (BTC-USD, AAPL, SPX, MES1!).
// Every answer says which source produced it so the UI can label demo and delayed data; nothing
// simulated is ever passed off as real.
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
  /** True when the figures are delayed (Yahoo Finance: as the exchange delays them). */
  delayed?: boolean;
  /** Minutes the exchange delays it by, when the provider says (Yahoo's exchangeDataDelayedBy). */
  delayMinutes?: number;
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

/**
 * The providers of every asset class behind one face (market/router.ts): crypto from Coinbase,
 * everything else from Yahoo Finance, each falling back to the demo feed on its own in auto mode.
 */
export interface MarketRouter extends MarketDataProvider {
  /** Which source answers for this product now (after a call: the one that produced its answer). */
  sourceOf(productId: string): MarketSource;
}

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
