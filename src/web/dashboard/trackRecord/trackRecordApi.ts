// The track record's calls from the browser (issue 20): GET /api/track-record with the view's
// filters (the live record, also read by the WATOS grid for its flags) and
// GET /api/track-record/backtest. Answers are parsed with the shared schema the server
// serialises them with. Small on purpose: the grid imports it, the view itself is lazy-loaded.
import { apiFetch } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import type { WatosTimeframe } from '../../../shared/schemas/chat.ts';
import type { MarketSource } from '../../../shared/schemas/market.ts';
import {
  trackRecordResponse,
  type BacktestTrackRecord,
  type ForecastSourceName,
  type LiveTrackRecord,
  type TrackRecordPeriod,
} from '../../../shared/schemas/trackRecord.ts';
import type { AssetClass } from '../../../shared/symbols.ts';

export interface TrackRecordFilters {
  /** watos1..watos6, or every signal. */
  signal: string | null;
  /** The symbol table's canonical id (BTC-USD), or every symbol. */
  symbol: string | null;
  assetClass: AssetClass | null;
  timeframe: WatosTimeframe | null;
  period: TrackRecordPeriod;
  /** Demo or real records; null lets the server choose the source serving the symbol now. */
  source: ForecastSourceName | null;
}

export const ALL_RECORDS: TrackRecordFilters = {
  signal: null,
  symbol: null,
  assetClass: null,
  timeframe: null,
  period: 'all',
  source: null,
};

/** The query string of a set of filters, its keys always in the same order (it is also the cache key). */
function trackRecordQueryString(filters: TrackRecordFilters): string {
  const params = new URLSearchParams();
  if (filters.signal) params.set('signal', filters.signal);
  if (filters.symbol) params.set('symbol', filters.symbol);
  if (filters.assetClass) params.set('assetClass', filters.assetClass);
  if (filters.timeframe) params.set('timeframe', filters.timeframe);
  params.set('period', filters.period);
  if (filters.source) params.set('source', filters.source);
  return params.toString();
}

/** Where a market source's records are kept: the demo feed's apart from real prices'. */
export function recordSourceOf(source: MarketSource): ForecastSourceName {
  return source === 'demo' ? 'demo' : 'real';
}

/** The live record's query (key and fetcher) for a set of filters. */
export function trackRecordQuery(filters: TrackRecordFilters) {
  const query = trackRecordQueryString(filters);
  return {
    queryKey: queryKeys.trackRecord.live(query),
    queryFn: async (): Promise<LiveTrackRecord> => {
      const record = await apiFetch(`/api/track-record?${query}`, trackRecordResponse);
      if (record.kind !== 'live') throw new Error('The track record answered with a backtest.');
      return record;
    },
  };
}

export interface BacktestRequest {
  symbol: string;
  signal: string | null;
  timeframe: WatosTimeframe;
}

/** The backtest's query (key and fetcher) for one symbol, signal (or all) and timeframe. */
export function backtestQuery(request: BacktestRequest) {
  const params = new URLSearchParams({ symbol: request.symbol });
  if (request.signal) params.set('signal', request.signal);
  params.set('timeframe', request.timeframe);
  return {
    queryKey: queryKeys.trackRecord.backtest(request.symbol, request.signal, request.timeframe),
    queryFn: async (): Promise<BacktestTrackRecord> => {
      const record = await apiFetch(`/api/track-record/backtest?${params.toString()}`, trackRecordResponse);
      if (record.kind !== 'backtest') throw new Error('The backtest answered with the live record.');
      return record;
    },
  };
}
