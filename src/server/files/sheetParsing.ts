// The spreadsheet readers themselves. They run inside a worker of sheetPool.ts (never on the
// server's main thread) and read only what they need:
//  - CSV: papaparse, row by row; rows past the limit are only counted.
//  - xlsx: straight from the zip entries (yauzl, size-validated), never the whole workbook:
//    xl/workbook.xml for the sheet names, styles.xml for which cells are dates, then each
//    worksheet's XML in a stream. A byte scanner splits <row> elements; only the header and
//    the first `maxRows` data rows are parsed (saxes), the rest are counted by the scanner.
//    Shared strings are read last and only the ones the kept cells use are held.
//  - sheet names alone: xl/workbook.xml up to </sheets>, no cell parsing at all.
// Nothing here keeps more than the kept rows, one row's XML and a few chunks in memory.
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import Papa from 'papaparse';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { openZip, UnsafeArchiveError, type ZipGuardLimits, type ZipReader } from './zipGuard.ts';

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

export interface ParseLimits {
  /** Data rows kept per table (the rest are only counted). */
  maxRows: number;
  /** Columns kept per row; cells further right are skipped unread. */
  maxColumns: number;
  /** Worksheets read at most (the first non-empty ones in workbook order). */
  maxTables: number;
  zipLimits: ZipGuardLimits;
}

/** Excel's own limit on the text of one cell: longer text is cut there. */
const MAX_CELL_CHARS = 32_767;
/** The XML of one row we parse, at most; a longer row is refused rather than held. */
const MAX_ROW_XML_BYTES = 8 * 1024 * 1024;
/** Worksheet XML before <sheetData> (columns, views...), at most. */
const MAX_SHEET_HEAD_BYTES = 8 * 1024 * 1024;

const DAMAGED = 'The Excel file could not be read; it may be damaged or password-protected.';

function normaliseWidth(header: string[], rows: string[][]): { columns: string[]; rows: string[][] } {
  // reduce, not Math.max(...rows): tens of thousands of rows exceed a call's argument limit.
  const width = rows.reduce((most, row) => Math.max(most, row.length), header.length);
  const columns = Array.from({ length: width }, (_, index) => header[index]?.trim() || `Column ${index + 1}`);
  return { columns, rows: rows.map((row) => Array.from({ length: width }, (_, index) => row[index] ?? '')) };
}

// ---------------------------------------------------------------------------------------- CSV

export function readCsv(data: Uint8Array, limits: Pick<ParseLimits, 'maxRows' | 'maxColumns'>): Table[] {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  let header: string[] | null = null;
  const rows: string[][] = [];
  let totalRows = 0;
  Papa.parse<string[]>(text, {
    skipEmptyLines: 'greedy',
    step: (result) => {
      if (header && rows.length >= limits.maxRows) {
        // Past the kept rows: only counted, no cell is copied.
        totalRows += 1;
        return;
      }
      const row = result.data.slice(0, limits.maxColumns).map((cell) =>
        String(cell ?? '')
          .slice(0, MAX_CELL_CHARS)
          .trim(),
      );
      if (!header) {
        header = row;
        return;
      }
      totalRows += 1;
      rows.push(row);
    },
  });
  if (!header) throw new TableReadError('The CSV file is empty.');
  return [{ sheet: null, ...normaliseWidth(header, rows), totalRows, truncated: totalRows > rows.length }];
}

// ------------------------------------------------------------------------------- XML helpers

/** Plain names (prefixes kept in the name, dropped by localName) and no position tracking. */
const XML_OPTIONS = { xmlns: false, position: false } as const;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

function attribute(tag: SaxesTagPlain, name: string): string | undefined {
  const direct = tag.attributes[name];
  if (direct !== undefined) return direct;
  // Prefixed attributes (r:id) are matched by their local name.
  for (const [key, value] of Object.entries(tag.attributes)) if (localName(key) === name) return value;
  return undefined;
}

interface XmlHandlers {
  open?: (name: string, tag: SaxesTagPlain) => void;
  close?: (name: string) => void;
  text?: (text: string) => void;
}

/** Streams an XML entry through saxes; `done()` true stops reading (the rest is never inflated). */
async function parseXmlStream(
  stream: Readable,
  handlers: XmlHandlers,
  done: () => boolean = () => false,
): Promise<void> {
  const parser = new SaxesParser(XML_OPTIONS);
  if (handlers.open) parser.on('opentag', (tag) => handlers.open!(localName(tag.name), tag));
  if (handlers.close) parser.on('closetag', (tag) => handlers.close!(localName(tag.name)));
  const { text } = handlers;
  if (text) {
    parser.on('text', (value) => text(value));
    parser.on('cdata', (value) => text(value));
  }
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parser.write(decoder.write(chunk));
      if (done()) return;
    }
    parser.write(decoder.end());
    parser.close();
  } catch (error) {
    if (error instanceof TableReadError || error instanceof UnsafeArchiveError) throw error;
    throw new TableReadError(DAMAGED);
  } finally {
    stream.destroy();
  }
}

// ---------------------------------------------------------------------------- workbook parts

interface SheetRef {
  name: string;
  relationId: string | undefined;
}

async function readWorkbook(zip: ZipReader): Promise<{ sheets: SheetRef[]; date1904: boolean }> {
  if (!zip.has('xl/workbook.xml')) throw new TableReadError(DAMAGED);
  const sheets: SheetRef[] = [];
  let date1904 = false;
  let finished = false;
  await parseXmlStream(
    await zip.open('xl/workbook.xml'),
    {
      open(name, tag) {
        if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attribute(tag, 'date1904') ?? '');
        else if (name === 'sheet')
          sheets.push({
            name: attribute(tag, 'name') ?? `Sheet${sheets.length + 1}`,
            relationId: attribute(tag, 'id'),
          });
      },
      close(name) {
        if (name === 'sheets') finished = true;
      },
    },
    () => finished,
  );
  return { sheets, date1904 };
}

/** Worksheet entry names by relationship id, from xl/_rels/workbook.xml.rels. */
async function readWorkbookRelations(zip: ZipReader): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  if (!zip.has('xl/_rels/workbook.xml.rels')) return targets;
  await parseXmlStream(await zip.open('xl/_rels/workbook.xml.rels'), {
    open(name, tag) {
      if (name !== 'Relationship') return;
      const id = attribute(tag, 'Id');
      const target = attribute(tag, 'Target');
      if (!id || !target) return;
      targets.set(id, target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join('xl', target)));
    },
  });
  return targets;
}

/** Built-in number formats Excel shows as dates or times (as exceljs reads them). */
const BUILT_IN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56,
  57, 58,
]);

/** exceljs's rule: a format is a date when, outside quotes and [..], it has y m d h s or b. */
const isDateFormat = (code: string) => /[ymdhMsb]/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));

/** The cell style indexes (the `s` of a cell) whose number format is a date. */
async function readDateStyles(zip: ZipReader): Promise<Set<number>> {
  const dateStyles = new Set<number>();
  if (!zip.has('xl/styles.xml')) return dateStyles;
  const customDate = new Map<number, boolean>();
  let inCellXfs = false;
  let finished = false;
  let index = 0;
  await parseXmlStream(
    await zip.open('xl/styles.xml'),
    {
      open(name, tag) {
        if (name === 'numFmt')
          customDate.set(Number(attribute(tag, 'numFmtId')), isDateFormat(attribute(tag, 'formatCode') ?? ''));
        else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs) {
          const format = Number(attribute(tag, 'numFmtId') ?? 0);
          if (customDate.get(format) ?? BUILT_IN_DATE_FORMATS.has(format)) dateStyles.add(index);
          index += 1;
        }
      },
      close(name) {
        if (name === 'cellXfs') finished = true;
      },
    },
    () => finished,
  );
  return dateStyles;
}

/** The texts of the shared strings at `wanted` indexes; reading stops after the last one. */
async function readSharedStrings(zip: ZipReader, wanted: Set<number>): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (wanted.size === 0 || !zip.has('xl/sharedStrings.xml')) return found;
  // A loop, not Math.max(...wanted): the set can hold more indexes than a call takes arguments.
  let last = -1;
  for (const index of wanted) if (index > last) last = index;
  let index = -1;
  let keep = false;
  let text = '';
  let inText = false;
  let phonetic = 0;
  await parseXmlStream(
    await zip.open('xl/sharedStrings.xml'),
    {
      open(name) {
        if (name === 'si') {
          index += 1;
          keep = wanted.has(index);
          text = '';
        } else if (name === 'rPh') phonetic += 1;
        else if (name === 't' && keep && phonetic === 0) inText = true;
      },
      close(name) {
        if (name === 'si' && keep) found.set(index, text.trim());
        else if (name === 'rPh') phonetic -= 1;
        else if (name === 't') inText = false;
      },
      text(value) {
        if (inText && text.length < MAX_CELL_CHARS) text = (text + value).slice(0, MAX_CELL_CHARS);
      },
    },
    () => index > last || found.has(last),
  );
  return found;
}

// ---------------------------------------------------------------------------------- worksheet

/** A kept cell: its text, or the index of the shared string it shows (resolved at the end). */
type Cell = string | { shared: number };

/** 'AB12' -> 27 (zero-based column). */
function columnIndex(reference: string): number {
  let column = 0;
  for (const char of reference) {
    const code = char.charCodeAt(0);
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
  }
  return column - 1;
}

function excelDateText(serial: number, date1904: boolean): string | null {
  // exceljs's conversion: days since 1899-12-30 (or 1904-01-01), to the millisecond.
  const date = new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
  return Number.isNaN(date.getTime()) ? null : date.toISOString().replace('T00:00:00.000Z', '');
}

interface CellContext {
  dateStyles: Set<number>;
  date1904: boolean;
  maxColumns: number;
}

/**
 * Parses <row> elements, one at a time, into their kept cells. One saxes parser in fragment
 * mode serves a whole sheet (a parser per row cost more than the parsing itself).
 */
function rowParser(context: CellContext): (xml: Buffer) => Cell[] | null {
  let cells: Cell[] = [];
  let next = 0;
  let column = -1;
  let type = 'n';
  let style = 0;
  let text = '';
  let capture = false;
  let inValue = false;
  let phonetic = 0;
  const parser = new SaxesParser({ ...XML_OPTIONS, fragment: true });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (name === 'c') {
      // A cell's attributes are never prefixed: read them directly (this runs for every cell).
      const { r: reference, t, s } = tag.attributes;
      column = reference ? columnIndex(reference) : next;
      next = column + 1;
      type = t ?? 'n';
      style = s ? Number(s) : 0;
      text = '';
      capture = column >= 0 && column < context.maxColumns;
    } else if (name === 'row') {
      cells = [];
      next = 0;
      phonetic = 0;
      inValue = false;
      capture = false;
    } else if (name === 'rPh') phonetic += 1;
    else if (capture && phonetic === 0 && (name === 'v' || name === 't')) inValue = true;
  });
  const onText = (value: string) => {
    if (!inValue || text.length >= MAX_CELL_CHARS) return;
    text = text === '' && value.length <= MAX_CELL_CHARS ? value : (text + value).slice(0, MAX_CELL_CHARS);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    if (name === 'v' || name === 't') inValue = false;
    else if (name === 'rPh') phonetic -= 1;
    else if (name === 'c' && capture) {
      const cell = cellValue(type, style, text, context);
      if (cell !== '') {
        while (cells.length < column) cells.push('');
        cells[column] = cell;
      }
      capture = false;
    }
  });
  return (xml) => {
    try {
      parser.write(xml.toString('utf8'));
    } catch {
      throw new TableReadError(DAMAGED);
    }
    return cells.length > 0 ? cells : null;
  };
}

function cellValue(type: string, style: number, text: string, context: CellContext): Cell {
  switch (type) {
    case 's': {
      const index = Number(text);
      return text !== '' && Number.isInteger(index) && index >= 0 ? { shared: index } : '';
    }
    case 'b':
      return text === '' ? '' : String(text.trim() === '1' || text.trim() === 'true');
    case 'd': {
      const date = new Date(text);
      return Number.isNaN(date.getTime()) ? text.trim() : date.toISOString().replace('T00:00:00.000Z', '');
    }
    case 'n': {
      if (text.trim() === '') return '';
      const value = Number(text);
      if (!Number.isFinite(value)) return text.trim();
      if (context.dateStyles.has(style)) return excelDateText(value, context.date1904) ?? String(value);
      return String(value);
    }
    default:
      // 'str' (a formula's text), 'inlineStr', 'e' (an error such as #DIV/0!).
      return text.trim();
  }
}

/**
 * Splits a worksheet's XML stream into <row> elements without parsing it. While `visit`
 * wants rows it gets each row's complete XML; after that rows are only counted (those with a
 * value), with a few Buffer.indexOf calls per row and no row ever held.
 */
class RowScanner {
  private buffer: Buffer = Buffer.alloc(0);
  private head = true;
  private parsing = true;
  private inRow = false;
  private hadValue = false;
  private rowOpen = Buffer.from('<row');
  private rowClose = Buffer.from('</row>');
  private valueTags = [Buffer.from('<v>'), Buffer.from('<is>')];
  /** Where each value tag next occurs in `buffer` (-1: nowhere), so a search never repeats. */
  private nextValue: number[] = [];
  counted = 0;

  constructor(private readonly visit: (rowXml: Buffer) => boolean) {}

  /** False once the sheet's rows are known to be over (the rest need not be read). */
  feed(chunk: Buffer): boolean {
    this.buffer = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    let position = 0;
    if (this.head) {
      // The rows are inside <sheetData> (maybe prefixed, as <x:sheetData>): learn the prefix there.
      const at = this.buffer.indexOf('sheetData');
      const tagEnd = at < 0 ? -1 : this.buffer.indexOf(0x3e, at);
      if (tagEnd < 0) {
        if (this.buffer.length > MAX_SHEET_HEAD_BYTES) throw new TableReadError(DAMAGED);
        return true;
      }
      const windowStart = Math.max(0, at - 64);
      const match = /<(?:([A-Za-z_][\w.-]*):)?sheetData(?:\s[^>]*)?(\/?)>$/.exec(
        this.buffer.toString('latin1', windowStart, tagEnd + 1),
      );
      if (!match) throw new TableReadError(DAMAGED);
      // <sheetData/>: a sheet without rows.
      if (match[2] === '/') return false;
      const prefix = match[1] ? `${match[1]}:` : '';
      this.rowOpen = Buffer.from(`<${prefix}row`);
      this.rowClose = Buffer.from(`</${prefix}row>`);
      this.valueTags = [Buffer.from(`<${prefix}v>`), Buffer.from(`<${prefix}is>`)];
      this.head = false;
      position = tagEnd + 1;
    }
    this.nextValue = this.valueTags.map(() => -2);
    let keepFrom = this.parsing ? this.parseRows(position) : this.countRows(position);
    if (keepFrom < 0) keepFrom = this.countRows(-keepFrom - 1);
    this.buffer = this.buffer.subarray(keepFrom);
    return true;
  }

  /** True when a row start tag begins at `at` (not <rowBreaks>); null when the buffer ends first. */
  private rowStartAt(at: number): boolean | null {
    const after = at + this.rowOpen.length;
    if (after >= this.buffer.length) return null;
    const char = this.buffer[after];
    return char === 0x20 || char === 0x3e || char === 0x2f || char === 0x09 || char === 0x0a || char === 0x0d;
  }

  /** Parses whole rows from `from`; returns where to keep the buffer from, or -(position + 1) to count on from there. */
  private parseRows(from: number): number {
    let position = from;
    const buffer = this.buffer;
    for (;;) {
      const start = buffer.indexOf(this.rowOpen, position);
      if (start < 0) return Math.max(position, buffer.length - this.rowOpen.length);
      const isRow = this.rowStartAt(start);
      if (isRow === null) return start;
      if (!isRow) {
        position = start + 1;
        continue;
      }
      const tagEnd = buffer.indexOf(0x3e, start);
      if (tagEnd < 0) return start;
      if (buffer[tagEnd - 1] === 0x2f) {
        position = tagEnd + 1;
        continue;
      }
      const end = buffer.indexOf(this.rowClose, tagEnd);
      if (end < 0) {
        if (buffer.length - start > MAX_ROW_XML_BYTES)
          throw new TableReadError('A row of this spreadsheet is too large to read.');
        return start;
      }
      position = end + this.rowClose.length;
      if (!this.visit(buffer.subarray(start, position))) {
        this.parsing = false;
        return -(position + 1);
      }
    }
  }

  private hasValueBefore(from: number, limit: number): boolean {
    for (let index = 0; index < this.valueTags.length; index += 1) {
      let at = this.nextValue[index]!;
      if (at === -2 || (at >= 0 && at < from))
        this.nextValue[index] = at = this.buffer.indexOf(this.valueTags[index]!, from);
      if (at >= 0 && at < limit) return true;
    }
    return false;
  }

  /** Counts rows with a value from `from`; returns where to keep the buffer from. */
  private countRows(from: number): number {
    let position = from;
    const buffer = this.buffer;
    for (;;) {
      if (!this.inRow) {
        const start = buffer.indexOf(this.rowOpen, position);
        if (start < 0) return Math.max(position, buffer.length - this.rowOpen.length);
        const isRow = this.rowStartAt(start);
        if (isRow === null) return start;
        if (!isRow) {
          position = start + 1;
          continue;
        }
        const tagEnd = buffer.indexOf(0x3e, start);
        if (tagEnd < 0) return start;
        position = tagEnd + 1;
        if (buffer[tagEnd - 1] === 0x2f) continue;
        this.inRow = true;
        this.hadValue = false;
      }
      const end = buffer.indexOf(this.rowClose, position);
      if (!this.hadValue) this.hadValue = this.hasValueBefore(position, end < 0 ? buffer.length : end);
      // An unfinished row keeps only as many bytes as a split tag needs.
      if (end < 0) return Math.max(position, buffer.length - this.rowClose.length);
      if (this.hadValue) this.counted += 1;
      this.inRow = false;
      position = end + this.rowClose.length;
    }
  }
}

interface SheetRows {
  header: Cell[] | null;
  rows: Cell[][];
  totalRows: number;
}

async function readSheet(stream: Readable, context: CellContext, maxRows: number): Promise<SheetRows> {
  let header: Cell[] | null = null;
  const rows: Cell[][] = [];
  const parseRow = rowParser(context);
  const scanner = new RowScanner((xml) => {
    const cells = parseRow(xml);
    if (!cells) return true;
    if (!header) header = cells;
    else rows.push(cells);
    return rows.length < maxRows;
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) if (!scanner.feed(chunk)) break;
  } catch (error) {
    if (error instanceof TableReadError || error instanceof UnsafeArchiveError) throw error;
    throw new TableReadError(DAMAGED);
  } finally {
    stream.destroy();
  }
  return { header, rows, totalRows: rows.length + scanner.counted };
}

export async function readXlsx(data: Uint8Array, limits: ParseLimits): Promise<Table[]> {
  const zip = await openZip(Buffer.from(data.buffer, data.byteOffset, data.byteLength), limits.zipLimits);
  try {
    const { sheets, date1904 } = await readWorkbook(zip);
    const relations = await readWorkbookRelations(zip);
    const context: CellContext = { dateStyles: await readDateStyles(zip), date1904, maxColumns: limits.maxColumns };
    const read: Array<{ name: string } & SheetRows> = [];
    for (const [position, sheet] of sheets.entries()) {
      if (read.length >= limits.maxTables) break;
      const entry = (sheet.relationId && relations.get(sheet.relationId)) || `xl/worksheets/sheet${position + 1}.xml`;
      if (!zip.has(entry)) continue;
      const rows = await readSheet(await zip.open(entry), context, limits.maxRows);
      if (rows.header) read.push({ name: sheet.name, ...rows });
    }
    if (read.length === 0) throw new TableReadError('The Excel file has no data.');

    const wanted = new Set<number>();
    for (const sheet of read)
      for (const row of [sheet.header!, ...sheet.rows])
        for (const cell of row) if (typeof cell !== 'string') wanted.add(cell.shared);
    const shared = await readSharedStrings(zip, wanted);
    const text = (row: Cell[]) =>
      Array.from(row, (cell) =>
        cell === undefined ? '' : typeof cell === 'string' ? cell : (shared.get(cell.shared) ?? ''),
      );
    return read.map((sheet) => {
      const rows = sheet.rows.map(text);
      return {
        sheet: sheet.name,
        ...normaliseWidth(text(sheet.header!), rows),
        totalRows: sheet.totalRows,
        truncated: sheet.totalRows > rows.length,
      };
    });
  } finally {
    zip.close();
  }
}

/** The worksheet names of an xlsx, in the order the workbook shows its tabs: xl/workbook.xml only. */
export async function readSheetNames(data: Uint8Array, zipLimits: ZipGuardLimits): Promise<string[]> {
  const zip = await openZip(Buffer.from(data.buffer, data.byteOffset, data.byteLength), zipLimits);
  try {
    return (await readWorkbook(zip)).sheets.map((sheet) => sheet.name);
  } finally {
    zip.close();
  }
}
