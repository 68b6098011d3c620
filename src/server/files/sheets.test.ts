// Linked Google spreadsheets against a local fake of Google: sheet names through the public
// xlsx export (with Google's redirect) and through the Sheets API for a sheet that is not
// public, the saved link, and every refusal: non-Google links (no request made), redirects
// off Google, private sheets without a key, missing sheets, a deadline, a bad API key.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { startFakeGoogle, type FakeGoogle } from '../testing/fakeGoogle.ts';
import { subscribedUser } from '../testing/users.ts';
import { parseGoogleSheetUrl } from '../../shared/schemas/files.ts';
import { DOMAIN_ERROR_STATUS, DomainError } from '../errors/domain.ts';
import { createSheetNameReader } from './sheets.ts';
import { jsonBody } from '../testing/http.ts';

const PUBLIC_ID = '1PublicSheetAbcdefghijklmnopqrstuvwxyz012345';
const PRIVATE_ID = '1PrivateSheetAbcdefghijklmnopqrstuvwxyz01234';
const PUBLISHED_ID = '2PACX-1vPublishedSheetAbcdefghijklmnopqrstu';
const sheetUrl = (id: string) => `https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`;

let google: FakeGoogle;
let elsewhere: { hits: number; url: string; close(): Promise<void> };

beforeAll(async () => {
  google = await startFakeGoogle();
  google.addSpreadsheet(PUBLIC_ID, { sheetNames: ['Watchlist', 'Trades 2026', 'Notes'], visibility: 'public' });
  google.addSpreadsheet(PRIVATE_ID, { sheetNames: ['Private Book', 'P&L'], visibility: 'private' });
  google.addSpreadsheet(PUBLISHED_ID, { sheetNames: ['Published'], visibility: 'published' });
  // A server that must never be reached: any redirect pointing here is refused unfollowed.
  let hits = 0;
  const server = createServer((_request, response) => {
    hits += 1;
    response.end('secret');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  elsewhere = {
    get hits() {
      return hits;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/latest/meta-data/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});

afterAll(async () => {
  await google?.close();
  await elsewhere?.close();
});

describe('parseGoogleSheetUrl', () => {
  it('takes only the spreadsheet id from https docs.google.com links', () => {
    expect(parseGoogleSheetUrl(sheetUrl(PUBLIC_ID))).toEqual({ kind: 'spreadsheet', id: PUBLIC_ID });
    expect(parseGoogleSheetUrl(`https://docs.google.com/spreadsheets/u/1/d/${PUBLIC_ID}/view`)).toEqual({
      kind: 'spreadsheet',
      id: PUBLIC_ID,
    });
    expect(parseGoogleSheetUrl(`https://docs.google.com/spreadsheets/d/e/${PUBLISHED_ID}/pubhtml`)).toEqual({
      kind: 'published',
      id: PUBLISHED_ID,
    });
    for (const refused of [
      `http://docs.google.com/spreadsheets/d/${PUBLIC_ID}/edit`,
      `https://docs.google.com.evil.example/spreadsheets/d/${PUBLIC_ID}/edit`,
      `https://evil.example/spreadsheets/d/${PUBLIC_ID}/edit`,
      `https://user:pass@docs.google.com/spreadsheets/d/${PUBLIC_ID}/edit`,
      `https://docs.google.com:8443/spreadsheets/d/${PUBLIC_ID}/edit`,
      `https://docs.google.com/document/d/${PUBLIC_ID}/edit`,
      'https://docs.google.com/spreadsheets/d/short/edit',
      `https://docs.google.com/spreadsheets/d/${PUBLIC_ID.slice(0, 30)}%2F..%2F/edit`,
      'not a url',
    ]) {
      expect(parseGoogleSheetUrl(refused)).toBeNull();
    }
  });
});

describe('POST /sheets/metadata and the saved link', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp({ GOOGLE_API_KEY: google.apiKey }, { googleSheets: google.location() });
  });
  afterAll(async () => {
    await test?.close();
  });

  it('answers the sheet names of a public sheet, saves the link, and restores it', async () => {
    const { browser } = await subscribedUser(test, 'sheets@example.com');
    expect((await browser.get('/api/sheets/linked')).json()).toEqual({ sheet_url: null });
    google.requests.length = 0;
    const response = await browser.post('/sheets/metadata', { sheet_url: ` ${sheetUrl(PUBLIC_ID)} ` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ sheet_names: ['Watchlist', 'Trades 2026', 'Notes'] });
    expect((await browser.get('/api/sheets/linked')).json()).toEqual({ sheet_url: sheetUrl(PUBLIC_ID) });
    // The export went through Google's redirect to the download URL; the API was not needed.
    expect(google.requests.map((request) => request.path)).toEqual([
      `/spreadsheets/d/${PUBLIC_ID}/export?format=xlsx`,
      expect.stringMatching(/^\/download\//),
    ]);

    const other = await subscribedUser(test, 'sheets-other@example.com');
    expect((await other.browser.get('/api/sheets/linked')).json()).toEqual({ sheet_url: null });

    expect((await browser.request('DELETE', '/api/sheets/linked')).json()).toEqual({ sheet_url: null });
    expect((await browser.get('/api/sheets/linked')).json()).toEqual({ sheet_url: null });
  });

  it('reads a sheet that is not public through the Sheets API with GOOGLE_API_KEY', async () => {
    const { browser } = await subscribedUser(test, 'sheets-private@example.com');
    google.requests.length = 0;
    const response = await browser.post('/sheets/metadata', { sheet_url: sheetUrl(PRIVATE_ID) });
    expect(response.json()).toEqual({ sheet_names: ['Private Book', 'P&L'] });
    expect(google.requests.map((request) => request.path)).toEqual([
      `/spreadsheets/d/${PRIVATE_ID}/export?format=xlsx`,
      `/v4/spreadsheets/${PRIVATE_ID}?fields=sheets.properties.title&key=***`,
    ]);
  });

  it('refuses a link that is not a Google Sheets link without fetching anything, and keeps the saved link', async () => {
    const { browser } = await subscribedUser(test, 'sheets-ssrf@example.com');
    await browser.post('/sheets/metadata', { sheet_url: sheetUrl(PUBLIC_ID) });
    google.requests.length = 0;
    for (const sheet_url of [
      'http://127.0.0.1:9/spreadsheets/d/x',
      elsewhere.url,
      `https://docs.google.com.evil.example/spreadsheets/d/${PUBLIC_ID}`,
      'file:///etc/passwd',
    ]) {
      const response = await browser.post('/sheets/metadata', { sheet_url });
      expect(response.statusCode).toBe(400);
      expect(jsonBody<{ error: string }>(response).error).toBe(
        'sheet_url: Paste a Google Sheets link (https://docs.google.com/spreadsheets/d/...).',
      );
    }
    expect(google.requests).toEqual([]);
    expect(elsewhere.hits).toBe(0);
    expect((await browser.get('/api/sheets/linked')).json()).toEqual({ sheet_url: sheetUrl(PUBLIC_ID) });
  });

  it('needs a subscriber', async () => {
    const response = await test.app.inject({
      method: 'POST',
      url: '/sheets/metadata',
      payload: { sheet_url: sheetUrl(PUBLIC_ID) },
    });
    expect(response.statusCode).toBe(401);
  });
});

describe('createSheetNameReader', () => {
  const expectHttpError = async (promise: Promise<unknown>, status: number, message: string | RegExp) => {
    const error = await promise.then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(DOMAIN_ERROR_STATUS[(error as DomainError).kind]).toBe(status);
    expect((error as DomainError).message).toMatch(message);
  };

  it('reads a sheet published to the web through its published export', async () => {
    const reader = createSheetNameReader({ location: google.location() });
    expect(await reader.sheetNames({ kind: 'published', id: PUBLISHED_ID })).toEqual(['Published']);
  });

  it('explains a sheet that is not public when there is no API key', async () => {
    const reader = createSheetNameReader({ location: google.location() });
    await expectHttpError(
      reader.sheetNames({ kind: 'spreadsheet', id: PRIVATE_ID }),
      422,
      /^This spreadsheet is not shared publicly\./,
    );
  });

  it('says when the spreadsheet does not exist, with or without a key', async () => {
    const missing = { kind: 'spreadsheet' as const, id: '1MissingSheetAbcdefghijklmnopqrstuvwxyz0123' };
    await expectHttpError(
      createSheetNameReader({ location: google.location() }).sheetNames(missing),
      404,
      'Google Sheets has no spreadsheet at that link.',
    );
  });

  it('never follows a redirect off Google', async () => {
    const id = '1RedirectSheetAbcdefghijklmnopqrstuvwxyz0123';
    google.redirectExportTo(id, elsewhere.url);
    const reader = createSheetNameReader({ location: google.location() });
    await expectHttpError(reader.sheetNames({ kind: 'spreadsheet', id }), 502, 'Error fetching sheet metadata');
    const plainHttpGoogle = '1HttpRedirectAbcdefghijklmnopqrstuvwxyz01234';
    google.redirectExportTo(plainHttpGoogle, 'http://doc-0s-4c-sheets.googleusercontent.com/export');
    await expectHttpError(
      reader.sheetNames({ kind: 'spreadsheet', id: plainHttpGoogle }),
      502,
      'Error fetching sheet metadata',
    );
    expect(elsewhere.hits).toBe(0);
  });

  it('stops after 3 redirects', async () => {
    const id = '1LoopingSheetAbcdefghijklmnopqrstuvwxyz01234';
    google.redirectExportTo(id, `/spreadsheets/d/${id}/export?format=xlsx`);
    google.requests.length = 0;
    await expectHttpError(
      createSheetNameReader({ location: google.location() }).sheetNames({ kind: 'spreadsheet', id }),
      502,
      'Error fetching sheet metadata',
    );
    expect(google.requests).toHaveLength(4);
  });

  it('gives up at the deadline', async () => {
    const id = '1HangingSheetAbcdefghijklmnopqrstuvwxyz01234';
    google.hangExport(id);
    const started = Date.now();
    await expectHttpError(
      createSheetNameReader({ location: google.location(300) }).sheetNames({ kind: 'spreadsheet', id }),
      504,
      'Google Sheets did not answer within 0.3 seconds.',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers the fallback text when Google refuses the API key', async () => {
    const reader = createSheetNameReader({ apiKey: 'wrong-key', location: google.location() });
    await expectHttpError(
      reader.sheetNames({ kind: 'spreadsheet', id: PRIVATE_ID }),
      502,
      'Error fetching sheet metadata',
    );
  });

  it('answers the fallback text when Google cannot be reached', async () => {
    const reader = createSheetNameReader({
      location: { docsBase: 'http://127.0.0.1:9', sheetsApiBase: 'http://127.0.0.1:9', timeoutMs: 2_000 },
    });
    await expectHttpError(
      reader.sheetNames({ kind: 'spreadsheet', id: PUBLIC_ID }),
      502,
      'Error fetching sheet metadata',
    );
  });
});
