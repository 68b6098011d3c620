// Reads a CSV or Excel trading document into plain tables (a header row and string cells),
// for My Stuff's preview and the assistant's file analysis. CSV through papaparse, .xlsx
// through exceljs after the zip-bomb guard. Legacy .xls (BIFF) has no well-kept reader on
// npm, so it is stored but not read: the error says how to convert it.
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import type { SpreadsheetKind } from '../../shared/schemas/files.ts';
import { assertSafeZip, DEFAULT_ZIP_LIMITS, type ZipGuardLimits } from './zipGuard.ts';

export interface Table {
  /** Worksheet name for Excel files; null for CSV. */
  sheet: string | null;
  columns: string[];
  /** The first `maxRows` data rows (after the header), each as long as `columns`. */
  rows: string[][];
  /** Data rows in the whole sheet. */
  totalRows: number;
  truncated: boolean;
}

export class TableReadError extends Error {}

// The kinds and their MIME types are shared with the browser's upload check.
export { SPREADSHEET_MIME_TYPES, type SpreadsheetKind } from '../../shared/schemas/files.ts';

/** The spreadsheet kind a file name's extension names, or null. */
export function spreadsheetKindOf(filename: string): SpreadsheetKind | null {
  const match = /\.(csv|xlsx|xls)$/i.exec(filename.trim());
  return match ? (match[1].toLowerCase() as SpreadsheetKind) : null;
}

export interface ReadOptions {
  /** Data rows kept per table (the rest are only counted). */
  maxRows: number;
  zipLimits?: ZipGuardLimits;
}

function normaliseWidth(header: string[], rows: string[][]): { columns: string[]; rows: string[][] } {
  const width = Math.max(header.length, ...rows.map((row) => row.length));
  const columns = Array.from({ length: width }, (_, index) => header[index]?.trim() || `Column ${index + 1}`);
  return { columns, rows: rows.map((row) => Array.from({ length: width }, (_, index) => row[index] ?? '')) };
}

function readCsv(data: Buffer, maxRows: number): Table[] {
  const text = data.toString('utf8').replace(/^\uFEFF/, '');
  let header: string[] | null = null;
  const rows: string[][] = [];
  let totalRows = 0;
  Papa.parse<string[]>(text, {
    skipEmptyLines: 'greedy',
    step: (result) => {
      const row = result.data.map((cell) => String(cell ?? '').trim());
      if (!header) {
        header = row;
        return;
      }
      totalRows += 1;
      if (rows.length < maxRows) rows.push(row);
    },
  });
  if (!header) throw new TableReadError('The CSV file is empty.');
  return [{ sheet: null, ...normaliseWidth(header, rows), totalRows, truncated: totalRows > rows.length }];
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().replace('T00:00:00.000Z', '');
  if (typeof value === 'object') {
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('text' in value) return String(value.text);
    if ('error' in value) return String(value.error);
    return '';
  }
  return String(value).trim();
}

async function readXlsx(data: Buffer, maxRows: number, zipLimits: ZipGuardLimits): Promise<Table[]> {
  await assertSafeZip(data, zipLimits);
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs declares its own Buffer type; the bytes are the same.
    await workbook.xlsx.load(data as unknown as ExcelJS.Buffer);
  } catch {
    throw new TableReadError('The Excel file could not be read; it may be damaged or password-protected.');
  }
  const tables: Table[] = [];
  workbook.eachSheet((sheet) => {
    let header: string[] | null = null;
    const rows: string[][] = [];
    let totalRows = 0;
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values = row.values as ExcelJS.CellValue[];
      // exceljs rows are 1-based: values[0] is always empty.
      const cells = values.slice(1).map(cellText);
      if (cells.every((cell) => cell === '')) return;
      if (!header) {
        header = cells;
        return;
      }
      totalRows += 1;
      if (rows.length < maxRows) rows.push(cells);
    });
    if (header) tables.push({ sheet: sheet.name, ...normaliseWidth(header, rows), totalRows, truncated: totalRows > rows.length });
  });
  if (tables.length === 0) throw new TableReadError('The Excel file has no data.');
  return tables;
}

/** Every table of a spreadsheet file (one for CSV, one a non-empty worksheet for Excel). */
export async function readTables(data: Buffer, kind: SpreadsheetKind, options: ReadOptions): Promise<Table[]> {
  if (kind === 'csv') return readCsv(data, options.maxRows);
  if (kind === 'xlsx') return readXlsx(data, options.maxRows, options.zipLimits ?? DEFAULT_ZIP_LIMITS);
  throw new TableReadError('Legacy .xls files are stored but cannot be read here; save the sheet as .xlsx or .csv to preview or analyse it.');
}
