// File names with bidi controls and other invisible characters: one sanitiser
// (sanitizeDisplayName) strips them from the stored and shown name, and the extension check
// runs on what is stored, so a name can neither disguise its real extension nor hide one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { files } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { multipartBody } from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import { sanitizeDisplayName } from '../../shared/schemas/files.ts';
import { recordStoredFile } from './fileRecords.ts';
import { safeOriginalFilename, storeSpreadsheet } from './uploads.ts';
import { jsonBody } from '../testing/http.ts';
import type { FileEntry } from '../../shared/schemas/files.ts';

const TRADES_CSV = Buffer.from('date,symbol,qty\n2026-01-02,BTC-USD,1\n');

/** Every character the sanitiser must remove, by name. */
const INVISIBLE: Array<[string, string]> = [
  ['LEFT-TO-RIGHT MARK', '\u200E'],
  ['RIGHT-TO-LEFT MARK', '\u200F'],
  ['LEFT-TO-RIGHT EMBEDDING', '\u202A'],
  ['RIGHT-TO-LEFT EMBEDDING', '\u202B'],
  ['POP DIRECTIONAL FORMATTING', '\u202C'],
  ['LEFT-TO-RIGHT OVERRIDE', '\u202D'],
  ['RIGHT-TO-LEFT OVERRIDE', '\u202E'],
  ['LEFT-TO-RIGHT ISOLATE', '\u2066'],
  ['RIGHT-TO-LEFT ISOLATE', '\u2067'],
  ['FIRST STRONG ISOLATE', '\u2068'],
  ['POP DIRECTIONAL ISOLATE', '\u2069'],
  ['ARABIC LETTER MARK', '\u061C'],
  ['ZERO WIDTH SPACE', '\u200B'],
  ['ZERO WIDTH NO-BREAK SPACE (BOM)', '\uFEFF'],
  ['WORD JOINER', '\u2060'],
  ['LINE SEPARATOR', '\u2028'],
  ['PARAGRAPH SEPARATOR', '\u2029'],
  ['NUL', '\u0000'],
  ['ESCAPE', '\u001B'],
  ['DELETE', '\u007F'],
  ['C1 CSI', '\u009B'],
  ['lone surrogate', '\uD800'],
];

describe('sanitizeDisplayName', () => {
  it.each(INVISIBLE)('removes %s', (_name, character) => {
    expect(sanitizeDisplayName(`trades${character}2026${character}.csv`)).toBe('trades2026.csv');
  });

  it('keeps ordinary letters, scripts and emoji, and trims', () => {
    expect(sanitizeDisplayName('  Q1 rapport €, 日本株, تداول 📈.xlsx ')).toBe('Q1 rapport €, 日本株, تداول 📈.xlsx');
    // NFC: a decomposed é is stored composed.
    expect(sanitizeDisplayName('cafe\u0301.csv')).toBe('café.csv');
  });

  it('is what safeOriginalFilename uses', () => {
    expect(safeOriginalFilename('C:\\fakes\\invoice\u202Eslx.csv')).toBe('invoiceslx.csv');
  });
});

describe('uploaded file names', () => {
  let test: TestApp;
  let dataDir: string;
  let alice: Awaited<ReturnType<typeof subscribedUser>>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watos-names-'));
    test = await createTestApp({ DATA_DIR: dataDir });
    alice = await subscribedUser(test, 'names-alice@example.com');
  });
  afterAll(async () => {
    await test?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function upload(filename: string, contentType = 'text/csv') {
    const { body, contentType: type } = multipartBody([
      { name: 'user_id', value: alice.userId },
      { name: 'file', filename, contentType, data: TRADES_CSV },
    ]);
    return test.app.inject({
      method: 'POST',
      url: '/upload',
      headers: { cookie: alice.browser.cookieHeader, origin: test.config.publicUrl, 'content-type': type },
      payload: body,
    });
  }

  it('stores and lists the name without bidi controls, so it shows its real extension', async () => {
    // Shown with the override, the end of the name is drawn reversed; stored, it is plain.
    const workbookName = await upload('trades\u202Evsc.csv');
    expect(workbookName.statusCode).toBe(201);
    expect(jsonBody<{ file: FileEntry }>(workbookName).file.original_filename).toBe('tradesvsc.csv');
    const isolated = await upload('\u2067positions\u2069\u200F.csv');
    expect(jsonBody<{ file: FileEntry }>(isolated).file.original_filename).toBe('positions.csv');

    const listed = jsonBody<{ files: FileEntry[] }>(await alice.browser.get('/files')).files as Array<{
      id: string;
      original_filename: string;
    }>;
    for (const file of listed) expect(file.original_filename).not.toMatch(/[\u200E\u200F\u202A-\u202E\u2066-\u2069]/);
    const download = await alice.browser.get(`/files/${jsonBody<{ file: FileEntry }>(workbookName).file.id}/download`);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="tradesvsc.csv"; filename*=UTF-8''tradesvsc.csv`,
    );
    const rows = await test.database.db.select({ name: files.originalFilename }).from(files);
    expect(rows.map((row) => row.name).sort()).toEqual(['positions.csv', 'tradesvsc.csv']);
  });

  it('checks the extension of the sanitised name', async () => {
    // An executable dressed as a spreadsheet by an override stays refused.
    const disguised = await upload('invoice\u202Eslx.exe');
    expect(disguised.statusCode).toBe(415);
    // An extension split by an invisible character is the extension the stored name shows.
    const split = await upload('journal.cs\u200Bv');
    expect(split.statusCode).toBe(201);
    expect(jsonBody<{ file: FileEntry }>(split).file.original_filename).toBe('journal.csv');
    // A name that is only invisible characters has no extension at all.
    expect((await upload('\u202E\u200B')).statusCode).toBe(415);
  });

  it('cleans names stored before the sanitiser on the way out', async () => {
    const storage = test.app.services.fileStorage;
    const stored = await storeSpreadsheet(
      storage,
      { source: Readable.from([TRADES_CSV]), filename: 'legacy.csv', mimeType: 'text/csv' },
      { maxBytes: 1024 * 1024 },
    );
    // As an older server wrote it: the override kept.
    const row = await recordStoredFile(
      test.database.db,
      storage,
      { ...stored, originalFilename: 'old\u202Evsc.xlsx' },
      alice.userId,
    );
    const listed = jsonBody<{ files: FileEntry[] }>(await alice.browser.get('/files')).files as Array<{
      id: string;
      original_filename: string;
    }>;
    expect(listed.find((file) => file.id === row.id)?.original_filename).toBe('oldvsc.xlsx');
    const download = await alice.browser.get(`/files/${row.id}/download`);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="oldvsc.xlsx"; filename*=UTF-8''oldvsc.xlsx`,
    );
  });
});
