import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { bigWorkbook, bigWorkbookRow, type BigWorkbook } from '../testing/bigWorkbook.ts';
import { zipArchive, zipBomb } from '../testing/spreadsheets.ts';
import {
  readTables,
  readXlsxSheetNames,
  SheetReadTimeoutError,
  spreadsheetKindOf,
  TableReadError,
} from './tableReader.ts';
import { assertSafeZip, UnsafeArchiveError } from './zipGuard.ts';

async function workbookBuffer(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const chain = workbook.addWorksheet('Chain');
  chain.addRow(['Strike', 'Type', 'Open Interest']);
  chain.addRow([100, 'call', 1200]);
  chain.addRow([105, 'put', { formula: '2*400', result: 800 }]);
  chain.addRow([110, { richText: [{ text: 'ca' }, { text: 'll' }] }, 50]);
  workbook.addWorksheet('Empty');
  const notes = workbook.addWorksheet('Notes');
  notes.addRow(['Date', 'Note']);
  notes.addRow([new Date(Date.UTC(2026, 10, 2)), 'expiry']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

describe('spreadsheetKindOf', () => {
  it('names the kind by extension, case-insensitively', () => {
    expect(spreadsheetKindOf('chain.CSV')).toBe('csv');
    expect(spreadsheetKindOf('book.xlsx')).toBe('xlsx');
    expect(spreadsheetKindOf('old.xls')).toBe('xls');
    expect(spreadsheetKindOf('notes.txt')).toBeNull();
    expect(spreadsheetKindOf('trick.csv.exe')).toBeNull();
  });
});

describe('readTables', () => {
  it('reads CSV with a BOM, quoted commas, ragged rows and blank lines; counts beyond maxRows', async () => {
    const csv = '\uFEFFsymbol,note,price\nBTC,"big, round",100\n\nETH,,2000,extra\nSOL,x,150\n';
    const [table] = await readTables(Buffer.from(csv), 'csv', { maxRows: 2 });
    expect(table!.sheet).toBeNull();
    expect(table!.columns).toEqual(['symbol', 'note', 'price', 'Column 4']);
    expect(table!.rows).toEqual([
      ['BTC', 'big, round', '100', ''],
      ['ETH', '', '2000', 'extra'],
    ]);
    expect(table!.totalRows).toBe(3);
    expect(table!.truncated).toBe(true);
  });

  it('refuses an empty CSV with a clear error', async () => {
    await expect(readTables(Buffer.from('\n\n'), 'csv', { maxRows: 10 })).rejects.toThrow(
      new TableReadError('The CSV file is empty.'),
    );
  });

  it('reads every non-empty worksheet of an xlsx, with formula results, rich text and dates as text', async () => {
    const tables = await readTables(await workbookBuffer(), 'xlsx', { maxRows: 10 });
    expect(tables.map((table) => table.sheet)).toEqual(['Chain', 'Notes']);
    expect(tables[0]!.rows).toEqual([
      ['100', 'call', '1200'],
      ['105', 'put', '800'],
      ['110', 'call', '50'],
    ]);
    expect(tables[1]!.rows).toEqual([['2026-11-02', 'expiry']]);
    expect(tables[0]!.truncated).toBe(false);
  });

  it('refuses bytes that are not an xlsx archive, and legacy .xls with a way forward', async () => {
    await expect(readTables(Buffer.from('not,a,zip'), 'xlsx', { maxRows: 10 })).rejects.toBeInstanceOf(
      UnsafeArchiveError,
    );
    await expect(readTables(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), 'xls', { maxRows: 10 })).rejects.toThrow(
      /save the sheet as \.xlsx or \.csv/,
    );
  });
});

describe('assertSafeZip', () => {
  it('accepts a normal workbook and refuses one that unpacks past the cap', async () => {
    const data = await workbookBuffer();
    await expect(assertSafeZip(data)).resolves.toBeUndefined();
    await expect(assertSafeZip(data, { maxUnpackedBytes: 2_000, maxEntries: 100 })).rejects.toThrow(
      /unpacks to more than/,
    );
    await expect(assertSafeZip(data, { maxUnpackedBytes: 10_000_000, maxEntries: 3 })).rejects.toThrow(
      /more than 3 entries/,
    );
  });
});

describe('readTables on a large workbook (streamed in a worker)', () => {
  let big: BigWorkbook;

  beforeAll(async () => {
    // ~30 MB of worksheet XML and a sharedStrings.xml of ~10 MB the first rows barely use.
    big = await bigWorkbook({ sheetBytes: 30 * 1024 * 1024, extraSharedStrings: 250_000, level: 1 });
  }, 60_000);

  it('keeps only the first rows and columns asked for, and counts every row', async () => {
    const [table] = await readTables(big.data, 'xlsx', { maxRows: 20, maxColumns: 5 });
    expect(table!.sheet).toBe('Trades');
    expect(table!.columns).toEqual(['Date', 'Symbol', 'Side', 'Quantity', 'Price']);
    expect(table!.rows).toEqual(Array.from({ length: 20 }, (_, index) => bigWorkbookRow(index).slice(0, 5)));
    expect(table!.totalRows).toBe(big.dataRows);
    expect(table!.truncated).toBe(true);
  });

  it('stops a read that overruns its time budget, and the next read works', async () => {
    const slow = readTables(big.data, 'xlsx', { maxRows: 20, timeoutMs: 1 });
    await expect(slow).rejects.toBeInstanceOf(SheetReadTimeoutError);
    await expect(slow).rejects.toThrow(/too large or complex to read here \(it took longer than 0\.001 s\)/);
    const [table] = await readTables(Buffer.from('symbol,price\nBTC,97000\n'), 'csv', { maxRows: 10 });
    expect(table!.rows).toEqual([['BTC', '97000']]);
  });

  it('reads the sheet names from xl/workbook.xml without touching a cell', async () => {
    expect(await readXlsxSheetNames(big.data)).toEqual(['Trades']);
    // The worksheets are not even XML: a reader that parsed cells would fail.
    const namesOnly = await zipArchive([
      {
        name: 'xl/workbook.xml',
        content: Buffer.from(
          '<workbook><sheets><sheet name="Calls" sheetId="1"/><sheet name="Puts &amp; more" sheetId="2"/></sheets></workbook>',
        ),
      },
      { name: 'xl/worksheets/sheet1.xml', content: Buffer.from('<<< not xml') },
    ]);
    expect(await readXlsxSheetNames(namesOnly)).toEqual(['Calls', 'Puts & more']);
  });

  it('refuses zip bombs while reading: by the declared size, and the moment an entry inflates past it', async () => {
    await expect(readTables(await zipBomb(250 * 1024 * 1024), 'xlsx', { maxRows: 20 })).rejects.toThrow(
      /unpacks to more than 200 MB/,
    );
    await expect(
      readTables(await zipBomb(50 * 1024 * 1024, { lieAboutSize: true }), 'xlsx', { maxRows: 20 }),
    ).rejects.toBeInstanceOf(UnsafeArchiveError);
  });

  it('resolves every shared string of 150,000 kept rows, each a different one', async () => {
    const rows = 150_000;
    const cells = Array.from(
      { length: rows },
      (_, index) => `<row r="${index + 2}"><c r="A${index + 2}" t="s"><v>${index + 1}</v></c></row>`,
    );
    const strings = Array.from(
      { length: rows + 1 },
      (_, index) => `<si><t>${index === 0 ? 'Note' : `note ${index}`}</t></si>`,
    );
    const data = await zipArchive([
      {
        name: 'xl/workbook.xml',
        content: Buffer.from('<workbook><sheets><sheet name="Notes" sheetId="1"/></sheets></workbook>'),
      },
      { name: 'xl/sharedStrings.xml', content: Buffer.from(`<sst>${strings.join('')}</sst>`) },
      {
        name: 'xl/worksheets/sheet1.xml',
        content: Buffer.from(
          `<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>${cells.join('')}</sheetData></worksheet>`,
        ),
      },
    ]);
    const [table] = await readTables(data, 'xlsx', { maxRows: rows });
    expect(table!.columns).toEqual(['Note']);
    expect(table!.totalRows).toBe(rows);
    expect(table!.rows[0]).toEqual(['note 1']);
    expect(table!.rows[rows - 1]).toEqual([`note ${rows}`]);
  });

  it('reads a CSV only as far as the kept columns, and counts the rows', async () => {
    const lines = Array.from({ length: 5000 }, (_, index) => `${index},BTC-USD,${97_000 + index},x,y,z`);
    const [table] = await readTables(Buffer.from(`n,symbol,price,a,b,c\n${lines.join('\n')}\n`), 'csv', {
      maxRows: 3,
      maxColumns: 3,
    });
    expect(table!.columns).toEqual(['n', 'symbol', 'price']);
    expect(table!.rows).toEqual([
      ['0', 'BTC-USD', '97000'],
      ['1', 'BTC-USD', '97001'],
      ['2', 'BTC-USD', '97002'],
    ]);
    expect(table!.totalRows).toBe(5000);
  });
});
