// A local fake of the two Google endpoints My Stuff reads sheet names from, on 127.0.0.1:
// the Docs xlsx export (answered like Google: a redirect to a download URL that serves the
// workbook, or to the sign-in page for a sheet that is not public) and the Sheets API
// (`/v4/spreadsheets/{id}?fields=sheets.properties.title&key=...`). Workbooks are real xlsx
// files built with exceljs.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import ExcelJS from 'exceljs';
import type { GoogleSheetsLocation } from '../files/service.ts';

interface FakeSpreadsheet {
  sheetNames: string[];
  /** public: the export works; private: only the Sheets API (with the key) reads it; published: /d/e/{id}/pub works. */
  visibility: 'public' | 'private' | 'published';
}

export interface FakeGoogle {
  origin: string;
  apiKey: string;
  /** Every request received, with the `key` query parameter masked. */
  requests: Array<{ method: string; path: string }>;
  location(timeoutMs?: number): GoogleSheetsLocation;
  addSpreadsheet(id: string, sheet: FakeSpreadsheet): void;
  /** The export of `id` answers with a redirect to `url` (any host). */
  redirectExportTo(id: string, url: string): void;
  /** The export of `id` never answers. */
  hangExport(id: string): void;
  close(): Promise<void>;
}

async function workbook(sheetNames: string[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const name of sheetNames) book.addWorksheet(name).addRow(['Symbol', 'Price']);
  return Buffer.from(await book.xlsx.writeBuffer());
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const sheets = new Map<string, FakeSpreadsheet>();
  const redirects = new Map<string, string>();
  const hanging = new Set<string>();
  const downloads = new Map<string, string>();
  const requests: FakeGoogle['requests'] = [];
  const apiKey = `fake-key-${randomBytes(6).toString('hex')}`;
  let origin = '';

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', origin);
    const masked = new URL(url);
    if (masked.searchParams.has('key')) masked.searchParams.set('key', '***');
    requests.push({ method: request.method ?? 'GET', path: `${masked.pathname}${masked.search}` });
    let match: RegExpExecArray | null;

    if ((match = /^\/spreadsheets\/d\/(?:e\/)?([^/]+)\/(export|pub)$/.exec(url.pathname))) {
      const [, id, kind] = match;
      if (hanging.has(id!)) return; // never answered: the client's deadline must end it
      const redirect = redirects.get(id!);
      if (redirect) {
        response.writeHead(307, { location: redirect });
        return void response.end();
      }
      const sheet = sheets.get(id!);
      const published = kind === 'pub';
      if (!sheet || published !== (sheet.visibility === 'published')) {
        response.writeHead(404, { 'content-type': 'text/html' });
        return void response.end('<html>Sorry, unable to open the file at this time.</html>');
      }
      if (sheet.visibility === 'private') {
        response.writeHead(302, {
          location: `https://accounts.google.com/ServiceLogin?continue=${encodeURIComponent(url.toString())}`,
        });
        return void response.end();
      }
      // Like Google: the export redirects to a short-lived download URL.
      const token = randomBytes(8).toString('hex');
      downloads.set(token, id!);
      response.writeHead(307, { location: `/download/${token}` });
      return void response.end();
    }
    if ((match = /^\/download\/([^/]+)$/.exec(url.pathname))) {
      const id = downloads.get(match[1]!);
      const sheet = id ? sheets.get(id) : undefined;
      if (!sheet) {
        response.writeHead(404);
        return void response.end();
      }
      const data = await workbook(sheet.sheetNames);
      response.writeHead(200, {
        'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'content-length': data.length,
      });
      return void response.end(data);
    }
    if ((match = /^\/v4\/spreadsheets\/([^/]+)$/.exec(url.pathname))) {
      if (url.searchParams.get('key') !== apiKey) {
        return json(response, 400, {
          error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' },
        });
      }
      if (url.searchParams.get('fields') !== 'sheets.properties.title')
        return json(response, 400, { error: { code: 400, message: 'Bad fields', status: 'INVALID_ARGUMENT' } });
      const sheet = sheets.get(match[1]!);
      if (!sheet || sheet.visibility === 'published')
        return json(response, 404, {
          error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' },
        });
      return json(response, 200, { sheets: sheet.sheetNames.map((title) => ({ properties: { title } })) });
    }
    response.writeHead(404);
    response.end();
  }

  const server = createServer((request, response) => {
    route(request, response).catch((failure: unknown) => json(response, 500, { error: { message: String(failure) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The fake Google did not get a port');
  origin = `http://127.0.0.1:${address.port}`;

  return {
    origin,
    apiKey,
    requests,
    location: (timeoutMs = 10_000) => ({ docsBase: origin, sheetsApiBase: origin, timeoutMs }),
    addSpreadsheet: (id, sheet) => void sheets.set(id, sheet),
    redirectExportTo: (id, url) => void redirects.set(id, url),
    hangExport: (id) => void hanging.add(id),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
