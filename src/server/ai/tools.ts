// The assistant's tools over our own data, shared by the built-in analyst and the LLM: the
// current quote, a candle summary (trend, momentum, volatility, levels), the WATOS signals
// with their measured odds, recent alerts with filters, the trader's watchlists, and the
// trader's stored files, for every market of the symbol table (crypto, stocks, ETFs, indices,
// futures). Every figure comes from the market router, the signals engine or the database,
// with its source ('coinbase', 'yahoo' or 'demo') so demo and delayed data are always labelled.
// Expected failures ("No market data for LSE:VOD") are ToolErrors with the text to show.
import { ALERT_LOG_MAX_CAP, ALERT_TYPES, TIMEFRAMES } from '../../shared/constants.ts';
import {
  alertDisplayType,
  formatAlertTimestamp,
  type AlertDisplayType,
  type AlertRecord,
} from '../../shared/alertDisplay.ts';
import type { WatosCard, WatosTimeframe } from '../../shared/schemas/chat.ts';
import { candleSeries, type CandleSeries } from '../../signals/candles.ts';
import { atr, rsi, sma, supportResistance, swingPoints, volumeZScore } from '../../signals/indicators.ts';
import { watosOdds } from '../../signals/watosOdds.ts';
import { alertsInWindow, queryAlerts } from '../alerts/service.ts';
import type { Database } from '../db/client.ts';
import {
  findVisibleFileByIdOrName,
  listVisibleFiles,
  readAndAnalyse,
  spreadsheetKindOf,
  TableReadError,
  UnsafeArchiveError,
} from '../files/service.ts';
import {
  appendToBucket,
  type CandleRow,
  type Granularity,
  type MarketRouter,
  type MarketSource,
  type Quote,
} from '../market/service.ts';
import { loadWatchlist } from '../watchlists/service.ts';
import type { FileAnalysis } from '../files/service.ts';
import type { ForecastOrigin, ForecastService, GridHistory, TrackRecordCitation } from '../forecasts/service.ts';
import { plainTicker } from './symbols.ts';
import { resolveSymbol, unknownSymbolMessage, type AssetClass, type MarketSymbol } from '../../shared/symbols.ts';
import { symbolById } from '../../shared/tickers.ts';

export class ToolError extends Error {}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Timeframes we can build from the provider's candles, with the odds horizon in bars (about a day, an hour for minute charts). */
export const ANALYSIS_TIMEFRAMES = {
  '1m': { ms: 60_000, base: 60, horizon: 60 },
  '5m': { ms: 5 * 60_000, base: 60, horizon: 12 },
  '15m': { ms: 15 * 60_000, base: 60, horizon: 16 },
  '1h': { ms: HOUR, base: 3600, horizon: 24 },
  '4h': { ms: 4 * HOUR, base: 3600, horizon: 6 },
  '8h': { ms: 8 * HOUR, base: 3600, horizon: 3 },
  '12h': { ms: 12 * HOUR, base: 3600, horizon: 2 },
  D: { ms: DAY, base: 3600, horizon: 1 },
} as const satisfies Record<WatosTimeframe, { ms: number; base: Granularity; horizon: number }>;
export type AnalysisTimeframe = keyof typeof ANALYSIS_TIMEFRAMES;

/**
 * History loaded per base granularity: 60 days of hourly bars; one-minute bars for 2 days of a
 * 24/7 market, 5 days of a market with sessions (a Monday morning still sees Friday's session).
 */
function historyMs(granularity: Granularity, symbol: MarketSymbol): number {
  if (granularity === 3600) return 60 * DAY;
  return symbol.calendar === 'crypto-24x7' ? 2 * DAY : 5 * DAY;
}

/** What the assistant says about a symbol it has no data for (the symbol table's message). */
export function noMarketData(symbol: string): string {
  return `${unknownSymbolMessage(symbol)} I will not guess a price.`;
}

export function asAnalysisTimeframe(timeframe: string | null | undefined): AnalysisTimeframe {
  const value = timeframe ?? '1h';
  if (value in ANALYSIS_TIMEFRAMES) return value as AnalysisTimeframe;
  if ((TIMEFRAMES as readonly string[]).includes(value)) {
    throw new ToolError(
      `The ${value} timeframe needs more history than the 60 days of hourly candles available here; ask for D (daily) or a shorter timeframe.`,
    );
  }
  throw new ToolError(`Unknown timeframe '${value}'. Use one of ${Object.keys(ANALYSIS_TIMEFRAMES).join(', ')}.`);
}

export function symbolOrError(symbol: string): MarketSymbol {
  const market = resolveSymbol(symbol);
  if (!market) throw new ToolError(noMarketData(symbol));
  return market;
}

/** Yahoo Finance figures are delayed where the exchange delays them: labelled so, never passed off as live. */
export const isDelayedSource = (source: MarketSource) => source === 'yahoo';

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

export interface CandleSummary {
  productId: string;
  assetClass: AssetClass;
  timeframe: AnalysisTimeframe;
  source: MarketSource;
  bars: number;
  /** Open time of the first bar and close time of the last bar (ISO, UTC). */
  from: string;
  to: string;
  lastClose: number;
  /** Close-to-close change over the periods the history covers, in percent. */
  changes: Array<{ period: '24h' | '7d' | '30d'; percent: number }>;
  range24h: { high: number; low: number } | null;
  rangeAll: { high: number; low: number };
  sma: { sma20: number | null; sma50: number | null; sma200: number | null };
  /** Close against SMA 50 and 200: 'uptrend' (close > 50 > 200), 'downtrend' (close < 50 < 200), else 'mixed'. */
  trend: 'uptrend' | 'downtrend' | 'mixed' | null;
  rsi14: number | null;
  atr14: number | null;
  atrPercent: number | null;
  /** ATR(14) against its own 50-bar average. */
  atrRatio: number | null;
  volumeZ: number | null;
  support: { price: number; touches: number } | null;
  resistance: { price: number; touches: number } | null;
}

export interface AlertFilter {
  symbol?: string;
  alertType?: (typeof ALERT_TYPES)[number];
  since: Date;
  until?: Date;
  /** How many of the latest alerts to list (counts always cover the whole window). */
  latest?: number;
}

export interface AlertsFact {
  from: string;
  to: string;
  symbol: string | null;
  alertType: string | null;
  total: number;
  /** True when more alerts matched than were counted (the counts cover the newest ones). */
  capped: boolean;
  byType: Array<{ alertType: string; count: number }>;
  byTicker: Array<{ ticker: string; count: number }>;
  byDisplay: Record<AlertDisplayType, number>;
  /** How many of them the demo feed produced (labelled as demo data). */
  demo: number;
  latest: AlertRecord[];
}

export interface WatchlistFact {
  alerts: string[];
  chart: string[];
  /** Symbols from both lists we have market data for, with their canonical ids. */
  tracked: Array<{ symbol: string; productId: string }>;
  untracked: string[];
}

export interface StoredFileEntry {
  id: string;
  name: string;
  size: number;
  uploadedAt: string;
  public: boolean;
}

/** Reads a stored file's bytes (My Stuff's storage: disk or S3). */
export type StoredFileReader = (file: { id: string; storageKey: string }) => Promise<Buffer>;

export interface FileLimits {
  maxBytes: number;
  maxRows: number;
  /** SHEET_READ_TIMEOUT_MS: the time budget of reading the file (default 10 s). */
  readTimeoutMs?: number;
}

export interface MarketToolsOptions {
  /** Every market behind one face (market/router.ts): it picks the provider and falls back to demo. */
  market: MarketRouter;
  db: Database;
  fileLimits: FileLimits;
  readStoredFile?: StoredFileReader;
  now?: () => number;
  /** How long candles and quotes are reused, in ms. */
  cacheMs?: { candles: number; quotes: number };
  /** The track record: every WATOS statement is recorded as forecasts, and its record can be cited. */
  forecasts?: Pick<ForecastService, 'record' | 'cite'>;
}

interface Loaded<T> {
  at: number;
  value: Promise<T>;
}

/** Candles grouped into `ms` buckets (UTC-aligned); an incomplete last bucket is dropped. */
export function aggregateCandles(rows: CandleRow[], baseMs: number, ms: number): CandleRow[] {
  if (ms === baseMs) return rows;
  const result: CandleRow[] = [];
  for (const bar of rows) appendToBucket(result, bar, ms);
  const lastBase = rows.at(-1);
  const lastBucket = result.at(-1);
  if (lastBase && lastBucket && lastBase.time + baseMs < lastBucket.time + ms) result.pop();
  return result;
}

const finite = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value : null);

export function summariseCandles(
  series: CandleSeries,
  productId: string,
  timeframe: AnalysisTimeframe,
  source: MarketSource,
): CandleSummary {
  const { ms } = ANALYSIS_TIMEFRAMES[timeframe];
  const last = series.length - 1;
  const { close, high, low, time } = series;
  // Periods are clock time, not bar counts: a stock's 24 hours hold about 7 hourly bars, a
  // crypto's 24. The reference is the last bar that opened at or before the period's start.
  const atOrBefore = (at: number) => {
    let index = last;
    while (index >= 0 && time[index] > at) index -= 1;
    return index;
  };
  const changes: CandleSummary['changes'] = [];
  for (const [period, span] of [
    ['24h', DAY],
    ['7d', 7 * DAY],
    ['30d', 30 * DAY],
  ] as const) {
    if (span < ms) continue;
    const from = atOrBefore(time[last] - span);
    if (from >= 0 && from < last) changes.push({ period, percent: (close[last] / close[from] - 1) * 100 });
  }
  const dayStart = time[last] + ms - DAY;
  const rangeOf = (from: number) => {
    let top = -Infinity;
    let bottom = Infinity;
    for (let index = from; index <= last; index += 1) {
      top = Math.max(top, high[index]);
      bottom = Math.min(bottom, low[index]);
    }
    return { high: top, low: bottom };
  };
  const sma20 = finite(sma(close, 20)[last]);
  const sma50 = finite(sma(close, 50)[last]);
  const sma200 = finite(sma(close, 200)[last]);
  const price = close[last];
  let trend: CandleSummary['trend'] = null;
  if (sma50 !== null && sma200 !== null)
    trend = price > sma50 && sma50 > sma200 ? 'uptrend' : price < sma50 && sma50 < sma200 ? 'downtrend' : 'mixed';
  const range = atr(high, low, close, 14);
  const atr14 = finite(range[last]);
  const rangeAverage = sma(
    range.map((value) => (Number.isFinite(value) ? value : 0)),
    50,
  );
  const atrRatio = atr14 !== null && last >= 63 && rangeAverage[last] > 0 ? atr14 / rangeAverage[last] : null;
  let support: CandleSummary['support'] = null;
  let resistance: CandleSummary['resistance'] = null;
  if (atr14 !== null) {
    const levels = supportResistance(high, low, close, swingPoints(high, low, 3), last, 200, atr14 * 0.5);
    const nearest = (kind: 'support' | 'resistance') => levels.find((level) => level.kind === kind);
    const s = nearest('support');
    const r = nearest('resistance');
    support = s ? { price: s.price, touches: s.touches } : null;
    resistance = r ? { price: r.price, touches: r.touches } : null;
  }
  return {
    productId,
    assetClass: symbolById(productId)?.assetClass ?? 'crypto',
    timeframe,
    source,
    bars: series.length,
    from: new Date(series.time[0]).toISOString(),
    to: new Date(series.time[last] + ms).toISOString(),
    lastClose: price,
    changes,
    range24h: ms < DAY && time[0] <= dayStart ? rangeOf(atOrBefore(dayStart - 1) + 1) : null,
    rangeAll: rangeOf(0),
    sma: { sma20, sma50, sma200 },
    trend,
    rsi14: finite(rsi(close, 14)[last]),
    atr14,
    atrPercent: atr14 !== null ? (atr14 / price) * 100 : null,
    atrRatio,
    volumeZ: finite(volumeZScore(series.volume, 20)[last]),
    support,
    resistance,
  };
}

export function createMarketTools(options: MarketToolsOptions) {
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? { candles: 60_000, quotes: 10_000 };
  const candleCache = new Map<string, Loaded<{ rows: CandleRow[]; source: MarketSource }>>();
  const quoteCache = new Map<string, Loaded<QuoteFact>>();
  const watosCache = new Map<string, { key: string; card: WatosCard }>();

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
          throw new ToolError(`Could not load candles for ${productId}: ${(error as Error).message}.`);
        }
        if (rows.length === 0)
          throw new ToolError(`Could not load candles for ${productId} (the market-data provider returned none).`);
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
      throw new ToolError(
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
        throw new ToolError(`Could not get a price for ${productId}: ${result?.error ?? 'no answer'}.`);
      });
    },

    async candleSummary(symbol: string, timeframe?: string | null): Promise<CandleSummary> {
      const frame = asAnalysisTimeframe(timeframe);
      const loaded = await series(symbol, frame);
      return summariseCandles(loaded.series, loaded.productId, frame, loaded.source);
    },

    /**
     * The six WATOS signals at the last closed bar with their measured odds (cached per bar).
     * Each statement is recorded in the track record as a forecast (`origin`: the grid card or
     * an assistant answer), without waiting for the write.
     */
    async watos(
      symbol: string,
      timeframe?: string | null,
      origin: ForecastOrigin = 'answer',
    ): Promise<Extract<WatosCard, { available: true }>> {
      const frame = asAnalysisTimeframe(timeframe);
      const loaded = await series(symbol, frame);
      const { series: bars, productId, ticker, source } = loaded;
      const key = `${source}:${bars.length}:${bars.time[bars.length - 1]}`;
      const hit = watosCache.get(`${productId}:${frame}`);
      if (hit?.key === key && hit.card.available) {
        options.forecasts?.record(hit.card, origin);
        return hit.card;
      }
      const { horizon } = ANALYSIS_TIMEFRAMES[frame];
      const report = watosOdds(bars, horizon);
      const card: Extract<WatosCard, { available: true }> = {
        available: true,
        symbol: ticker,
        productId,
        assetClass: symbolById(productId)?.assetClass ?? 'crypto',
        source,
        delayed: isDelayedSource(source),
        timeframe: frame,
        horizonBars: horizon,
        bars: bars.length,
        lastBarTime: new Date(bars.time[bars.length - 1]).toISOString(),
        lastClose: bars.close[bars.length - 1],
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
      options.forecasts?.record(card, origin);
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

    /** What the track record says about the card's active signals (live, else a backtest); [] when nothing. */
    async trackRecord(card: Extract<WatosCard, { available: true }>): Promise<TrackRecordCitation[]> {
      return (await options.forecasts?.cite(card)) ?? [];
    },

    async alerts(filter: AlertFilter): Promise<AlertsFact> {
      const until = filter.until ?? new Date(now());
      const ticker = filter.symbol ? plainTicker(filter.symbol) : undefined;
      // Counting in code keeps docs/SPEC.md's display-type rule in one place (alertDisplayType).
      const countCap = 20_000;
      const rows = await alertsInWindow(
        options.db,
        { since: filter.since, until, ticker, alertType: filter.alertType },
        countCap + 1,
      );
      const capped = rows.length > countCap;
      if (capped) rows.pop();
      const byType = new Map<string, number>();
      const byTicker = new Map<string, number>();
      const byDisplay: Record<AlertDisplayType, number> = { bullish: 0, bearish: 0, caution: 0 };
      let demo = 0;
      for (const row of rows) {
        if (row.source === 'demo') demo += 1;
        byType.set(row.alertType, (byType.get(row.alertType) ?? 0) + 1);
        byTicker.set(row.ticker, (byTicker.get(row.ticker) ?? 0) + 1);
        byDisplay[alertDisplayType(row.alertType, row.message)] += 1;
      }
      const latest = await queryAlerts(
        options.db,
        {
          symbol: ticker,
          alert_type: filter.alertType,
          max_count: Math.min(filter.latest ?? 10, ALERT_LOG_MAX_CAP),
          start_time: formatAlertTimestamp(filter.since),
          end_time: formatAlertTimestamp(until),
        },
        until,
      );
      const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      return {
        from: filter.since.toISOString(),
        to: until.toISOString(),
        symbol: ticker ?? null,
        alertType: filter.alertType ?? null,
        total: rows.length,
        capped,
        byType: sorted(byType).map(([alertType, count]) => ({ alertType, count })),
        byTicker: sorted(byTicker).map(([name, count]) => ({ ticker: name, count })),
        byDisplay,
        demo,
        latest,
      };
    },

    async watchlist(userId: string): Promise<WatchlistFact> {
      const [alertList, chartList] = await Promise.all([
        loadWatchlist(options.db, userId, 'alerts'),
        loadWatchlist(options.db, userId, 'chart'),
      ]);
      const tracked: WatchlistFact['tracked'] = [];
      const untracked: string[] = [];
      for (const entry of [...alertList, ...chartList]) {
        const market = resolveSymbol(entry);
        if (market) {
          if (!tracked.some((item) => item.productId === market.id))
            tracked.push({ symbol: market.ticker, productId: market.id });
        } else if (!untracked.includes(entry)) {
          untracked.push(entry);
        }
      }
      return { alerts: alertList, chart: chartList, tracked, untracked };
    },

    /** The trader's own spreadsheet files and the public ones (My Stuff), newest first. */
    async storedFiles(userId: string): Promise<StoredFileEntry[]> {
      const rows = await listVisibleFiles(options.db, userId, { limit: 200 });
      return rows
        .filter((row) => spreadsheetKindOf(row.originalFilename) !== null)
        .map((row) => ({
          id: row.id,
          name: row.originalFilename,
          size: row.fileSize,
          uploadedAt: row.uploadDate.toISOString(),
          public: row.uploadedByUserId === null,
        }));
    },

    /** Reads and analyses one of the trader's stored files (own or public) by id or file name. */
    async storedFile(userId: string, idOrName: string): Promise<FileAnalysis> {
      const row = await findVisibleFileByIdOrName(options.db, userId, idOrName);
      if (!row) throw new ToolError(`No file named '${idOrName}' in your files or the public files.`);
      if (!options.readStoredFile)
        throw new ToolError('Stored files cannot be read on this server yet; attach the file to your message instead.');
      const data = await options.readStoredFile({ id: row.id, storageKey: row.storageKey });
      return analyseUpload(row.originalFilename, data, options.fileLimits);
    },
  };
}

export type MarketTools = ReturnType<typeof createMarketTools>;

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

/** Reads an attached or stored spreadsheet within the limits and analyses it. */
export async function analyseUpload(name: string, data: Buffer, limits: FileLimits): Promise<FileAnalysis> {
  const kind = spreadsheetKindOf(name);
  if (!kind) throw new ToolError(`'${name}' is not a CSV or Excel file (.csv, .xlsx, .xls).`);
  if (data.length > limits.maxBytes) {
    throw new ToolError(
      `'${name}' is larger than ${formatMegabytes(limits.maxBytes)}, the largest file the assistant analyses.`,
    );
  }
  try {
    // Read and analysed in a worker: neither the parsing nor the statistics hold the event loop.
    const { longest, analysis } = await readAndAnalyse(name, data, kind, {
      maxRows: limits.maxRows,
      timeoutMs: limits.readTimeoutMs,
    });
    if (!analysis || longest > limits.maxRows) {
      throw new ToolError(
        `'${name}' has ${longest.toLocaleString('en-US')} rows; the assistant analyses files of up to ${limits.maxRows.toLocaleString('en-US')} rows a sheet. Trim or split the file and attach it again.`,
      );
    }
    return analysis;
  } catch (error) {
    if (error instanceof TableReadError || error instanceof UnsafeArchiveError) throw new ToolError(error.message);
    throw error;
  }
}

export function formatMegabytes(bytes: number): string {
  const megabytes = bytes / 1024 / 1024;
  return `${Number(megabytes.toFixed(2))} MB`;
}

/** Alert types by the words traders use for them. */
export function alertTypeFromText(text: string): (typeof ALERT_TYPES)[number] | undefined {
  if (/breakout/i.test(text)) return 'BreakoutAlertGenerator';
  if (/volatility spike|volatility alert/i.test(text)) return 'VolatilitySpikeAlertGenerator';
  if (/momentum shift|momentum alert/i.test(text)) return 'MomentumShiftAlertGenerator';
  if (/trend change|trend alert/i.test(text)) return 'TrendChangeAlertGenerator';
  return undefined;
}
