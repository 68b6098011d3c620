// File analysis: column types and statistics, and option-chain analytics checked against
// values worked out by hand for the fixture chain (src/server/ai/fixtures/option-chain.csv).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTables } from '../files/service.ts';
import { bigWorkbook } from '../testing/bigWorkbook.ts';
import { analyseFile, maxPain, parseNumber, profileColumn } from '../files/service.ts';
import { analyseUpload, ToolError } from './tools.ts';

const fixture = readFileSync(join(import.meta.dirname, 'fixtures', 'option-chain.csv'));

describe('parseNumber', () => {
  it('reads numbers as spreadsheets write them', () => {
    expect(parseNumber('1,234.5')).toBe(1234.5);
    expect(parseNumber('$12')).toBe(12);
    expect(parseNumber('45%')).toBe(45);
    expect(parseNumber('(3.2)')).toBe(-3.2);
    expect(parseNumber('-0.5')).toBe(-0.5);
    expect(parseNumber('1e3')).toBe(1000);
    expect(parseNumber('12,34')).toBeNaN();
    expect(parseNumber('call')).toBeNaN();
    expect(parseNumber('')).toBeNaN();
  });
});

describe('profileColumn', () => {
  it('types a numeric column and computes its statistics', () => {
    const profile = profileColumn('Close', ['10', '20', '', '30', '40']);
    expect(profile.type).toBe('number');
    expect(profile.count).toBe(4);
    expect(profile.missing).toBe(1);
    expect(profile.numeric).toEqual({ min: 10, max: 40, mean: 25, median: 25, sum: 100, std: Math.sqrt(500 / 3) });
  });

  it('types dates, booleans and text, with the most frequent values', () => {
    expect(profileColumn('Day', ['2026-11-01', '2026-11-03', '2026-10-30'])).toMatchObject({
      type: 'date',
      dates: { earliest: '2026-10-30', latest: '2026-11-03' },
    });
    expect(profileColumn('Filled', ['yes', 'no', 'Yes'])).toMatchObject({ type: 'boolean', text: { distinct: 2 } });
    expect(profileColumn('Side', ['buy', 'sell', 'buy', 'buy'])).toMatchObject({
      type: 'text',
      text: {
        distinct: 2,
        top: [
          { value: 'buy', count: 3 },
          { value: 'sell', count: 1 },
        ],
      },
    });
    expect(profileColumn('Nothing', ['', ' '])).toMatchObject({ type: 'empty', count: 0, missing: 2 });
  });
});

describe('maxPain', () => {
  it('is the listed strike where holders collect least, by brute force over a settlement grid', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(1000), fc.nat(1000)), { minLength: 12, maxLength: 12 }),
        (strikes, interest) => {
          const rows = strikes.map((strike, index) => ({
            strike,
            callOi: interest[index]![0],
            putOi: interest[index]![1],
          }));
          const result = maxPain(rows);
          if (rows.every((row) => row.callOi === 0 && row.putOi === 0)) return result === null;
          const payout = (settle: number) =>
            rows.reduce(
              (sum, row) =>
                sum + row.callOi * Math.max(0, settle - row.strike) + row.putOi * Math.max(0, row.strike - settle),
              0,
            );
          const best = Math.min(...rows.map((row) => payout(row.strike)));
          return result !== null && result.payout === best && payout(result.strike) === best;
        },
      ),
    );
  });
});

describe('option chain analytics', () => {
  it('gives the hand-computed put/call ratios, max pain and IV smile for the fixture chain', async () => {
    const analysis = analyseFile('option-chain.csv', await readTables(fixture, 'csv', { maxRows: 1000 }));
    const [table] = analysis.tables;
    expect(table!.rows).toBe(10);
    expect(table!.columns.map((column) => [column.name, column.type])).toEqual([
      ['Expiry', 'date'],
      ['Strike', 'number'],
      ['Type', 'text'],
      ['Last', 'number'],
      ['Volume', 'number'],
      ['Open Interest', 'number'],
      ['IV', 'number'],
    ]);
    const chain = table!.optionChain!;
    expect(chain.layout).toBe('long');
    expect(chain.columns).toMatchObject({
      strike: 'Strike',
      type: 'Type',
      openInterest: 'Open Interest',
      volume: 'Volume',
      iv: 'IV',
      expiry: 'Expiry',
    });
    const [expiry] = chain.expiries;
    expect(expiry!.expiry).toBe('2026-12-26');
    // Calls 100+200+500+300+200, puts 400+300+250+100+50.
    expect(expiry!.callOpenInterest).toBe(1300);
    expect(expiry!.putOpenInterest).toBe(1100);
    expect(expiry!.putCallOpenInterest).toBeCloseTo(1100 / 1300, 12);
    expect(expiry!.putCallVolume).toBeCloseTo(240 / 260, 12);
    // Payout at 100: calls 90 (100 x 10) + 95 (200 x 5) = 2000, puts 105 (100 x 5) + 110 (50 x 10) = 1000.
    expect(expiry!.maxPain).toEqual({ strike: 100, payout: 3000 });
    const smile: Array<[number, number, number]> = [
      [90, 62, 66],
      [95, 55, 57],
      [100, 50, 51],
      [105, 52, 53],
      [110, 58, 60],
    ];
    expect(expiry!.smile).toEqual(
      smile.map(([strike, callIv, putIv]) => ({
        strike,
        callIv: expect.closeTo(callIv, 9),
        putIv: expect.closeTo(putIv, 9),
      })),
    );
    expect(expiry!.smileShape).toMatch(/^smile: both wings above the minimum \(lowest 50\.5% at strike 100/);
  });

  it('reads a wide chain from Excel (Call OI / Put OI columns) and splits expiries', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Chain');
    sheet.addRow(['Expiration', 'Strike', 'Call OI', 'Call Volume', 'Put OI', 'Put Volume']);
    sheet.addRow(['2026-12-04', 50, 10, 1, 30, 3]);
    sheet.addRow(['2026-12-04', 60, 20, 2, 10, 1]);
    sheet.addRow(['2026-12-11', 50, 5, 0, 5, 0]);
    sheet.addRow(['2026-12-11', 60, 15, 4, 0, 0]);
    const data = Buffer.from(await workbook.xlsx.writeBuffer());
    const analysis = analyseFile('wide.xlsx', await readTables(data, 'xlsx', { maxRows: 100 }));
    const chain = analysis.tables[0]!.optionChain!;
    expect(chain.layout).toBe('wide');
    expect(chain.expiries.map((expiry) => [expiry.expiry, expiry.putCallOpenInterest, expiry.maxPain])).toEqual([
      // 50: calls 0, puts 10 x 10 = 100; 60: calls 10 x 10 = 100, puts 0 -> tie, the first listed wins.
      ['2026-12-04', 40 / 30, { strike: 50, payout: 100 }],
      // 50: puts 0 + calls 0 = 0 (the put at 60 has no OI); 60: calls 5 x 10 = 50.
      ['2026-12-11', 5 / 20, { strike: 50, payout: 0 }],
    ]);
    expect(chain.expiries[0]!.smile).toEqual([]);
  });

  it('says why a table with strikes is not a chain it can read', async () => {
    const tables = await readTables(Buffer.from('Strike,Notes\n100,hello\n'), 'csv', { maxRows: 10 });
    const [table] = analyseFile('notes.csv', tables).tables;
    expect(table!.optionChain).toBeNull();
    expect(table!.chainProblem).toMatch(/strike column \('Strike'\) but no call\/put open interest or volume/);
  });
});

describe('analyseUpload of a large attachment', () => {
  it('reads and analyses ~45,000 rows without holding the event loop', async () => {
    const book = await bigWorkbook({ sheetBytes: 11 * 1024 * 1024, level: 1 });
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const analysis = await analyseUpload('trades.xlsx', book.data, { maxBytes: 20 * 1024 * 1024, maxRows: 50_000 });
    delay.disable();
    expect(analysis.tables[0]).toMatchObject({ sheet: 'Trades', rows: book.dataRows });
    expect(analysis.tables[0]!.columns.map((column) => column.type)).toEqual([
      'date',
      'text',
      'text',
      'number',
      'number',
      'number',
      'text',
    ]);
    // The old reader parsed the whole workbook and computed the statistics on the event loop (seconds).
    expect(delay.max / 1e6).toBeLessThan(300);
  }, 60_000);

  it('refuses an attachment of ~150,000 rows (40 MB unpacked) by its row count without holding the event loop', async () => {
    const book = await bigWorkbook({ sheetBytes: 40 * 1024 * 1024, level: 1 });
    const delay = monitorEventLoopDelay({ resolution: 5 });
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    delay.enable();
    const started = performance.now();
    const refused = analyseUpload('trades.xlsx', book.data, { maxBytes: 20 * 1024 * 1024, maxRows: 50_000 });
    await expect(refused).rejects.toThrow(
      new ToolError(
        `'trades.xlsx' has ${book.dataRows.toLocaleString('en-US')} rows; the assistant analyses files of up to 50,000 rows a sheet. Trim or split the file and attach it again.`,
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    delay.disable();
    clearInterval(sampler);
    // The old reader loaded the whole workbook (17 s and ~1 GB here) before counting its rows.
    expect(seconds).toBeLessThan(10);
    expect((peak - baseline) / 1024 / 1024).toBeLessThan(400);
    expect(delay.max / 1e6).toBeLessThan(300);
  }, 120_000);

  it('refuses a file past the time budget with what to do', async () => {
    const book = await bigWorkbook({ sheetBytes: 11 * 1024 * 1024, level: 1 });
    const refused = analyseUpload('trades.xlsx', book.data, {
      maxBytes: 20 * 1024 * 1024,
      maxRows: 50_000,
      readTimeoutMs: 1,
    });
    await expect(refused).rejects.toBeInstanceOf(ToolError);
    await expect(refused).rejects.toThrow(
      /too large or complex to read here \(it took longer than 0\.001 s\)\. Split it into smaller files/,
    );
  }, 60_000);
});
