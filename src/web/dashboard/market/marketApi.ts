// Browser side of the market-data calls: the exchange price snapshot and one asset's candles,
// parsed with the shared schemas the server serialises them with.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { EXCHANGE_REFRESH_INTERVAL_MS } from '../../../shared/constants.ts';
import type { ChartOverlay, ChartTimeframe } from '../../../shared/schemas/chartOptions.ts';
import { ApiError, apiFetch, schemaOnDemand, UNEXPECTED_RESPONSE } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { useLiveAlerts } from '../../live/index.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { tickerOf } from '../../../shared/tickers.ts';

// The answers' schemas, imported with the first answer (the fallback chart is on the first paint).
const marketSchemas = () => import('../../../shared/schemas/market.ts');
const candleResponse = schemaOnDemand(async () => (await marketSchemas()).candleResponse);
const priceSnapshot = schemaOnDemand(async () => (await marketSchemas()).priceSnapshot);

/**
 * docs/SPEC.md: a failed exchange fetch shows 'HTTP error! status: {status}'. Always asked of the
 * server (`no-cache`: a copy the browser holds is revalidated by its ETag, 304 when unchanged):
 * the answer's `max-age=5` would otherwise hand Refresh Data, Retry Connection and a return to
 * the view the copy of a moment ago, and the 30 s poll is past it anyway.
 */
async function fetchPrices() {
  try {
    return await apiFetch('/external-api/coinbase-prices', priceSnapshot, { cache: 'no-cache' });
  } catch (error) {
    if (error instanceof ApiError && error.message !== UNEXPECTED_RESPONSE)
      throw new Error(`HTTP error! status: ${error.status}`, { cause: error });
    throw error;
  }
}

/** The price snapshot, fetched while the exchange view is the active source and every 30 s. */
export function usePrices(active: boolean) {
  return useQuery({
    queryKey: queryKeys.market.prices,
    queryFn: fetchPrices,
    enabled: active,
    refetchInterval: active ? EXCHANGE_REFRESH_INTERVAL_MS : false,
    retry: false,
  });
}

/**
 * How often the own chart re-reads its newest bars: once a minute (it was every 30 s), since
 * the live connection's ticks move the forming candle in between (useCandleChart.ts); the
 * re-read brings the stored bars, the indicators and the alert markers.
 */
const CANDLE_REFRESH_INTERVAL_MS = 60_000;

/**
 * The newest 300 bars of one asset and timeframe with the overlays and RSI asked for and the
 * alerts that fired on them, re-read every minute. While another timeframe or overlay set loads,
 * the previous answer stays (no blank chart).
 */
export function useCandles(
  productId: string,
  timeframe: ChartTimeframe,
  overlays: readonly ChartOverlay[],
  rsiPeriod: number | null,
) {
  const overlayList = overlays.join(',');
  return useQuery({
    queryKey: queryKeys.market.candles(productId, timeframe, overlayList, rsiPeriod),
    queryFn: () => {
      const query = new URLSearchParams({ symbol: productId, timeframe, limit: '300' });
      if (overlayList) query.set('overlays', overlayList);
      if (rsiPeriod !== null) query.set('rsi', String(rsiPeriod));
      return apiFetch(`/api/market/candles?${query.toString()}`, candleResponse);
    },
    placeholderData: keepPreviousData,
    refetchInterval: CANDLE_REFRESH_INTERVAL_MS,
  });
}

/**
 * Re-reads the chart's bars as soon as a market alert on its symbol arrives on the tab's live
 * connection, so its marker shows without waiting for the minute's refresh.
 */
export function useRefetchOnAlert(productId: string, refetch: () => unknown) {
  // Alerts are stored under the plain ticker (BTC for BTC-USD).
  const ticker = resolveSymbol(productId)?.ticker ?? tickerOf(productId);
  useLiveAlerts((alert) => {
    if (alert.ticker === ticker) void refetch();
  });
}

/**
 * Whether figures from this source are delayed: Yahoo Finance (stocks, ETFs, indices, futures)
 * is not real time, Coinbase is, and the demo feed is labelled "Demo data" instead.
 */
export function isDelayedSource(source: string | null | undefined): boolean {
  return source === 'yahoo';
}

/** The tooltip of the "Delayed" label. */
export const DELAYED_TITLE = 'Delayed data from Yahoo Finance: not real time.';
