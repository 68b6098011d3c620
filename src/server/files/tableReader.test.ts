import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readTables, spreadsheetKindOf, TableReadError } from './tableReader.ts';
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
    expect(table.sheet).toBeNull();
    expect(table.columns).toEqual(['symbol', 'note', 'price', 'Column 4']);
    expect(table.rows).toEqual([
      ['BTC', 'big, round', '100', ''],
      ['ETH', '', '2000', 'extra'],
    ]);
    expect(table.totalRows).toBe(3);
    expect(table.truncated).toBe(true);
  });

  it('refuses an empty CSV with a clear error', async () => {
    await expect(readTables(Buffer.from('\n\n'), 'csv', { maxRows: 10 })).rejects.toThrow(new TableReadError('The CSV file is empty.'));
  });

  it('reads every non-empty worksheet of an xlsx, with formula results, rich text and dates as text', async () => {
    const tables = await readTables(await workbookBuffer(), 'xlsx', { maxRows: 10 });
    expect(tables.map((table) => table.sheet)).toEqual(['Chain', 'Notes']);
    expect(tables[0].rows).toEqual([
      ['100', 'call', '1200'],
      ['105', 'put', '800'],
      ['110', 'call', '50'],
    ]);
    expect(tables[1].rows).toEqual([['2026-11-02', 'expiry']]);
    expect(tables[0].truncated).toBe(false);
  });

  it('refuses bytes that are not an xlsx archive, and legacy .xls with a way forward', async () => {
    await expect(readTables(Buffer.from('not,a,zip'), 'xlsx', { maxRows: 10 })).rejects.toBeInstanceOf(UnsafeArchiveError);
    await expect(readTables(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), 'xls', { maxRows: 10 })).rejects.toThrow(/save the sheet as \.xlsx or \.csv/);
  });
});

describe('assertSafeZip', () => {
  it('accepts a normal workbook and refuses one that unpacks past the cap', async () => {
    const data = await workbookBuffer();
    await expect(assertSafeZip(data)).resolves.toBeUndefined();
    await expect(assertSafeZip(data, { maxUnpackedBytes: 2_000, maxEntries: 100 })).rejects.toThrow(/unpacks to more than/);
    await expect(assertSafeZip(data, { maxUnpackedBytes: 10_000_000, maxEntries: 3 })).rejects.toThrow(/more than 3 entries/);
  });
});
