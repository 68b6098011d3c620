// Sheet names of a linked Google spreadsheet (POST /sheets/metadata). A public sheet is read
// through its xlsx export (Google answers with a redirect to *.googleusercontent.com); one
// that is not public is read through the Sheets API when GOOGLE_API_KEY is set. No SSRF:
// only the spreadsheet id is taken from the user's link and every URL is built here; the
// export follows at most 3 redirects, each only to docs.google.com or *.googleusercontent.com
// over https; the whole call has one 10 s deadline and the download a size cap. Of the
// export only xl/workbook.xml is read, in a worker of the spreadsheet reader pool.
import { z } from 'zod';
import { DomainError, notFound, unavailable, unprocessable } from '../errors/domain.ts';
import { readCapped } from '../http/cappedRead.ts';
import { FILE_TEXTS, type GoogleSheetRef } from '../../shared/schemas/files.ts';
import { readXlsxSheetNames, SheetReaderBusyError, SheetReadTimeoutError } from './tableReader.ts';
import { UnsafeArchiveError } from './zipGuard.ts';

/** Where Google lives. Production always uses the defaults; tests point both at a local fake. */
export interface GoogleSheetsLocation {
  /** Origin serving /spreadsheets/d/{id}/export. */
  docsBase: string;
  /** Origin serving the Sheets API (/v4/spreadsheets/{id}). */
  sheetsApiBase: string;
  /** Deadline of one metadata lookup, in milliseconds. */
  timeoutMs: number;
}

const GOOGLE_SHEETS: GoogleSheetsLocation = {
  docsBase: 'https://docs.google.com',
  sheetsApiBase: 'https://sheets.googleapis.com',
  timeoutMs: 10_000,
};

const MAX_REDIRECTS = 3;
/** Largest export we download just to read sheet names. */
const MAX_EXPORT_BYTES = 50 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const NOT_PUBLIC =
  "This spreadsheet is not shared publicly. In Google Sheets choose Share > 'Anyone with the link' (Viewer), or ask the operator to set GOOGLE_API_KEY.";
const NOT_FOUND = 'Google Sheets has no spreadsheet at that link.';

class NotPublicError extends DomainError {
  constructor() {
    super('unprocessable', NOT_PUBLIC);
  }
}

const upstreamFailure = () => new DomainError('upstream', FILE_TEXTS.sheetMetadataFailed);

export interface SheetNameReader {
  sheetNames(ref: GoogleSheetRef): Promise<string[]>;
}

export function createSheetNameReader(options: {
  apiKey?: string;
  location?: GoogleSheetsLocation;
  log?: { warn(object: object, message: string): void };
}): SheetNameReader {
  const location = options.location ?? GOOGLE_SHEETS;
  const docsOrigin = new URL(location.docsBase).origin;

  /** Where the export may send us: Google's document and download hosts over https (or the configured docs origin itself). */
  function redirectAllowed(target: URL): boolean {
    if (target.username || target.password) return false;
    if (target.origin === docsOrigin) return true;
    if (target.protocol !== 'https:' || target.port !== '') return false;
    return target.hostname === 'docs.google.com' || target.hostname.endsWith('.googleusercontent.com');
  }

  async function fetchExport(url: URL, signal: AbortSignal): Promise<Response> {
    let current = url;
    for (let hop = 0; ; hop += 1) {
      const response = await fetch(current, { redirect: 'manual', signal });
      if (!REDIRECT_STATUSES.has(response.status)) return response;
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (!location || hop >= MAX_REDIRECTS) throw upstreamFailure();
      const next = new URL(location, current);
      // Google sends the signed-out visitor of a private sheet to its sign-in page.
      if (next.hostname === 'accounts.google.com') throw new NotPublicError();
      if (!redirectAllowed(next)) {
        options.log?.warn({ redirectHost: next.host }, 'Google Sheets export redirected off Google; not followed');
        throw upstreamFailure();
      }
      current = next;
    }
  }

  async function readBody(response: Response): Promise<Buffer> {
    const declared = Number(response.headers.get('content-length') ?? 0);
    const tooLarge = () => unprocessable('The spreadsheet is too large to read its sheet names.');
    if (declared > MAX_EXPORT_BYTES) throw tooLarge();
    if (!response.body) return Buffer.alloc(0);
    return readCapped(response.body, { maxBytes: MAX_EXPORT_BYTES, tooLarge });
  }

  async function namesFromExport(ref: GoogleSheetRef, signal: AbortSignal): Promise<string[]> {
    const path =
      ref.kind === 'published'
        ? `/spreadsheets/d/e/${ref.id}/pub?output=xlsx`
        : `/spreadsheets/d/${ref.id}/export?format=xlsx`;
    const response = await fetchExport(new URL(path, location.docsBase), signal);
    if (response.status === 401 || response.status === 403) throw new NotPublicError();
    if (response.status === 404) throw notFound(NOT_FOUND);
    if (!response.ok) throw upstreamFailure();
    // A sign-in or consent page instead of the workbook means the sheet is not public.
    if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
      await response.body?.cancel();
      throw new NotPublicError();
    }
    const data = await readBody(response);
    try {
      // Only xl/workbook.xml is read (in a worker, within the time budget): no cell is parsed.
      return await readXlsxSheetNames(data, { timeoutMs: location.timeoutMs, handOver: true });
    } catch (error) {
      if (error instanceof UnsafeArchiveError)
        throw unprocessable(`Google's export of this spreadsheet was refused: ${error.message}`);
      if (error instanceof SheetReadTimeoutError)
        throw unprocessable(
          `This spreadsheet is too large or complex to read its sheet names (it took longer than ${error.seconds} s).`,
        );
      if (error instanceof SheetReaderBusyError) throw unavailable(error.message);
      throw upstreamFailure();
    }
  }

  const apiAnswer = z.object({
    sheets: z.array(z.object({ properties: z.object({ title: z.string() }) })).default([]),
  });
  const apiError = z.object({ error: z.object({ message: z.string().optional(), status: z.string().optional() }) });

  async function namesFromApi(id: string, apiKey: string, signal: AbortSignal): Promise<string[]> {
    const url = new URL(`/v4/spreadsheets/${encodeURIComponent(id)}`, location.sheetsApiBase);
    url.searchParams.set('fields', 'sheets.properties.title');
    url.searchParams.set('key', apiKey);
    const response = await fetch(url, { redirect: 'error', signal, headers: { accept: 'application/json' } });
    const body: unknown = await response.json().catch(() => null);
    if (response.ok) {
      const parsed = apiAnswer.safeParse(body);
      if (!parsed.success) throw upstreamFailure();
      return parsed.data.sheets.map((sheet) => sheet.properties.title);
    }
    const detail = apiError.safeParse(body);
    const status = detail.success ? detail.data.error.status : undefined;
    if (response.status === 404) throw notFound(NOT_FOUND);
    if (response.status === 403 && status === 'PERMISSION_DENIED') {
      throw unprocessable(
        'Google refused access to this spreadsheet. Share it with "Anyone with the link" (Viewer) so the Sheets API can read it.',
      );
    }
    // Never echo the request URL: it carries the API key.
    options.log?.warn(
      { status: response.status, googleStatus: status },
      'Google Sheets API refused a metadata request',
    );
    throw upstreamFailure();
  }

  return {
    async sheetNames(ref) {
      const signal = AbortSignal.timeout(location.timeoutMs);
      try {
        try {
          return await namesFromExport(ref, signal);
        } catch (error) {
          if (error instanceof NotPublicError && options.apiKey && ref.kind === 'spreadsheet')
            return await namesFromApi(ref.id, options.apiKey, signal);
          throw error;
        }
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (signal.aborted)
          throw new DomainError(
            'timeout',
            `Google Sheets did not answer within ${Number((location.timeoutMs / 1000).toFixed(1))} seconds.`,
          );
        options.log?.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'Google Sheets metadata request failed',
        );
        throw upstreamFailure();
      }
    },
  };
}
