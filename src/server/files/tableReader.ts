// Reads a CSV or Excel trading document into plain tables (a header row and string cells),
// for My Stuff's preview and the assistant's file analysis. The parsing (sheetParsing.ts)
// runs in a worker of sheetPool.ts, streams, and stops at the rows and columns asked for;
// a read that overruns its time budget is stopped and refused (SheetReadTimeoutError).
// Legacy .xls (BIFF) has no well-kept reader on npm, so it is stored but not read: the error
// says how to convert it.
import type { SpreadsheetKind } from '../../shared/schemas/files.ts';
import { type ParseLimits, type Table, TableReadError } from './sheetParsing.ts';
import { sheetPool } from './sheetPool.ts';
import type { AnalysisResult } from './sheetWorker.ts';
import { DEFAULT_ZIP_LIMITS, type ZipGuardLimits } from './zipGuard.ts';

export { TableReadError, type Table } from './sheetParsing.ts';
export { SheetReaderBusyError, SheetReadTimeoutError } from './sheetPool.ts';

// The kinds and their MIME types are shared with the browser's upload check.
export { SPREADSHEET_MIME_TYPES, type SpreadsheetKind } from '../../shared/schemas/files.ts';

/** Time budget of one spreadsheet read when the caller names none (SHEET_READ_TIMEOUT_MS's default). */
export const DEFAULT_SHEET_READ_TIMEOUT_MS = 10_000;
/** Columns kept when the caller names no limit. */
const DEFAULT_MAX_COLUMNS = 1_000;

/** The spreadsheet kind a file name's extension names, or null. */
export function spreadsheetKindOf(filename: string): SpreadsheetKind | null {
  const match = /\.(csv|xlsx|xls)$/i.exec(filename.trim());
  return match ? (match[1]!.toLowerCase() as SpreadsheetKind) : null;
}

export interface ReadOptions {
  /** Data rows kept per table (the rest are only counted). */
  maxRows: number;
  /** Columns kept per row (default 1,000). */
  maxColumns?: number;
  /** Worksheets read at most (default: all). */
  maxTables?: number;
  zipLimits?: ZipGuardLimits;
  /** Time budget of the read, in milliseconds (default 10 s). */
  timeoutMs?: number;
  /** The caller is done with `data`: its memory is moved to the reader (and emptied here) instead of copied. */
  handOver?: boolean;
}

function readableKind(kind: SpreadsheetKind): 'csv' | 'xlsx' {
  if (kind === 'xls') {
    throw new TableReadError(
      'Legacy .xls files are stored but cannot be read here; save the sheet as .xlsx or .csv to preview or analyse it.',
    );
  }
  return kind;
}

/** The parse limits of a read: the defaults where `options` leaves them out. */
export function parseLimits(options: ReadOptions): ParseLimits {
  return {
    maxRows: options.maxRows,
    maxColumns: options.maxColumns ?? DEFAULT_MAX_COLUMNS,
    maxTables: options.maxTables ?? Number.MAX_SAFE_INTEGER,
    zipLimits: options.zipLimits ?? DEFAULT_ZIP_LIMITS,
  };
}

/** Every table of a spreadsheet file (one for CSV, one a non-empty worksheet for Excel). */
export async function readTables(data: Buffer, kind: SpreadsheetKind, options: ReadOptions): Promise<Table[]> {
  const task = { op: 'tables', kind: readableKind(kind), data, limits: parseLimits(options) } as const;
  return sheetPool.run<Table[]>(task, options.timeoutMs ?? DEFAULT_SHEET_READ_TIMEOUT_MS, options.handOver);
}

/**
 * The assistant's analysis of a file (ai/fileAnalysis.ts), read and computed in a worker;
 * `analysis` is null when a sheet has more than `maxRows` rows (`longest` says how many).
 */
export async function readAndAnalyse(
  name: string,
  data: Buffer,
  kind: SpreadsheetKind,
  options: ReadOptions,
): Promise<AnalysisResult> {
  const task = { op: 'analyse', name, kind: readableKind(kind), data, limits: parseLimits(options) } as const;
  return sheetPool.run<AnalysisResult>(task, options.timeoutMs ?? DEFAULT_SHEET_READ_TIMEOUT_MS, options.handOver);
}

/** The worksheet names of an xlsx workbook (xl/workbook.xml only; no cell is read). */
export async function readXlsxSheetNames(
  data: Buffer,
  options: { zipLimits?: ZipGuardLimits; timeoutMs?: number; handOver?: boolean } = {},
): Promise<string[]> {
  return sheetPool.run<string[]>(
    { op: 'sheetNames', data, zipLimits: options.zipLimits ?? DEFAULT_ZIP_LIMITS },
    options.timeoutMs ?? DEFAULT_SHEET_READ_TIMEOUT_MS,
    options.handOver,
  );
}

/** Starts a reader worker now, so the first preview does not wait for one to load. */
export function warmSpreadsheetReader(): void {
  sheetPool.warm();
}
