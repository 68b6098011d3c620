// The setup study (issue 36): the public surface of the feature. A study reads each symbol's
// history on the timeframe (the candle store's bars, and from the market-data provider the part
// before the first stored bar, up to STUDY_HISTORY back, from the source the stored bars came
// from and no other; a real provider's bars are then kept in the store), then computes the
// study (study.ts) in the worker pool (pool.ts), off the event loop. Histories are kept in
// memory (typed columns, about 0.8 MB a symbol for two years of hours): a second study of the
// same symbols reads nothing again, and once the held bars are older than a bar (10 minutes at
// most) a study reads only the bars since; they are in shared memory, so a study hands them to
// its worker without a copy. Also the rule forecasts (ruleForecasts.ts): each firing of
// a trader's rule becomes a forecast with the study of its condition as the stated probability.
import { setImmediate as nextTurn } from 'node:timers/promises';
import pLimit from 'p-limit';
import type { RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { StudyRequest, StudyResponse } from '../../shared/schemas/scans.ts';
import { resolveSymbol, unknownSymbolMessage } from '../../shared/symbols.ts';
import type { MarketSymbol } from '../../shared/symbolTable.ts';
import {
  candleSeries,
  cleanSeries,
  joinSeries,
  seriesFrom,
  seriesPrefix,
  type CandleSeries,
} from '../../signals/candles.ts';
import { UnsupportedScanCondition } from '../../signals/scanConditions.ts';
import type { Database } from '../db/client.ts';
import { invalid, unavailable } from '../errors/domain.ts';
import {
  appendToBucket,
  demoCandleColumns,
  rowsOfColumns,
  storeCandles,
  storedCandleColumns,
  type CandleRow,
  type Granularity,
  type MarketRouterWithPin,
  type MarketSource,
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

/**
 * How a history is read from the store: 120 days a statement, two statements at once for all the
 * study's symbols. PGlite answers one statement at a time, so every other request's query (a
 * dashboard's poll, /healthz) waits behind those in flight: two years of 50 symbols read 8
 * symbols at a time, whole, made /healthz wait up to 350 ms; this way 26-46 ms in most runs
 * on a 2-core box (two in flight keep the database and this thread both busy: one alone took
 * 1.9-2.2 s for the 50 symbols against 1.4-1.7 s).
 */
const STORE_READS_AT_ONCE = 2;
const STORE_READ_SPAN_MS = 120 * DAY;

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
  /** The base bars the symbol's series was built from: a later study extends them. */
  base: Promise<BaseHistory>;
}

/** A symbol's bars of its base granularity over the study window, oldest first, and their source. */
interface BaseHistory {
  series: CandleSeries;
  source: MarketSource | null;
  /** Some of the bars came from the store (so the store, not the provider, has the newer ones). */
  stored: boolean;
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
 * and after the last gap wider than any closure (a view, no copy), and their source.
 */
function joinableStored(
  stored: CandleSeries,
  sources: readonly MarketSource[],
): { series: CandleSeries; source: MarketSource | null } {
  const source = sources.at(-1) ?? null;
  let first = stored.length - 1;
  while (first > 0 && sources[first - 1] === source && stored.time[first]! - stored.time[first - 1]! <= STORED_GAP_MS)
    first -= 1;
  return { series: seriesFrom(stored, Math.max(first, 0)), source };
}

/** The index of the first bar of `series` that opens at or after `time`. */
function firstAtOrAfter(series: CandleSeries, time: number): number {
  let index = 0;
  while (index < series.length && series.time[index]! < time) index += 1;
  return index;
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
  const storeReads = pLimit(STORE_READS_AT_ONCE);

  /** Stored bars of [start, end) and their sources, read STORE_READ_SPAN_MS at a time. */
  async function readStored(productId: string, base: Granularity, start: number, end: number) {
    const parts: CandleSeries[] = [];
    const sources: MarketSource[] = [];
    for (let from = start; from < end; from += STORE_READ_SPAN_MS) {
      const part = await storeReads(() =>
        storedCandleColumns(
          options.db,
          productId,
          base,
          new Date(from),
          new Date(Math.min(end, from + STORE_READ_SPAN_MS)),
        ),
      );
      parts.push(part.series);
      sources.push(...part.sources);
    }
    return { series: joinSeries(parts), sources };
  }

  /** Reads from the provider, from `source` when given; a failure answers 503 naming the symbol. */
  function provided(market: MarketSymbol, base: Granularity, from: number, to: number, source: MarketSource | null) {
    return options
      .readHistory(market.id, base, new Date(from), new Date(to), source ?? undefined)
      .catch((error: unknown) => {
        if (!(error instanceof UpstreamError)) throw error;
        throw unavailable(
          `${market.ticker}: its history before the stored bars could not be read from ${source ?? 'the provider'} (${error.message}); try again in a minute.`,
          60,
        );
      });
  }

  /** A provider's closed bars never change: kept in the store, later studies read them there. */
  async function keep(market: MarketSymbol, base: Granularity, source: MarketSource, bars: CandleSeries) {
    // Two years of a crypto's hours are 59 Coinbase requests. The demo path needs no network, and
    // storing two years of a symbol's hours keeps the database busy about 0.5 s: not stored.
    if (source === 'demo' || bars.length === 0) return;
    try {
      await storeCandles(options.db, market.id, base, source, rowsOfColumns(bars));
    } catch (error) {
      options.log?.warn({ err: error, productId: market.id }, 'setup study: could not store the provider bars');
    }
  }

  /** The base bars of [start, end): the stored ones, and before them the provider's. */
  async function loadBase(market: MarketSymbol, base: Granularity, start: number, end: number): Promise<BaseHistory> {
    const read = await readStored(market.id, base, start, end);
    // The joins and copies below take a few ms a symbol: each symbol's in a turn of the event
    // loop of its own, not those of every symbol the store answered at once in one turn.
    await nextTurn();
    const joinable = joinableStored(read.series, read.sources);
    const stored = cleanSeries(joinable.series);
    const firstStored = joinable.series.length > 0 ? joinable.series.time[0]! : end;
    let source = joinable.source;
    // The store holds the engine's backfill (30 days of hours) and what earlier studies read; the
    // rest comes from the provider, from the stored bars' source: a study never joins demo bars
    // to real ones (the router would fall back to the demo feed in an outage).
    const known = emptyBefore.get(`${market.id}|${base}|${source}`);
    const from = known && known.from <= start ? Math.max(start, known.first) : start;
    if (firstStored - from <= base * 1000) return { series: stored, source, stored: stored.length > 0 };
    const answer = await provided(market, base, from, firstStored, source);
    const older = seriesBefore(answer.series, firstStored);
    if (older.length > 0) source = answer.source;
    emptyBefore.set(`${market.id}|${base}|${answer.source}`, {
      from,
      first: older.length > 0 ? older.time[0]! : firstStored,
    });
    await keep(market, base, answer.source, older);
    return { series: joinSeries([older, stored]), source, stored: stored.length > 0 };
  }

  /**
   * `cached` moved on to [start, end): the bars before `start` dropped, and appended those stored
   * since its newest one (or, for a history the store had nothing of, the provider's since):
   * what a load would give, for a few rows read. Null when a load must decide (no bar held, bars
   * of another source stored since, a gap wider than any closure).
   */
  async function extendBase(
    market: MarketSymbol,
    base: Granularity,
    cached: BaseHistory,
    start: number,
    end: number,
  ): Promise<BaseHistory | null> {
    const { series, source } = cached;
    if (series.length === 0 || source === null) return null;
    const last = series.time[series.length - 1]!;
    const read = await readStored(market.id, base, last + 1, end);
    if (read.sources.some((stored) => stored !== source)) return null;
    if (read.series.length > 0 && read.series.time[0]! - last > STORED_GAP_MS) return null;
    const parts = [seriesFrom(series, firstAtOrAfter(series, start))];
    // A bar opening at last + base has closed once `end` is a bar further on.
    if (read.series.length === 0 && !cached.stored && end - last >= 2 * base * 1000) {
      const answer = await provided(market, base, last + base * 1000, end, source);
      await keep(market, base, source, answer.series);
      parts.push(answer.series);
    }
    const held = parts.at(-1)!;
    parts.push(cleanSeries(read.series, held.length > 0 ? held.close[held.length - 1]! : NaN));
    return { series: joinSeries(parts), source, stored: cached.stored || read.series.length > 0 };
  }

  /** The study's symbol on the timeframe from its base bars (folded into buckets when coarser). */
  function studySymbol(market: MarketSymbol, timeframe: RuleTimeframe, history: BaseHistory): StudySymbol {
    const { ms, base } = STUDY_HISTORY[timeframe];
    // On the base timeframe the columns are joined as they are (no bar object each: two years
    // of a crypto's hours are 17,520); a coarser timeframe folds the bars into its buckets.
    const series =
      ms === base * 1000
        ? sharedSeries([history.series])
        : sharedSeries([candleSeries(toTimeframe(rowsOfColumns(history.series), base * 1000, ms))]);
    return {
      id: market.id,
      ticker: market.ticker,
      assetClass: market.assetClass,
      calendar: market.calendar,
      series,
      source: series.length > 0 ? history.source : null,
    };
  }

  /**
   * A symbol's history on the timeframe, reused for `reuseMs`; after that, the held bars are
   * extended with those since (a load only when there are none, or extending cannot say).
   */
  function history(productId: string, timeframe: RuleTimeframe): Promise<StudySymbol> {
    const market = resolveSymbol(productId);
    if (!market) return Promise.reject(invalid(`symbols: ${unknownSymbolMessage(productId)}`));
    const key = `${market.id}|${timeframe}`;
    const { base, historyMs } = STUDY_HISTORY[timeframe];
    const reuse = options.reuseMs ?? Math.min(base * 1000, 10 * MINUTE);
    const hit = histories.get(key);
    if (hit && now() - hit.at < reuse) {
      histories.delete(key);
      histories.set(key, hit);
      return hit.symbol;
    }
    const end = now();
    const start = end - historyMs;
    const loaded = hit
      ? hit.base
          .then((held) => extendBase(market, base, held, start, end))
          // Whatever went wrong (the held load failed, the provider is away), a load decides.
          .catch(() => null)
          .then((extended) => extended ?? loadBase(market, base, start, end))
      : loadBase(market, base, start, end);
    const built = loaded.then(async (bars) => {
      await nextTurn();
      const symbol = studySymbol(market, timeframe, bars);
      // On the base timeframe the symbol's shared series are the base bars: held once, not twice.
      const held = STUDY_HISTORY[timeframe].ms === base * 1000 ? { ...bars, series: symbol.series } : bars;
      return { symbol, held };
    });
    const symbol = built.then(({ symbol }) => symbol);
    const held = built.then(({ held }) => held);
    // Its failure is the symbol's, answered there; the next study loads again.
    held.catch(() => undefined);
    histories.set(key, { at: end, symbol, base: held });
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
