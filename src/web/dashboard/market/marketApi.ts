// Browser side of the market-data calls: the exchange price snapshot and one asset's candles,
// parsed with the shared schemas the server serialises them with.
import { useQuery } from '@tanstack/react-query';
import { EXCHANGE_REFRESH_INTERVAL_MS } from '../../../shared/constants.ts';
import { candleResponse, priceSnapshot, type CandleGranularity } from '../../../shared/schemas/market.ts';
import { ApiError, apiFetch, UNEXPECTED_RESPONSE } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/** docs/SPEC.md: a failed exchange fetch shows 'HTTP error! status: {status}'. */
async function fetchPrices() {
  try {
    return await apiFetch('/external-api/coinbase-prices', priceSnapshot);
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

/** The newest 300 bars of one asset with the alerts that fired on them. */
export function useCandles(productId: string, granularity: CandleGranularity) {
  return useQuery({
    queryKey: queryKeys.market.candles(productId, granularity),
    queryFn: () =>
      apiFetch(
        `/api/market/candles?${new URLSearchParams({ symbol: productId, granularity: String(granularity), limit: '300' }).toString()}`,
        candleResponse,
      ),
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
