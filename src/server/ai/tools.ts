// The assistant's tools over our own data, shared by the built-in analyst and the LLM: the
// current quote, a candle summary and the WATOS signals with their measured odds (market
// analysis, analysis/service.ts), what the track record says about them, recent alerts with
// filters, the trader's watchlists, and the trader's stored files, for every market of the
// symbol table (crypto, stocks, ETFs, indices, futures). Every figure comes from the market
// analysis, the signals engine or the database, with its source ('coinbase', 'yahoo' or 'demo')
// so demo and delayed data are always labelled. Expected failures ("No market data for LSE:VOD")
// are ToolErrors or MarketAnalysisErrors with the text to show (isToolError).
import { ALERT_LOG_MAX_CAP, ALERT_TYPES } from '../../shared/constants.ts';
import {
  alertDisplayType,
  formatAlertTimestamp,
  type AlertDisplayType,
  type AlertRecord,
} from '../../shared/alertDisplay.ts';
import { resolveSymbol } from '../../shared/symbols.ts';
import { alertsInWindow, queryAlerts } from '../alerts/service.ts';
import {
  type AvailableWatosCard,
  type CandleSummary,
  type MarketAnalysis,
  type QuoteFact,
} from '../analysis/service.ts';
import type { Database } from '../db/client.ts';
import {
  findVisibleFileByIdOrName,
  listVisibleFiles,
  readAndAnalyse,
  spreadsheetKindOf,
  TableReadError,
  UnsafeArchiveError,
  type FileAnalysis,
} from '../files/service.ts';
import type { ForecastOrigin, ForecastService, TrackRecordCitation } from '../forecasts/service.ts';
import type { StudyRequest, StudyResponse } from '../../shared/schemas/scans.ts';
import type { StudyService } from '../studies/service.ts';
import { loadWatchlist } from '../watchlists/service.ts';
import { assistantStudy } from './studyTool.ts';
import type { ScanRunner } from './scanTool.ts';
import { plainTicker } from './symbols.ts';

/** An expected failure of the assistant's own tools (files), with the text to show. */
export { isToolError, ToolError } from './toolErrors.ts';
import { ToolError } from './toolErrors.ts';

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

export interface AssistantToolsOptions {
  /** Quotes, candle summaries and WATOS cards, shared with the grid, the rules and the track record. */
  analysis: Pick<MarketAnalysis, 'quote' | 'candleSummary' | 'watos'>;
  db: Database;
  fileLimits: FileLimits;
  readStoredFile?: StoredFileReader;
  now?: () => number;
  /** The track record: every WATOS statement is recorded as forecasts, and its record can be cited. */
  forecasts?: Pick<ForecastService, 'record' | 'cite'>;
  /** Setup studies (studies/service.ts), for "how did X do after ...". */
  studies?: Pick<StudyService, 'study'>;
  /** The scanner over the whole universe (scanTool.ts); without it the assistant does not scan. */
  runScan?: ScanRunner;
}

export function createAssistantTools(options: AssistantToolsOptions) {
  const now = options.now ?? Date.now;
  const { analysis } = options;

  return {
    runScan: options.runScan ?? null,

    quote(symbol: string): Promise<QuoteFact> {
      return analysis.quote(symbol);
    },

    candleSummary(symbol: string, timeframe?: string | null): Promise<CandleSummary> {
      return analysis.candleSummary(symbol, timeframe);
    },

    /**
     * The six WATOS signals at the last closed bar with their measured odds. Each statement is
     * recorded in the track record as a forecast (`origin`: the grid card or an assistant
     * answer), without waiting for the write.
     */
    async watos(
      symbol: string,
      timeframe?: string | null,
      origin: ForecastOrigin = 'answer',
    ): Promise<AvailableWatosCard> {
      const card = await analysis.watos(symbol, timeframe);
      options.forecasts?.record(card, origin);
      return card;
    },

    /** What the track record says about the card's active signals (live, else a backtest); [] when nothing. */
    async trackRecord(card: AvailableWatosCard): Promise<TrackRecordCitation[]> {
      return (await options.forecasts?.cite(card)) ?? [];
    },

    /** A setup study (issue 36); its refusals are ToolErrors with the text to show. */
    study(request: StudyRequest): Promise<StudyResponse> {
      return assistantStudy(options.studies, request);
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

export type AssistantTools = ReturnType<typeof createAssistantTools>;

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
