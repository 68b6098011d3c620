// The exchange price snapshot behind GET /external-api/coinbase-prices, in docs/SPEC.md's shape.
// One shared cache: however many browsers poll, upstream is asked at most once per 10 s
// (concurrent callers share one in-flight request). In `auto` mode a Coinbase outage switches
// to the demo feed, labelled as such, and Coinbase is tried again a minute later.
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import type { MarketSource, PriceEntry, PriceSnapshot } from '../../shared/schemas/market.ts';
import type { MarketDataMode } from './router.ts';
import type { MarketDataProvider, QuoteResult } from './types.ts';
import { tickerOf } from '../../shared/tickers.ts';

export interface QuoteServiceOptions {
  /** MARKET_DATA: 'live' and 'coinbase' both force Coinbase here (these cards are crypto only). */
  mode: MarketDataMode;
  coinbase: MarketDataProvider;
  demo: MarketDataProvider;
  cacheMs?: number;
  /** How long auto mode stays on demo data before trying Coinbase again. */
  retryCoinbaseMs?: number;
  now?: () => number;
}

export function buildSnapshot(
  source: MarketSource,
  results: Map<string, QuoteResult>,
  productIds: readonly string[],
  at: Date,
): PriceSnapshot {
  const prices: Record<string, PriceEntry> = {};
  let successful = 0;
  let totalValue = 0;
  for (const productId of productIds) {
    const symbol = tickerOf(productId);
    const result = results.get(productId) ?? { ok: false, error: 'No answer' };
    if (result.ok) {
      const { spot, buy, sell } = result.quote;
      successful += 1;
      totalValue += spot;
      prices[productId] = {
        symbol,
        spot_price: spot,
        buy_price: buy,
        sell_price: sell,
        spread_percent: ((buy - sell) / spot) * 100,
        last_updated: result.quote.at.toISOString(),
      };
    } else {
      prices[productId] = {
        symbol,
        spot_price: null,
        buy_price: null,
        sell_price: null,
        spread_percent: null,
        last_updated: null,
        error: result.error,
      };
    }
  }
  return {
    summary: {
      total_cryptos_requested: productIds.length,
      successful_fetches: successful,
      failed_fetches: productIds.length - successful,
      total_market_value_tracked: Math.round(totalValue * 100) / 100,
    },
    prices,
    metadata: {
      timestamp: at.toISOString(),
      source,
      exchange: source === 'coinbase' ? 'Coinbase' : 'Coinbase (demo data)',
    },
  };
}

export function createQuoteService(options: QuoteServiceOptions) {
  const cacheMs = options.cacheMs ?? 10_000;
  const retryCoinbaseMs = options.retryCoinbaseMs ?? 60_000;
  const now = options.now ?? Date.now;
  const forced = options.mode === 'coinbase' || options.mode === 'live';
  let cached: { at: number; snapshot: PriceSnapshot } | null = null;
  let inFlight: Promise<PriceSnapshot> | null = null;
  let coinbaseDownUntil = 0;

  async function fetchSnapshot(): Promise<PriceSnapshot> {
    let useCoinbase = forced || (options.mode === 'auto' && now() >= coinbaseDownUntil);
    // In auto mode one quick request decides, so an unreachable network costs seconds, not
    // a timeout for each of 84 requests.
    if (useCoinbase && options.mode === 'auto' && options.coinbase.probe && !(await options.coinbase.probe())) {
      coinbaseDownUntil = now() + retryCoinbaseMs;
      useCoinbase = false;
    }
    if (useCoinbase) {
      const results = await options.coinbase.quotes(CRYPTO_SYMBOLS);
      const anyOk = [...results.values()].some((result) => result.ok);
      if (anyOk || forced) return buildSnapshot('coinbase', results, CRYPTO_SYMBOLS, new Date(now()));
      coinbaseDownUntil = now() + retryCoinbaseMs;
    }
    return buildSnapshot('demo', await options.demo.quotes(CRYPTO_SYMBOLS), CRYPTO_SYMBOLS, new Date(now()));
  }

  const fresh = (): PriceSnapshot | undefined => (cached && now() - cached.at < cacheMs ? cached.snapshot : undefined);

  return {
    /** The current snapshot, from the cache when it is younger than 10 s. */
    async snapshot(): Promise<PriceSnapshot> {
      const current = fresh();
      if (current) return current;
      if (!inFlight) {
        inFlight = fetchSnapshot()
          .then((snapshot) => {
            cached = { at: now(), snapshot };
            return snapshot;
          })
          .finally(() => {
            inFlight = null;
          });
      }
      return inFlight;
    },
    /** Which source answers right now (for candles and the alert engine). */
    currentSource(): MarketSource {
      if (options.mode === 'demo') return 'demo';
      if (forced) return 'coinbase';
      return now() >= coinbaseDownUntil && cached?.snapshot.metadata.source !== 'demo' ? 'coinbase' : 'demo';
    },
  };
}

export type QuoteService = ReturnType<typeof createQuoteService>;
