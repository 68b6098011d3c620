// The setup study (issue 36): the public surface of the feature. A study reads each symbol's
// history on the timeframe (the candle store's bars, and from the market-data provider the part
// before the first stored bar, up to STUDY_HISTORY back, from the source the stored bars came
// from and no other; a real provider's bars are then kept in the store), then computes the
// study (study.ts) in the worker pool (pool.ts), off the event loop. Histories are kept in
// memory a while (typed columns, about 0.8 MB a symbol for two years of hours), so a second
// study of the same symbols reads nothing again; they are in shared memory, so a study hands
// them to its worker without a copy. Also the rule forecasts (ruleForecasts.ts): each firing of
// a trader's rule becomes a forecast with the study of its condition as the stated probability.
import type { RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { StudyRequest, StudyResponse } from '../../shared/schemas/scans.ts';
import { resolveSymbol, unknownSymbolMessage } from '../../shared/symbols.ts';
import { candleSeries, seriesPrefix, type CandleSeries } from '../../signals/candles.ts';
import { UnsupportedScanCondition } from '../../signals/scanConditions.ts';
import type { Database } from '../db/client.ts';
import { invalid, unavailable } from '../errors/domain.ts';
import {
  appendToBucket,
  demoCandleColumns,
  rowsOfColumns,
  storeCandles,
  storedCandlesBetween,
  type CandleRow,
  type Granularity,
  type MarketRouterWithPin,
  type MarketSource,
  type StoredCandle,
  UpstreamError,
} from '../market/service.ts';
import type { StudyPool } from './pool.ts';
import { runStudy, type StudyInput, type StudySymbol } from './study.ts';

export { createStudyPool, type StudyPool } from './pool.ts';
export { runStudy, type StudyInput, type StudySymbol } from './study.ts';
export { recordRuleForecasts } from './ruleForecasts.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Per timeframe: bar size, the stored base bars it is built from, and how far back a study reads. */
const STUDY_HISTORY: Record<RuleTimeframe, { ms: number; base: Granularity; historyMs: number }> = {
  '1m': { ms: MINUTE, base: 60, historyMs: 5 * DAY },
  '5m': { ms: 5 * MINUTE, base: 60, historyMs: 14 * DAY },
  '15m': { ms: 15 * MINUTE, base: 60, historyMs: 30 * DAY },
  '1h': { ms: HOUR, base: 3600, historyMs: 730 * DAY },
  '4h': { ms: 4 * HOUR, base: 3600, historyMs: 730 * DAY },
  '1D': { ms: DAY, base: 3600, historyMs: 730 * DAY },
};

/** Histories kept in memory (symbol x timeframe), the least recently used dropped first. */
const HISTORY_CACHE_SIZE = 120;

/**
 * Longer than any market's closure (a weekend with a holiday): stored bars further apart than
 * this have a stretch between them that nothing stored (the server was down longer than its
 * backfill reaches), which the provider fills.
 */
const STORED_GAP_MS = 5 * DAY;

/**
 * Reads base bars of [start, end) as columns: from `source` and no other when it is given (a
 * history joins them to bars stored from it); else from whichever source serves the product now.
 */
export type HistoryReader = (
  productId: string,
  granularity: Granularity,
  start: Date,
  end: Date,
  source?: MarketSource,
) => Promise<{ series: CandleSeries; source: MarketSource }>;

export interface StudyServiceOptions {
  db: Database;
  /** The provider's bars before the first stored one. */
  readHistory: HistoryReader;
  /** Where studies run; without it they run inline (tests). */
  pool?: StudyPool;
  now?: () => number;
  /** How long a loaded history is reused (ms; default: a bar of its base granularity, at most 10 minutes). */
  reuseMs?: number;
  /** Where a failure to keep a provider's bars in the store is reported (the study goes on). */
  log?: { warn(details: object, message: string): void };
}

interface CachedHistory {
  at: number;
  symbol: Promise<StudySymbol>;
}

/** Rows of base bars into the timeframe's buckets; the newest bucket is dropped while incomplete. */
function toTimeframe(rows: readonly CandleRow[], baseMs: number, ms: number): CandleRow[] {
  if (ms === baseMs) return [...rows];
  const result: CandleRow[] = [];
  for (const bar of rows) appendToBucket(result, bar, ms);
  const lastBase = rows.at(-1);
  const lastBucket = result.at(-1);
  if (lastBase && lastBucket && lastBase.time + baseMs < lastBucket.time + ms) result.pop();
  return result;
}

/**
 * The stored bars a history can join, newest last: those after the last bar of another source
 * and after the last gap wider than any closure.
 */
function joinableStored(stored: readonly StoredCandle[]): readonly StoredCandle[] {
  const source = stored.at(-1)?.source;
  let first = stored.length - 1;
  while (
    first > 0 &&
    stored[first - 1]!.source === source &&
    stored[first]!.time - stored[first - 1]!.time <= STORED_GAP_MS
  )
    first -= 1;
  return stored.slice(Math.max(first, 0));
}

/** The bars of `series` that open before `time` (a view, no copy). */
function seriesBefore(series: CandleSeries, time: number): CandleSeries {
  let length = 0;
  while (length < series.length && series.time[length]! < time) length += 1;
  return seriesPrefix(series, length);
}

const COLUMNS = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;

/**
 * The parts one after another, the columns in one SharedArrayBuffer. A study hands its symbols'
 * series to a worker: shared memory goes by reference, where copying 50 symbols x 2 years of
 * hours (33 MB) held the event loop 130-300 ms. A loaded series is never written again.
 */
function sharedSeries(parts: readonly CandleSeries[]): CandleSeries {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const buffer = new SharedArrayBuffer(length * COLUMNS.length * Float64Array.BYTES_PER_ELEMENT);
  const [time, open, high, low, close, volume] = COLUMNS.map((name, index) => {
    const column = new Float64Array(buffer, index * length * Float64Array.BYTES_PER_ELEMENT, length);
    let at = 0;
    for (const part of parts) {
      column.set(part[name].subarray(0, part.length), at);
      at += part.length;
    }
    return column;
  }) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  return { length, time, open, high, low, close, volume };
}

export function createStudyService(options: StudyServiceOptions) {
  const now = options.now ?? Date.now;
  const histories = new Map<string, CachedHistory>();
  /**
   * Per product, base bar and source: asked from `from`, the source had no bar before `first`
   * (a listing date, the demo epoch), so later studies do not ask for that stretch again.
   */
  const emptyBefore = new Map<string, { from: number; first: number }>();

  async function load(productId: string, timeframe: RuleTimeframe): Promise<StudySymbol> {
    const market = resolveSymbol(productId);
    if (!market) throw invalid(`symbols: ${unknownSymbolMessage(productId)}`);
    const { ms, base, historyMs } = STUDY_HISTORY[timeframe];
    const end = now();
    const start = end - historyMs;
    const stored = joinableStored(
      await storedCandlesBetween(options.db, market.id, base, new Date(start), new Date(end)),
    );
    const firstStored = stored[0]?.time ?? end;
    const older: CandleSeries[] = [];
    let source: MarketSource | null = stored[0]?.source ?? null;
    // The store holds the engine's backfill (30 days of hours) and what earlier studies read; the
    // rest comes from the provider, from the stored bars' source: a study never joins demo bars
    // to real ones (the router would fall back to the demo feed in an outage).
    const known = emptyBefore.get(`${market.id}|${base}|${source}`);
    const from = known && known.from <= start ? Math.max(start, known.first) : start;
    if (firstStored - from > base * 1000) {
      const read = await options
        .readHistory(market.id, base, new Date(from), new Date(firstStored), source ?? undefined)
        .catch((error: unknown) => {
          if (!(error instanceof UpstreamError)) throw error;
          throw unavailable(
            `${market.ticker}: its history before the stored bars could not be read from ${source ?? 'the provider'} (${error.message}); try again in a minute.`,
            60,
          );
        });
      const bars = seriesBefore(read.series, firstStored);
      older.push(bars);
      if (bars.length > 0) source = read.source;
      emptyBefore.set(`${market.id}|${base}|${read.source}`, {
        from,
        first: bars.length > 0 ? bars.time[0]! : firstStored,
      });
      // A provider's closed bars never change: stored, the next study reads them from the store
      // instead of asking again (two years of a crypto's hours are 59 Coinbase requests). The demo
      // path is drawn, not fetched, faster than the store gives it back: not stored.
      if (read.source !== 'demo' && bars.length > 0) {
        try {
          await storeCandles(options.db, market.id, base, read.source, rowsOfColumns(bars));
        } catch (error) {
          options.log?.warn({ err: error, productId: market.id }, 'setup study: could not store the provider bars');
        }
      }
    }
    // On the base timeframe the columns are joined as they are (no bar object each: two years
    // of a crypto's hours are 17,520); a coarser timeframe folds the bars into its buckets.
    const series =
      ms === base * 1000
        ? sharedSeries([...older, candleSeries(stored)])
        : sharedSeries([candleSeries(toTimeframe([...older.flatMap(rowsOfColumns), ...stored], base * 1000, ms))]);
    return {
      id: market.id,
      ticker: market.ticker,
      assetClass: market.assetClass,
      calendar: market.calendar,
      series,
      source: series.length > 0 ? source : null,
    };
  }

  /** A symbol's history on the timeframe, reused for `reuseMs`. */
  function history(productId: string, timeframe: RuleTimeframe): Promise<StudySymbol> {
    const key = `${productId}|${timeframe}`;
    const reuse = options.reuseMs ?? Math.min(STUDY_HISTORY[timeframe].base * 1000, 10 * MINUTE);
    const hit = histories.get(key);
    if (hit && now() - hit.at < reuse) {
      histories.delete(key);
      histories.set(key, hit);
      return hit.symbol;
    }
    const symbol = load(productId, timeframe);
    histories.set(key, { at: now(), symbol });
    while (histories.size > HISTORY_CACHE_SIZE) histories.delete(histories.keys().next().value!);
    // A failure is not remembered: the next study tries again.
    symbol.catch(() => {
      if (histories.get(key)?.symbol === symbol) histories.delete(key);
    });
    return symbol;
  }

  /** The canonical ids of the request's symbols, each once; 400 naming the first unknown one. */
  function canonicalSymbols(symbols: readonly string[]): string[] {
    const ids: string[] = [];
    for (const symbol of symbols) {
      const market = resolveSymbol(symbol);
      if (!market) throw invalid(`symbols: ${unknownSymbolMessage(symbol)}`);
      if (!ids.includes(market.id)) ids.push(market.id);
    }
    return ids;
  }

  /** The study's input: every symbol's history loaded (at most 8 at once). */
  async function prepare(request: StudyRequest): Promise<StudyInput> {
    const bad = request.conditions.findIndex((condition) => condition.kind === 'watos_edge');
    if (bad >= 0)
      throw invalid(
        `conditions.${bad}: watos_edge cannot be studied over history (it needs the WATOS odds restated at every bar); remove it or use the scanner`,
      );
    const ids = canonicalSymbols(request.symbols);
    const symbols: StudySymbol[] = new Array<StudySymbol>(ids.length);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const index = next;
        next += 1;
        symbols[index] = await history(ids[index]!, request.timeframe);
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, ids.length) }, worker));
    return {
      symbols,
      timeframe: request.timeframe,
      barMs: STUDY_HISTORY[request.timeframe].ms,
      conditions: request.conditions,
      horizon: request.horizon,
      feePercent: request.feePercent,
    };
  }

  /**
   * Runs a study. `admit` (the route's per-user bound, forecasts' backtest admission) is asked
   * first, so it bounds the history reads too; `signal` drops the study from the pool.
   */
  async function study(
    request: StudyRequest,
    asked: { admit?: () => Promise<() => void>; signal?: AbortSignal } = {},
  ): Promise<StudyResponse> {
    const release = asked.admit ? await asked.admit() : undefined;
    try {
      const input = await prepare(request);
      if (!options.pool) return runStudy(input);
      return await options.pool.run(input, asked.signal);
    } catch (error) {
      if (error instanceof UnsupportedScanCondition) throw invalid(error.message);
      throw error;
    } finally {
      release?.();
    }
  }

  return { study, prepare, history };
}

export type StudyService = ReturnType<typeof createStudyService>;

/**
 * The provider's history for studies: the market router's bars, except for a symbol the demo
 * feed serves, whose two years are drawn for the read (demoCandleColumns: the bars a demo feed
 * at `now` answers; the app's own demo feed keeps 60 days of hours, and the demo path is the
 * same function of time whoever draws it, so the bars match the stored ones).
 */
export function studyHistoryReader(
  market: Pick<MarketRouterWithPin, 'candlesFrom' | 'sourceOf'>,
  now: () => number = Date.now,
  /** Draws a symbol's demo history off the event loop (the studies' pool); inline without it (tests). */
  drawDemo?: StudyPool['demoHistory'],
): HistoryReader {
  return async (productId, granularity, start, end, from) => {
    const source = from ?? market.sourceOf(productId);
    if (source === 'demo') {
      // Drawing two years of the demo path is CPU work (a hundred ms or more a symbol).
      const task = { productId, granularity, start: start.getTime(), end: end.getTime(), now: now() };
      if (drawDemo) return { series: await drawDemo(task), source };
      await new Promise<void>((resolve) => setImmediate(resolve));
      return { series: demoCandleColumns(task.productId, granularity, task.start, task.end, task.now), source };
    }
    return { series: candleSeries(await market.candlesFrom(source, productId, granularity, start, end)), source };
  };
}
