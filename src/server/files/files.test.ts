// My Stuff's file API through the real app, run twice: on local disk and on S3 (a local
// S3-compatible fake). Uploads of every accepted kind, refusals by extension, MIME type,
// content, size and zip bomb with nothing left behind, uploads stopped mid-stream and
// interrupted, ownership (another user's file is a 404 everywhere), public files, previews,
// deletion, safe names, and reclaiming objects no row names.
import { text } from 'node:stream/consumers';
import { once } from 'node:events';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { files } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { startFakeS3, type FakeS3 } from '../testing/fakeS3.ts';
import { type Browser, jsonBody, parseJson } from '../testing/http.ts';
import {
  legacyXlsBytes,
  multipartBody,
  multipartHead,
  xlsxWorkbook,
  zipArchive,
  zipBomb,
  type MultipartPart,
} from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import { waitFor } from '../testing/waitFor.ts';
import { SPREADSHEET_MIME_TYPES, type FileEntry } from '../../shared/schemas/files.ts';
import { TEMP_PREFIX } from './disk.ts';
import { findFile, ORPHAN_MIN_AGE_MS, reclaimOrphanObjects, recordStoredFile } from './fileRecords.ts';
import { newStorageKey } from './storage.ts';
import { storeSpreadsheet } from './uploads.ts';
import type { FilePreview } from '../../shared/schemas/files.ts';

const CSV = 'text/csv';
const XLS = SPREADSHEET_MIME_TYPES.xls;
const XLSX = SPREADSHEET_MIME_TYPES.xlsx;
const MAX_MB = 8;
const TRADES_CSV = Buffer.from(
  'date,symbol,side,qty,price\n2026-01-02,BTC-USD,buy,0.5,97000\n2026-01-03,ETH-USD,sell,2,3400\n',
);
const STORED_NAME = /^(uploads\/)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(csv|xls|xlsx)$/;

const filePart = (data: Buffer, filename = 'trades.csv', contentType = CSV): MultipartPart => ({
  name: 'file',
  filename,
  contentType,
  data,
});

describe.each(['disk', 's3'] as const)('My Stuff files on %s storage', (variant) => {
  let test: TestApp;
  let s3: FakeS3 | undefined;
  let dataDir: string;
  let alice: { browser: Browser; userId: string };
  let bob: { browser: Browser; userId: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `watos-files-${variant}-`));
    s3 = variant === 's3' ? await startFakeS3() : undefined;
    // These tests upload more than the default 30 files a minute; quota.test.ts covers the limit.
    test = await createTestApp({
      DATA_DIR: dataDir,
      UPLOAD_MAX_MB: String(MAX_MB),
      UPLOAD_RATE_LIMIT_PER_MINUTE: '1000',
      ...s3?.env(),
    });
    expect(test.app.services.fileStorage.kind).toBe(variant);
    alice = await subscribedUser(test, `alice-${variant}@example.com`);
    bob = await subscribedUser(test, `bob-${variant}@example.com`);
  });

  afterAll(async () => {
    await test?.close();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Complete objects in storage. */
  async function storedObjects(): Promise<string[]> {
    if (s3) return [...s3.objects.keys()].sort();
    const names = await readdir(join(dataDir, 'uploads')).catch(() => [] as string[]);
    return names.filter((name) => !name.startsWith(TEMP_PREFIX)).sort();
  }

  /** Uploads in progress: temporary files on disk, open multipart uploads on S3. */
  async function partialObjects(): Promise<number> {
    if (s3) return s3.openUploads();
    const names = await readdir(join(dataDir, 'uploads')).catch(() => [] as string[]);
    return names.filter((name) => name.startsWith(TEMP_PREFIX)).length;
  }

  async function rowCount(): Promise<number> {
    const [row] = await test.database.db.select({ value: count() }).from(files);
    return row!.value;
  }

  async function snapshot() {
    return { objects: await storedObjects(), rows: await rowCount() };
  }

  async function expectNothingNewStored(before: { objects: string[]; rows: number }) {
    await waitFor(async () => (await partialObjects()) === 0, 'no partial objects');
    expect(await snapshot()).toEqual(before);
  }

  function upload(browser: Browser, parts: MultipartPart[]) {
    const { body, contentType } = multipartBody(parts);
    return test.app.inject({
      method: 'POST',
      url: '/upload',
      headers: { cookie: browser.cookieHeader, origin: test.config.publicUrl, 'content-type': contentType },
      payload: body,
    });
  }

  async function uploadOk(user: { browser: Browser; userId: string }, part: MultipartPart): Promise<FileEntry> {
    const response = await upload(user.browser, [{ name: 'user_id', value: user.userId }, part]);
    expect(response.json()).toMatchObject({ success: true });
    expect(response.statusCode).toBe(201);
    return jsonBody<{ file: FileEntry }>(response).file;
  }

  async function listedFiles(browser: Browser): Promise<FileEntry[]> {
    const response = await browser.get('/files');
    expect(response.statusCode).toBe(200);
    return jsonBody<{ files: FileEntry[] }>(response).files;
  }

  async function listen(): Promise<number> {
    if (!test.app.server.listening) await test.app.listen({ port: 0, host: '127.0.0.1' });
    return (test.app.server.address() as AddressInfo).port;
  }

  /**
   * Streams an upload over a real socket: the multipart head, then `chunk` repeatedly until
   * `totalBytes` are sent or the server answers. With `interruptAfter`, sending stops after
   * that many bytes and the connection is cut once `serverBusy` says the server is storing.
   */
  async function streamUpload(options: {
    totalBytes: number;
    chunk: Buffer;
    interruptAfter?: { bytes: number; serverBusy: () => Promise<boolean> };
  }) {
    const port = await listen();
    const { head, tail, contentType } = multipartHead(
      { user_id: alice.userId },
      { filename: 'big.csv', contentType: CSV },
    );
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/upload',
      headers: {
        cookie: alice.browser.cookieHeader,
        origin: test.config.publicUrl,
        'content-type': contentType,
        'transfer-encoding': 'chunked',
      },
    });
    request.on('error', () => undefined); // the server may close the connection on us
    let answered = false;
    const response = new Promise<{ status: number; body: string }>((resolve) => {
      request.on('response', (message: IncomingMessage) => {
        answered = true;
        void text(message).then((body) => resolve({ status: message.statusCode ?? 0, body }));
      });
    });
    request.write(head);
    let sent = 0;
    let interrupted = false;
    while (sent < options.totalBytes && !answered) {
      if (options.interruptAfter && sent >= options.interruptAfter.bytes) {
        await waitFor(options.interruptAfter.serverBusy, 'the server to be storing the upload');
        request.destroy();
        interrupted = true;
        break;
      }
      const flowing = request.write(options.chunk);
      sent += options.chunk.length;
      if (!flowing)
        await Promise.race([once(request, 'drain'), response, new Promise((resolve) => setTimeout(resolve, 50))]);
    }
    if (!interrupted && !answered) request.end(tail);
    return { sent, interrupted, response: interrupted ? null : await response, close: () => request.destroy() };
  }

  it('stores CSV, xlsx and xls uploads under server-made names and lists them with their sizes', async () => {
    const before = await storedObjects();
    const workbook = await xlsxWorkbook({
      Positions: [
        ['Symbol', 'Qty'],
        ['BTC', 1],
      ],
    });
    const xls = legacyXlsBytes();

    const csv = await uploadOk(alice, filePart(TRADES_CSV));
    expect(csv).toMatchObject({
      original_filename: 'trades.csv',
      file_size: TRADES_CSV.length,
      uploaded_by_user_id: alice.userId,
      url: `/files/${csv.id}/download`,
    });
    expect(Date.parse(csv.upload_date)).toBeGreaterThan(Date.now() - 60_000);
    // Windows browsers send the legacy Excel type for .csv files.
    const windowsCsv = await uploadOk(alice, filePart(TRADES_CSV, 'windows.csv', XLS));
    // The file may come before user_id in the form.
    const xlsxResponse = await upload(alice.browser, [
      filePart(workbook, 'positions.xlsx', XLSX),
      { name: 'user_id', value: alice.userId },
      { name: 'user_email', value: 'alice@example.com' },
    ]);
    expect(xlsxResponse.statusCode).toBe(201);
    const xlsx = jsonBody<{ file: FileEntry }>(xlsxResponse).file;
    const legacy = await uploadOk(alice, filePart(xls, 'old book.xls', XLS));

    expect(jsonBody<{ max_upload_bytes: number }>(await alice.browser.get('/files')).max_upload_bytes).toBe(
      MAX_MB * 1024 * 1024,
    );
    const listed = await listedFiles(alice.browser);
    const byId = new Map(listed.map((file) => [file.id, file]));
    expect(byId.get(csv.id)?.file_size).toBe(TRADES_CSV.length);
    expect(byId.get(windowsCsv.id)?.original_filename).toBe('windows.csv');
    expect(byId.get(xlsx.id)).toMatchObject({ original_filename: 'positions.xlsx', file_size: workbook.length });
    expect(byId.get(legacy.id)).toMatchObject({ original_filename: 'old book.xls', file_size: xls.length });

    const added = (await storedObjects()).filter((name) => !before.includes(name));
    expect(added).toHaveLength(4);
    for (const name of added) expect(name).toMatch(STORED_NAME);
    if (s3) expect(s3.objects.get(added.find((name) => name.endsWith('.xlsx'))!)?.body.equals(workbook)).toBe(true);
  });

  it('downloads a file as an attachment with its type, nosniff and the exact bytes', async () => {
    const workbook = await xlsxWorkbook({ Sheet: [['a'], ['b']] });
    const file = await uploadOk(alice, filePart(workbook, 'Q1 rapport; 50% (final) €.xlsx', XLSX));
    const response = await alice.browser.get(file.url);
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(workbook)).toBe(true);
    expect(response.headers['content-type']).toBe(XLSX);
    expect(response.headers['content-length']).toBe(String(workbook.length));
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="Q1 rapport_ 50_ (final) _.xlsx"; filename*=UTF-8''Q1%20rapport%3B%2050%25%20%28final%29%20%E2%82%AC.xlsx`,
    );

    const head = await test.app.inject({
      method: 'HEAD',
      url: file.url,
      headers: { cookie: alice.browser.cookieHeader },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(workbook.length));
    expect(head.rawPayload.length).toBe(0);

    const csv = await uploadOk(alice, filePart(TRADES_CSV));
    const csvDownload = await alice.browser.get(csv.url);
    expect(csvDownload.headers['content-type']).toBe('text/csv');
    expect(csvDownload.body).toBe(TRADES_CSV.toString());
  });

  it('refuses a wrong type by extension, by MIME type and by content, storing nothing', async () => {
    const before = await snapshot();
    const workbook = await xlsxWorkbook({ S: [['x']] });
    const cases: Array<[MultipartPart, number, RegExp]> = [
      [
        filePart(TRADES_CSV, 'notes.txt', CSV),
        415,
        /^Please select a CSV or Excel file\. Only \.csv, \.xls and \.xlsx files are accepted\.$/,
      ],
      [filePart(TRADES_CSV, 'trades.csv.exe', CSV), 415, /Only \.csv, \.xls and \.xlsx/],
      [
        filePart(TRADES_CSV, 'trades.csv', 'text/plain'),
        415,
        /^Please select a CSV or Excel file\. The file was sent as "text\/plain"/,
      ],
      [filePart(workbook, 'positions.xlsx', 'application/octet-stream'), 415, /sent as "application\/octet-stream"/],
      [filePart(workbook, 'disguised.csv', CSV), 415, /^The file's content is not a CSV \(plain text\) file/],
      [filePart(TRADES_CSV, 'fake.xlsx', XLSX), 415, /^The file's content is not an Excel \(\.xlsx\) workbook/],
      [
        filePart(await zipArchive([{ name: 'readme.txt', content: Buffer.from('hello') }]), 'archive.xlsx', XLSX),
        415,
        /holds no workbook/,
      ],
      [filePart(TRADES_CSV, 'fake.xls', XLS), 415, /^The file's content is not an Excel 97-2003 \(\.xls\) workbook/],
      [filePart(legacyXlsBytes(), 'binary.csv', CSV), 415, /not a CSV/],
      [filePart(Buffer.alloc(0), 'empty.csv', CSV), 422, /^The file is empty\.$/],
    ];
    for (const [part, status, message] of cases) {
      const response = await upload(alice.browser, [{ name: 'user_id', value: alice.userId }, part]);
      expect({ name: 'filename' in part ? part.filename : '', status: response.statusCode }).toEqual({
        name: 'filename' in part ? part.filename : '',
        status,
      });
      expect(jsonBody<{ error: string }>(response).error).toMatch(message);
    }
    await expectNothingNewStored(before);
  });

  it('answers a file field with no file chosen with 400, not a storage failure (fuzzing found a 503)', async () => {
    const before = await snapshot();
    // What a browser sends for an empty file input, and what FormData sends for a nameless blob.
    for (const disposition of ['form-data; name="file"; filename=""', 'form-data; name="file"']) {
      const boundary = 'NoFileChosen';
      const payload = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="user_id"\r\n\r\n${alice.userId}\r\n` +
          `--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--${boundary}--\r\n`,
      );
      const response = await test.app.inject({
        method: 'POST',
        url: '/upload',
        headers: {
          cookie: alice.browser.cookieHeader,
          origin: test.config.publicUrl,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload,
      });
      expect({ disposition, status: response.statusCode, error: jsonBody<{ error: string }>(response).error }).toEqual({
        disposition,
        status: 400,
        error: 'No file was sent; choose a CSV or Excel file.',
      });
    }
    await expectNothingNewStored(before);
  });

  it('refuses zip bombs, whether they declare their size or lie about it', async () => {
    const before = await snapshot();
    const honest = await zipBomb(250 * 1024 * 1024);
    expect(honest.length).toBeLessThan(MAX_MB * 1024 * 1024);
    const refused = await upload(alice.browser, [
      { name: 'user_id', value: alice.userId },
      filePart(honest, 'bomb.xlsx', XLSX),
    ]);
    expect(refused.statusCode).toBe(422);
    expect(jsonBody<{ error: string }>(refused).error).toBe(
      'The spreadsheet unpacks to more than 200 MB; it was refused.',
    );

    const lying = await zipBomb(250 * 1024 * 1024, { lieAboutSize: true });
    const alsoRefused = await upload(alice.browser, [
      { name: 'user_id', value: alice.userId },
      filePart(lying, 'liar.xlsx', XLSX),
    ]);
    expect(alsoRefused.statusCode).toBe(422);
    expect(jsonBody<{ error: string }>(alsoRefused).error).toBe('The file is not a valid spreadsheet archive.');
    await expectNothingNewStored(before);
  });

  it('refuses files over UPLOAD_MAX_MB with a clear 413, storing nothing', async () => {
    const before = await snapshot();
    const oversizeCsv = Buffer.alloc(MAX_MB * 1024 * 1024 + 1, 'a');
    const csv = await upload(alice.browser, [
      { name: 'user_id', value: alice.userId },
      filePart(oversizeCsv, 'huge.csv'),
    ]);
    expect(csv.statusCode).toBe(413);
    expect(jsonBody<{ error: string }>(csv).error).toBe(`The file is larger than the ${MAX_MB} MB upload limit.`);

    const oversizeXlsx = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(MAX_MB * 1024 * 1024)]);
    const xlsx = await upload(alice.browser, [
      { name: 'user_id', value: alice.userId },
      filePart(oversizeXlsx, 'huge.xlsx', XLSX),
    ]);
    expect(xlsx.statusCode).toBe(413);
    expect(jsonBody<{ error: string }>(xlsx).error).toBe(`The file is larger than the ${MAX_MB} MB upload limit.`);

    // Exactly at the limit is fine.
    const atLimit = Buffer.alloc(MAX_MB * 1024 * 1024, 'b');
    const accepted = await uploadOk(alice, filePart(atLimit, 'at-limit.csv'));
    expect(accepted.file_size).toBe(atLimit.length);
    const response = await alice.browser.request('DELETE', `/files/${accepted.id}`);
    expect(response.statusCode).toBe(200);
    await expectNothingNewStored(before);
  });

  it('answers 413 while an oversize upload is still streaming, long before its end', async () => {
    const before = await snapshot();
    const totalBytes = 64 * 1024 * 1024;
    const upload = await streamUpload({
      totalBytes,
      chunk: Buffer.from('2026-01-02,BTC-USD,buy,0.5,97000\n'.repeat(2000)),
    });
    upload.close();
    expect(upload.response?.status).toBe(413);
    expect(parseJson<{ error: string }>(upload.response!.body).error).toBe(
      `The file is larger than the ${MAX_MB} MB upload limit.`,
    );
    expect(upload.sent).toBeLessThan(totalBytes / 2);
    await expectNothingNewStored(before);
  });

  it('leaves no object, partial object or row when the client goes away mid-upload', async () => {
    const before = await snapshot();
    // Past one 5 MB part, so on S3 a multipart upload is under way when the client vanishes.
    const upload = await streamUpload({
      totalBytes: 32 * 1024 * 1024,
      chunk: Buffer.from('2026-01-02,ETH-USD,sell,2,3400\n'.repeat(2000)),
      interruptAfter: { bytes: 6 * 1024 * 1024, serverBusy: async () => (await partialObjects()) > 0 },
    });
    expect(upload.interrupted).toBe(true);
    await waitFor(async () => (await partialObjects()) === 0, 'the partial upload to be cleaned up');
    if (s3) expect(s3.abortedUploads()).toBeGreaterThan(0);
    await expectNothingNewStored(before);
  });

  it("never shows user B user A's file: listing, download, preview and delete all answer 404", async () => {
    const secret = await uploadOk(alice, filePart(TRADES_CSV, 'alice-secret.csv'));
    expect((await listedFiles(bob.browser)).map((file) => file.id)).not.toContain(secret.id);

    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['GET', `/files/${secret.id}/download`],
      ['GET', `/files/${secret.id}/preview`],
      ['DELETE', `/files/${secret.id}`],
    ] as const) {
      const theirs = await bob.browser.request(method, path);
      const nobodys = await bob.browser.request(method, path.replace(secret.id, missing));
      expect(theirs.statusCode).toBe(404);
      // Exactly like a file that does not exist: no hint that it does.
      expect(theirs.json()).toEqual(nobodys.json());
      expect(theirs.json()).toEqual({ error: 'File not found' });
    }
    expect((await listedFiles(alice.browser)).map((file) => file.id)).toContain(secret.id);
    expect((await alice.browser.get(secret.url)).body).toBe(TRADES_CSV.toString());
  });

  it('requires a subscriber, and user_id must be that subscriber', async () => {
    const before = await snapshot();
    const anonymous = await test.app.inject({
      method: 'POST',
      url: '/upload',
      headers: { 'content-type': multipartBody([filePart(TRADES_CSV)]).contentType },
      payload: multipartBody([filePart(TRADES_CSV)]).body,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(jsonBody<{ error: string }>(anonymous).error).toBe('Please log in first');
    expect((await test.app.inject({ method: 'GET', url: '/files' })).statusCode).toBe(401);

    const forged = await upload(bob.browser, [{ name: 'user_id', value: alice.userId }, filePart(TRADES_CSV)]);
    expect(forged.statusCode).toBe(403);
    expect(jsonBody<{ error: string }>(forged).error).toBe('You can only upload files to your own account.');
    const forgedAfter = await upload(bob.browser, [filePart(TRADES_CSV), { name: 'user_id', value: alice.userId }]);
    expect(forgedAfter.statusCode).toBe(403);
    const withoutUser = await upload(bob.browser, [filePart(TRADES_CSV)]);
    expect(withoutUser.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(withoutUser).error).toBe('user_id is required.');
    const noFile = await upload(bob.browser, [{ name: 'user_id', value: bob.userId }]);
    expect(noFile.statusCode).toBe(400);
    const twoFiles = await upload(bob.browser, [
      { name: 'user_id', value: bob.userId },
      filePart(TRADES_CSV),
      filePart(TRADES_CSV, 'again.csv'),
    ]);
    expect(twoFiles.statusCode).toBe(400);
    const json = await bob.browser.post('/upload', { file: 'x' });
    expect(json.statusCode).toBe(415);
    await expectNothingNewStored(before);
  });

  it('keeps a path-traversal or odd file name only as data, never as a storage path', async () => {
    const before = await storedObjects();
    const names: Array<[string, string]> = [
      ['../../../etc/evil.csv', 'evil.csv'],
      ['..\\..\\windows\\system32\\evil2.csv', 'evil2.csv'],
      ['/absolute/path/report.csv', 'report.csv'],
      ['tab\tand\u0000nul.csv', 'tabandnul.csv'],
      [`${'x'.repeat(300)}.csv`, `${'x'.repeat(196)}.csv`],
    ];
    for (const [sent, kept] of names) {
      const file = await uploadOk(alice, filePart(TRADES_CSV, sent));
      expect(file.original_filename).toBe(kept);
      const download = await alice.browser.get(file.url);
      expect(download.headers['content-disposition']).toMatch(
        /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/,
      );
    }
    const added = (await storedObjects()).filter((name) => !before.includes(name));
    expect(added).toHaveLength(names.length);
    for (const name of added) expect(name).toMatch(STORED_NAME);
    if (!s3) {
      // Nothing was written beside or above the uploads folder (besides the generated secrets).
      expect((await readdir(dataDir)).sort()).toEqual(['auth-secret', 'uploads', 'vapid-keys.json']);
      expect(await readdir(join(dataDir, '..'))).not.toContain('evil.csv');
    }
  });

  it('shows public files to everyone, downloadable, but only an operator may remove them', async () => {
    const stored = await storeSpreadsheet(
      test.app.services.fileStorage,
      { source: Readable.from([TRADES_CSV]), filename: 'market-calendar.csv', mimeType: CSV },
      { maxBytes: MAX_MB * 1024 * 1024 },
    );
    const row = await recordStoredFile(test.database.db, test.app.services.fileStorage, stored, null);
    for (const user of [alice, bob]) {
      const listed = (await listedFiles(user.browser)).find((file) => file.id === row.id);
      expect(listed).toMatchObject({
        original_filename: 'market-calendar.csv',
        uploaded_by_user_id: null,
        file_size: TRADES_CSV.length,
      });
      expect((await user.browser.get(listed!.url)).body).toBe(TRADES_CSV.toString());
    }
    const refused = await bob.browser.request('DELETE', `/files/${row.id}`);
    expect(refused.statusCode).toBe(403);
    expect(jsonBody<{ error: string }>(refused).error).toBe('Public files can only be removed by an operator.');
    expect((await listedFiles(bob.browser)).map((file) => file.id)).toContain(row.id);
  });

  it('previews the first rows of a CSV and of each worksheet, and explains a legacy .xls', async () => {
    const rows = Array.from(
      { length: 30 },
      (_, index) => `2026-01-${String(index + 1).padStart(2, '0')},BTC-USD,${90_000 + index}`,
    );
    const csv = await uploadOk(alice, filePart(Buffer.from(`date,symbol,close\n${rows.join('\n')}\n`), 'closes.csv'));
    const preview = await alice.browser.get(`/files/${csv.id}/preview`);
    expect(preview.statusCode).toBe(200);
    const [table] = jsonBody<FilePreview>(preview).tables;
    expect(table).toMatchObject({ sheet: null, columns: ['date', 'symbol', 'close'], totalRows: 30, truncated: true });
    expect(table!.rows).toHaveLength(20);
    expect(table!.rows[0]).toEqual(['2026-01-01', 'BTC-USD', '90000']);

    const workbook = await xlsxWorkbook({
      Longs: [
        ['Symbol', 'Qty'],
        ['SOL', 10],
      ],
      Shorts: [
        ['Symbol', 'Qty'],
        ['DOGE', 500],
      ],
    });
    const xlsx = await uploadOk(alice, filePart(workbook, 'book.xlsx', XLSX));
    const sheets = jsonBody<FilePreview>(await alice.browser.get(`/files/${xlsx.id}/preview`)).tables;
    expect(sheets.map((sheet) => [sheet.sheet, sheet.rows])).toEqual([
      ['Longs', [['SOL', '10']]],
      ['Shorts', [['DOGE', '500']]],
    ]);

    const xls = await uploadOk(alice, filePart(legacyXlsBytes(), 'legacy.xls', XLS));
    const legacy = await alice.browser.get(`/files/${xls.id}/preview`);
    expect(legacy.statusCode).toBe(422);
    expect(jsonBody<{ error: string }>(legacy).error).toMatch(/save the sheet as \.xlsx or \.csv/);
  });

  it('deletes the owner’s file: the row and the stored object are gone', async () => {
    const before = await snapshot();
    const file = await uploadOk(alice, filePart(TRADES_CSV, 'to-delete.csv'));
    expect((await storedObjects()).length).toBe(before.objects.length + 1);
    const deleted = await alice.browser.request('DELETE', `/files/${file.id}`);
    expect(deleted.json()).toEqual({ success: true });
    expect((await listedFiles(alice.browser)).map((entry) => entry.id)).not.toContain(file.id);
    expect((await alice.browser.get(file.url)).statusCode).toBe(404);
    expect((await alice.browser.request('DELETE', `/files/${file.id}`)).statusCode).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it('removes the stored object again when its row cannot be written', async () => {
    const before = await snapshot();
    const stored = await storeSpreadsheet(
      test.app.services.fileStorage,
      { source: Readable.from([TRADES_CSV]), filename: 'orphan.csv', mimeType: CSV },
      { maxBytes: MAX_MB * 1024 * 1024 },
    );
    expect((await storedObjects()).length).toBe(before.objects.length + 1);
    // No such user: the foreign key refuses the row.
    await expect(
      recordStoredFile(test.database.db, test.app.services.fileStorage, stored, 'no-such-user'),
    ).rejects.toThrow();
    expect(await snapshot()).toEqual(before);
  });

  it('reclaims objects no row names once they are an hour old, and nothing else', async () => {
    const storage = test.app.services.fileStorage;
    const kept = await uploadOk(alice, filePart(TRADES_CSV, 'kept.csv'));
    const before = await snapshot();
    const keptKey = (await findFile(test.database.db, kept.id))!.storageKey;
    const orphanOld = newStorageKey('csv');
    const orphanNew = newStorageKey('xlsx');
    await storage.put(orphanOld, Readable.from([TRADES_CSV]), CSV);
    await storage.put(orphanNew, Readable.from([TRADES_CSV]), XLSX);
    const listed = [];
    for await (const object of storage.list()) listed.push(object.key);
    expect(listed.sort()).toEqual(
      [...before.objects.map((name) => name.replace(/^uploads\//, '')), orphanOld, orphanNew].sort(),
    );

    // The kept file's object and one orphan are two hours old; the other orphan is new.
    const twoHoursAgo = new Date(Date.now() - 2 * ORPHAN_MIN_AGE_MS);
    for (const key of [keptKey, orphanOld]) {
      if (s3) s3.objects.get(`uploads/${key}`)!.modifiedAt = twoHoursAgo;
      else utimesSync(join(dataDir, 'uploads', key), twoHoursAgo, twoHoursAgo);
    }
    expect(await reclaimOrphanObjects(test.database.db, storage)).toEqual({ objects: 1, uploads: 0 });
    const after = await storedObjects();
    expect(after.some((name) => name.endsWith(orphanOld))).toBe(false);
    expect(after.some((name) => name.endsWith(orphanNew))).toBe(true);
    const download = await alice.browser.get(kept.url);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(TRADES_CSV)).toBe(true);

    await storage.delete(orphanNew);
    expect(await snapshot()).toEqual(before);
  });

  it.runIf(variant === 's3')('answers 503 when the bucket is unreachable and leaves nothing behind', async () => {
    const before = await snapshot();
    s3!.failNext(20);
    const response = await upload(alice.browser, [{ name: 'user_id', value: alice.userId }, filePart(TRADES_CSV)]);
    s3!.failNext(0);
    expect(response.statusCode).toBe(503);
    expect(jsonBody<{ error: string }>(response).error).toBe(
      'The file could not be stored right now. Please try again.',
    );
    await expectNothingNewStored(before);
    const [row] = await test.database.db
      .select({ value: count() })
      .from(files)
      .where(eq(files.uploadedByUserId, alice.userId));
    expect(row!.value).toBeGreaterThan(0);
  });
});
