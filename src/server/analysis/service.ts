// Market analysis: the public surface of the feature. What the market data says about a
// symbol, measured the same way for everyone who asks: the current quote, the candle series of
// a timeframe built from the provider's candles, its summary (candleSummary.ts) and the WATOS
// card (the six signals at the last closed bar with their measured odds). Loads are cached, so
// the grid, the assistant, the alert rules and the track record's backtests share one set of
// candles and one card a bar. It depends on market data alone: recording a card in the track
// record is the caller's step (forecasts/service.ts depends on this feature, not the reverse).
// Expected failures ("No market data for LSE:VOD") are MarketAnalysisErrors with the text to show.
import { TIMEFRAMES } from '../../shared/constants.ts';
import type { WatosCard } from '../../shared/schemas/chat.ts';
import { resolveSymbol, unknownSymbolMessage, type AssetClass, type MarketSymbol } from '../../shared/symbols.ts';
import { symbolById } from '../../shared/tickers.ts';
import { candleSeries, type CandleSeries } from '../../signals/candles.ts';
import { watosOdds } from '../../signals/watosOdds.ts';
import { DomainError } from '../errors/domain.ts';
import type { CandleRow, Granularity, MarketRouter, MarketSource, Quote } from '../market/service.ts';
import {
  aggregateCandles,
  ANALYSIS_TIMEFRAMES,
  DAY,
  summariseCandles,
  type AnalysisTimeframe,
  type CandleSummary,
} from './candleSummary.ts';

export { ANALYSIS_TIMEFRAMES, type AnalysisTimeframe, type CandleSummary } from './candleSummary.ts';

/** An expected failure of the analysis, with the text a trader reads (422 over HTTP). */
export class MarketAnalysisError extends DomainError {
  constructor(message: string) {
    super('unprocessable', message);
    this.name = 'MarketAnalysisError';
  }
}

/** What the assistant says about a symbol it has no data for (the symbol table's message). */
export function noMarketData(symbol: string): string {
  return `${unknownSymbolMessage(symbol)} I will not guess a price.`;
}

export function asAnalysisTimeframe(timeframe: string | null | undefined): AnalysisTimeframe {
  const value = timeframe ?? '1h';
  if (value in ANALYSIS_TIMEFRAMES) return value as AnalysisTimeframe;
  if ((TIMEFRAMES as readonly string[]).includes(value)) {
    throw new MarketAnalysisError(
      `The ${value} timeframe needs more history than the 60 days of hourly candles available here; ask for D (daily) or a shorter timeframe.`,
    );
  }
  throw new MarketAnalysisError(
    `Unknown timeframe '${value}'. Use one of ${Object.keys(ANALYSIS_TIMEFRAMES).join(', ')}.`,
  );
}

function symbolOrError(symbol: string): MarketSymbol {
  const market = resolveSymbol(symbol);
  if (!market) throw new MarketAnalysisError(noMarketData(symbol));
  return market;
}

/** Yahoo Finance figures are delayed where the exchange delays them: labelled so, never passed off as live. */
const isDelayedSource = (source: MarketSource) => source === 'yahoo';

/**
 * History loaded per base granularity: 60 days of hourly bars; one-minute bars for 2 days of a
 * 24/7 market, 5 days of a market with sessions (a Monday morning still sees Friday's session).
 */
function historyMs(granularity: Granularity, symbol: MarketSymbol): number {
  if (granularity === 3600) return 60 * DAY;
  return symbol.calendar === 'crypto-24x7' ? 2 * DAY : 5 * DAY;
}

export interface QuoteFact {
  productId: string;
  assetClass: AssetClass;
  spot: number;
  buy: number;
  sell: number;
  spreadPercent: number;
  at: string;
  source: MarketSource;
  /** True when the provider says the figures are delayed (Yahoo Finance, as the exchange delays). */
  delayed: boolean;
}

/** A WATOS card with its signals measured (the analysis never answers an unavailable one: it throws). */
export type AvailableWatosCard = Extract<WatosCard, { available: true }>;

/** The grid's bars of a symbol on a timeframe, which its odds are measured on (the track record's backtest walks them). */
export interface GridHistory {
  productId: string;
  source: MarketSource;
  series: CandleSeries;
  horizonBars: number;
}

export interface MarketAnalysisOptions {
  /** Every market behind one face (market/router.ts): it picks the provider and falls back to demo. */
  market: MarketRouter;
  now?: () => number;
  /** How long candles and quotes are reused, in ms. */
  cacheMs?: { candles: number; quotes: number };
}

interface Loaded<T> {
  at: number;
  value: Promise<T>;
}

export function createMarketAnalysis(options: MarketAnalysisOptions) {
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? { candles: 60_000, quotes: 10_000 };
  const candleCache = new Map<string, Loaded<{ rows: CandleRow[]; source: MarketSource }>>();
  const quoteCache = new Map<string, Loaded<QuoteFact>>();
  const watosCache = new Map<string, { key: string; card: AvailableWatosCard }>();

  function cached<T>(cache: Map<string, Loaded<T>>, key: string, ttl: number, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit && now() - hit.at < ttl) return hit.value;
    const value = load();
    cache.set(key, { at: now(), value });
    // A failure is not remembered: the next question tries again.
    value.catch(() => {
      if (cache.get(key)?.value === value) cache.delete(key);
    });
    return value;
  }

  async function baseCandles(symbol: MarketSymbol, granularity: Granularity) {
    const productId = symbol.id;
    return cached(
      candleCache,
      `${productId}:${granularity}`,
      granularity === 60 ? Math.min(cacheMs.candles, 30_000) : cacheMs.candles,
      async () => {
        const end = new Date(now());
        const start = new Date(end.getTime() - historyMs(granularity, symbol));
        let rows: CandleRow[];
        try {
          // The router asks the symbol's provider and, in auto mode, falls back to the demo feed.
          rows = await options.market.candles(productId, granularity, start, end);
        } catch (error) {
          throw new MarketAnalysisError(`Could not load candles for ${productId}: ${(error as Error).message}.`);
        }
        if (rows.length === 0)
          throw new MarketAnalysisError(
            `Could not load candles for ${productId} (the market-data provider returned none).`,
          );
        return { rows, source: options.market.sourceOf(productId) };
      },
    );
  }

  async function series(symbol: string, timeframe: AnalysisTimeframe) {
    const market = symbolOrError(symbol);
    const productId = market.id;
    const { ms, base } = ANALYSIS_TIMEFRAMES[timeframe];
    const { rows, source } = await baseCandles(market, base);
    const bars = candleSeries(aggregateCandles(rows, base * 1000, ms));
    if (bars.length < 2)
      throw new MarketAnalysisError(
        `Not enough ${timeframe} history for ${productId} yet (${bars.length} bar${bars.length === 1 ? '' : 's'}).`,
      );
    return { productId, ticker: market.ticker, source, series: bars };
  }

  return {
    async quote(symbol: string): Promise<QuoteFact> {
      const market = symbolOrError(symbol);
      const productId = market.id;
      return cached(quoteCache, productId, cacheMs.quotes, async () => {
        const result = (await options.market.quotes([productId])).get(productId);
        if (result?.ok) return toQuoteFact(result.quote, market, options.market.sourceOf(productId));
        throw new MarketAnalysisError(`Could not get a price for ${productId}: ${result?.error ?? 'no answer'}.`);
      });
    },

    async candleSummary(symbol: string, timeframe?: string | null): Promise<CandleSummary> {
      const frame = asAnalysisTimeframe(timeframe);
      const loaded = await series(symbol, frame);
      return summariseCandles(loaded.series, loaded.productId, frame, loaded.source);
    },

    /** The six WATOS signals at the last closed bar with their measured odds (cached per bar). */
    async watos(symbol: string, timeframe?: string | null): Promise<AvailableWatosCard> {
      const frame = asAnalysisTimeframe(timeframe);
      const loaded = await series(symbol, frame);
      const { series: bars, productId, ticker, source } = loaded;
      const key = `${source}:${bars.length}:${bars.time[bars.length - 1]}`;
      const hit = watosCache.get(`${productId}:${frame}`);
      if (hit?.key === key) return hit.card;
      const { horizon } = ANALYSIS_TIMEFRAMES[frame];
      const report = watosOdds(bars, horizon);
      const card: AvailableWatosCard = {
        available: true,
        symbol: ticker,
        productId,
        assetClass: symbolById(productId)?.assetClass ?? 'crypto',
        source,
        delayed: isDelayedSource(source),
        timeframe: frame,
        horizonBars: horizon,
        bars: bars.length,
        lastBarTime: new Date(bars.time[bars.length - 1]!).toISOString(),
        lastClose: bars.close[bars.length - 1]!,
        baseRate: report.baseRate,
        signals: report.signals.map((signal) => ({
          id: signal.id,
          name: signal.name,
          active: signal.active,
          direction: signal.direction,
          strength: signal.strength,
          description: signal.description,
          odds: signal.odds,
        })),
      };
      watosCache.set(`${productId}:${frame}`, { key, card });
      return card;
    },

    /** The bars the grid measures its odds on (the track record's backtest walks them). */
    async history(symbol: string, timeframe: AnalysisTimeframe): Promise<GridHistory> {
      const loaded = await series(symbol, timeframe);
      return {
        productId: loaded.productId,
        source: loaded.source,
        series: loaded.series,
        horizonBars: ANALYSIS_TIMEFRAMES[timeframe].horizon,
      };
    },
  };
}

export type MarketAnalysis = ReturnType<typeof createMarketAnalysis>;

function toQuoteFact(quote: Quote, symbol: MarketSymbol, source: MarketSource): QuoteFact {
  return {
    productId: quote.productId,
    assetClass: symbol.assetClass,
    spot: quote.spot,
    buy: quote.buy,
    sell: quote.sell,
    spreadPercent: ((quote.buy - quote.sell) / quote.spot) * 100,
    at: quote.at.toISOString(),
    source,
    delayed: quote.delayed ?? false,
  };
}
