// My Stuff's HTTP API (docs/SPEC.md section 7), registered in the dashboard scope so every route
// needs a subscriber: GET /files, POST /upload, GET /files/{id}/download (the listed `url`),
// GET /files/{id}/preview, DELETE /files/{id}, the versions of a file (GET /files/{id}/versions,
// GET /files/{id}/versions/{version}/download, DELETE /files/{id}/versions/{version}),
// POST /sheets/metadata and the saved link at /api/sheets/linked. Another user's private file
// answers 404 everywhere, exactly like a file that does not exist.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { conflict, DomainError, forbidden, invalid, notFound, unavailable, unprocessable } from '../errors/domain.ts';
import { readCapped } from '../http/cappedRead.ts';
import { multipartFailure } from '../http/multipart.ts';
import { requireUser } from '../http/requestUser.ts';
import { perUserLimit } from '../http/rateLimit.ts';
import {
  deleteFileResultSchema,
  fileIdParams,
  fileListSchema,
  filePreviewSchema,
  fileVersionListSchema,
  fileVersionParams,
  linkedSheetSchema,
  parseGoogleSheetUrl,
  sanitizeDisplayName,
  sheetMetadataBody,
  sheetMetadataSchema,
  uploadResultSchema,
} from '../../shared/schemas/files.ts';
import {
  bytesQuotaError,
  fileVersionCounts,
  findFileVersion,
  findVisibleFile,
  listFileVersions,
  listVisibleFiles,
  quotaRefusal,
  quotaUsage,
  recordStoredFile,
  removeEarlierVersion,
  removeFile,
  toFileEntry,
  toFileVersionEntry,
  type FileQuota,
  type FileRow,
  type FileVersion,
} from './fileRecords.ts';
import { loadLinkedSheet, saveLinkedSheet, unlinkSheet } from './service.ts';
import type { SheetNameReader } from './sheets.ts';
import { StoredObjectMissingError, type FileStorage } from './storageTypes.ts';
import {
  DEFAULT_SHEET_READ_TIMEOUT_MS,
  readTables,
  SheetReaderBusyError,
  SheetReadTimeoutError,
  spreadsheetKindOf,
  TableReadError,
  warmSpreadsheetReader,
} from './tableReader.ts';
import { storeSpreadsheet, tooLargeError, type StoredSpreadsheet } from './uploads.ts';
import { UnsafeArchiveError } from './zipGuard.ts';

/** Rows, columns and tables a preview shows at most. */
const PREVIEW_LIMITS = { rows: 20, columns: 50, tables: 10 } as const;

const fileNotFound = () => notFound('File not found');
const versionNotFound = () => notFound('This file has no such version.');
const publicFileForbidden = () => forbidden('Public files can only be removed by an operator.');
const noFileSent = () => invalid('No file was sent; choose a CSV or Excel file.');
const oneFileOnly = 'Send exactly one file, in the field "file".';

/** RFC 6266 / 5987: an ASCII fallback name plus the exact UTF-8 name. */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%;]/g, '_').trim() || 'download';
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * After refusing an upload before its body was read to the end: discard what is still in
 * flight, so the sender can read the answer, and close the connection once answered. Left
 * paused, the connection would sit open holding unread bytes.
 */
function dropRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  reply.header('Connection', 'close');
  // Detach the multipart parser first: its own clean-up would otherwise pause the request again.
  raw.unpipe();
  raw.resume();
  // A sender that keeps going after the answer is cut off.
  const timer = setTimeout(() => raw.destroy(), 5_000);
  timer.unref();
  raw.once('close', () => clearTimeout(timer));
}

export interface FileRoutesOptions {
  db: Database;
  storage: FileStorage;
  /** UPLOAD_MAX_MB in bytes. */
  maxUploadBytes: number;
  /** FILES_MAX_PER_USER and FILES_MAX_TOTAL_MB (in bytes). */
  quota: FileQuota;
  /** UPLOAD_RATE_LIMIT_PER_MINUTE: upload attempts per user and window. */
  uploadRateLimit: { max: number; windowMs: number };
  /** SHEET_READ_TIMEOUT_MS: a preview taking longer is stopped and answers 422. */
  sheetReadTimeoutMs?: number;
  /** Start a spreadsheet reader worker at once (production), not at the first preview. */
  warmSheetReader?: boolean;
}

/** The app's services the file routes use (a part of AppServices, named here so files/ needs no import of app.ts). */
export interface FileRouteServices {
  config: Config;
  database: { db: Database };
  fileStorage: FileStorage;
}

/** The file routes' options from the app's services and configuration. */
export function fileRouteOptions(services: FileRouteServices): FileRoutesOptions {
  const { config } = services;
  return {
    db: services.database.db,
    storage: services.fileStorage,
    maxUploadBytes: config.UPLOAD_MAX_MB * 1024 * 1024,
    quota: { maxFiles: config.FILES_MAX_PER_USER, maxBytes: Math.floor(config.FILES_MAX_TOTAL_MB * 1024 * 1024) },
    uploadRateLimit: { max: config.UPLOAD_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
    sheetReadTimeoutMs: config.SHEET_READ_TIMEOUT_MS,
    warmSheetReader: config.NODE_ENV === 'production',
  };
}

export async function fileRoutes(app: FastifyInstance, options: FileRoutesOptions): Promise<void> {
  const { db, storage, maxUploadBytes, quota } = options;
  const sheetReadTimeoutMs = options.sheetReadTimeoutMs ?? DEFAULT_SHEET_READ_TIMEOUT_MS;
  if (options.warmSheetReader) warmSpreadsheetReader();
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const limitUploads = perUserLimit({
    name: 'upload',
    max: options.uploadRateLimit.max,
    windowMs: options.uploadRateLimit.windowMs,
    message: (wait) =>
      `You are uploading too fast (at most ${options.uploadRateLimit.max} files a minute). Please wait ${wait} and try again.`,
  });

  async function openStored(storageKey: string): Promise<Readable> {
    try {
      return await storage.get(storageKey);
    } catch (error) {
      if (error instanceof StoredObjectMissingError) {
        app.log.error({ storageKey }, 'a listed file has no stored object');
        throw notFound("The file's content is missing from storage.");
      }
      throw error;
    }
  }

  routes.get('/files', { schema: { response: { 200: fileListSchema } } }, async (request) => {
    const rows = await listVisibleFiles(db, requireUser(request).id);
    const versions = await fileVersionCounts(
      db,
      rows.filter((row) => row.version > 1).map((row) => row.id),
    );
    return {
      files: rows.map((row) => toFileEntry(row, versions.get(row.id) ?? 1)),
      max_upload_bytes: maxUploadBytes,
    };
  });

  routes.post(
    '/upload',
    {
      config: { rateLimit: limitUploads },
      // A refused upload (the rate limit's 429 included) stops reading the rest of its body.
      onError: (request, reply, _error, done) => {
        dropRestOfBody(request, reply);
        done();
      },
      schema: { response: { 201: uploadResultSchema } },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw new DomainError(
          'unsupported',
          'Send the upload as multipart/form-data with the fields file and user_id.',
        );
      const userId = requireUser(request).id;
      // A full account is refused before a byte is read; the room left also stops a file that
      // outgrows it while streaming. The locked check when the row is written is the one that
      // holds against concurrent uploads (recordStoredFile).
      const usage = await quotaUsage(db, userId);
      const full = quotaRefusal(usage, quota, 0);
      if (full) {
        dropRestOfBody(request, reply);
        throw full;
      }
      const room = {
        remainingBytes: quota.maxBytes - usage.bytes,
        error: () => bytesQuotaError(usage, quota.maxBytes),
      };
      const wrongUser = () => forbidden('You can only upload files to your own account.');
      let claimedUserId: string | undefined;
      let stored: StoredSpreadsheet | null = null;
      const discard = async () => {
        if (stored)
          await storage
            .delete(stored.storageKey)
            .catch((error: unknown) => request.log.error({ err: error }, 'could not remove a refused upload'));
        stored = null;
      };

      try {
        for await (const part of request.parts({ limits: { fileSize: maxUploadBytes } })) {
          if (part.type === 'field') {
            // user_email is accepted for docs/SPEC.md's payload but not needed: the session names the user.
            if (part.fieldname === 'user_id') {
              claimedUserId = String(part.value);
              if (claimedUserId !== userId) throw wrongUser();
            }
            continue;
          }
          if (part.fieldname !== 'file' || stored) {
            part.file.destroy();
            throw invalid(oneFileOnly);
          }
          // An empty file input (or a nameless blob) sends a file part without a file name.
          if (!part.filename) {
            part.file.destroy();
            throw noFileSent();
          }
          stored = await storeSpreadsheet(
            storage,
            { source: part.file, filename: part.filename, mimeType: part.mimetype },
            { maxBytes: maxUploadBytes, quota: room },
          );
        }
      } catch (error) {
        await discard();
        dropRestOfBody(request, reply);
        throw multipartFailure(error, {
          fileTooLarge: () => tooLargeError(maxUploadBytes),
          tooManyFiles: oneFileOnly,
          malformed: 'The upload is not a well-formed multipart form.',
          otherFailure: (failure) => {
            request.log.error({ err: failure }, 'upload could not be stored');
            return unavailable('The file could not be stored right now. Please try again.');
          },
        });
      }

      if (!stored) throw noFileSent();
      // user_id may follow the file in the form: then the stored object waits for it here.
      if (claimedUserId !== userId) {
        await discard();
        throw claimedUserId === undefined ? invalid('user_id is required.') : wrongUser();
      }
      // A file with the name of one the user owns becomes its new version (same id).
      const row = await recordStoredFile(db, storage, stored, userId, quota);
      return reply.code(201).send({ success: true, file: toFileEntry(row, row.versions) });
    },
  );

  /** The download's headers for one version of a file (the current one by default). */
  function downloadHeaders(reply: FastifyReply, row: FileRow, version: Pick<FileVersion, 'contentType' | 'fileSize'>) {
    reply
      .header('Content-Type', version.contentType)
      .header('Content-Length', version.fileSize)
      // Rows stored before upload names were sanitised may still hold bidi or invisible characters.
      .header('Content-Disposition', attachmentDisposition(sanitizeDisplayName(row.originalFilename) || 'download'))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'private, no-store');
  }

  /** The download's headers for a file the user may read; 404 otherwise. */
  async function prepareDownload(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const row = await findVisibleFile(db, request.params.id, requireUser(request).id);
    if (!row) throw fileNotFound();
    downloadHeaders(reply, row, row);
    return row;
  }

  /** Version {version} of a file the user may read, with the download's headers set; 404 otherwise. */
  async function prepareVersionDownload(
    request: FastifyRequest<{ Params: { id: string; version: number } }>,
    reply: FastifyReply,
  ) {
    const row = await findVisibleFile(db, request.params.id, requireUser(request).id);
    if (!row) throw fileNotFound();
    const version = await findFileVersion(db, row, request.params.version);
    if (!version) throw versionNotFound();
    downloadHeaders(reply, row, version);
    return version;
  }

  // Fastify's automatic HEAD would read the whole object just to discard it. The download is
  // the file's bytes, not JSON: no response schema.
  routes.get(
    '/files/:id/download',
    { schema: { params: fileIdParams }, exposeHeadRoute: false, compress: false },
    async (request, reply) => {
      const row = await prepareDownload(request, reply);
      return reply.send(await openStored(row.storageKey));
    },
  );
  routes.head('/files/:id/download', { schema: { params: fileIdParams }, compress: false }, async (request, reply) => {
    await prepareDownload(request, reply);
    return reply.send();
  });

  // A public file has exactly one version: public files are an operator's, never versioned.
  routes.get(
    '/files/:id/versions',
    { schema: { params: fileIdParams, response: { 200: fileVersionListSchema } } },
    async (request) => {
      const row = await findVisibleFile(db, request.params.id, requireUser(request).id);
      if (!row) throw fileNotFound();
      return {
        file_id: row.id,
        original_filename: sanitizeDisplayName(row.originalFilename),
        versions: (await listFileVersions(db, row)).map((version) => toFileVersionEntry(row, version)),
      };
    },
  );

  routes.get(
    '/files/:id/versions/:version/download',
    { schema: { params: fileVersionParams }, exposeHeadRoute: false, compress: false },
    async (request, reply) => {
      const version = await prepareVersionDownload(request, reply);
      return reply.send(await openStored(version.storageKey));
    },
  );
  routes.head(
    '/files/:id/versions/:version/download',
    { schema: { params: fileVersionParams }, compress: false },
    async (request, reply) => {
      await prepareVersionDownload(request, reply);
      return reply.send();
    },
  );

  // Frees an earlier version's room in the quota; the current version goes only with the file.
  routes.delete(
    '/files/:id/versions/:version',
    { schema: { params: fileVersionParams, response: { 200: deleteFileResultSchema } } },
    async (request) => {
      const row = await findVisibleFile(db, request.params.id, requireUser(request).id);
      if (!row) throw fileNotFound();
      if (row.uploadedByUserId === null) throw publicFileForbidden();
      if (request.params.version === row.version)
        throw conflict('This is the current version of the file. Delete the file to remove it.');
      if (!(await removeEarlierVersion(db, storage, row, request.params.version))) throw versionNotFound();
      return { success: true as const };
    },
  );

  routes.get(
    '/files/:id/preview',
    { schema: { params: fileIdParams, response: { 200: filePreviewSchema } } },
    async (request) => {
      const row = await findVisibleFile(db, request.params.id, requireUser(request).id);
      if (!row) throw fileNotFound();
      const kind = spreadsheetKindOf(row.storageKey);
      if (!kind) throw unprocessable('This file cannot be previewed.');
      const data = await readCapped(await openStored(row.storageKey), {
        maxBytes: Math.max(maxUploadBytes, row.fileSize),
        expectedBytes: row.fileSize,
        tooLarge: () => unprocessable('The file is too large to preview.'),
      });
      try {
        // Read in a worker, only as far as the preview shows, within the time budget.
        const tables = await readTables(data, kind, {
          maxRows: PREVIEW_LIMITS.rows,
          maxColumns: PREVIEW_LIMITS.columns,
          maxTables: PREVIEW_LIMITS.tables,
          timeoutMs: sheetReadTimeoutMs,
          handOver: true,
        });
        return {
          tables: tables.slice(0, PREVIEW_LIMITS.tables).map((table) => ({
            ...table,
            columns: table.columns.slice(0, PREVIEW_LIMITS.columns),
            rows: table.rows.map((cells) => cells.slice(0, PREVIEW_LIMITS.columns)),
          })),
        };
      } catch (error) {
        if (error instanceof SheetReadTimeoutError) {
          throw unprocessable(
            `This spreadsheet is too large or complex to preview here (it took longer than ${error.seconds} s). Download it or split it into smaller files.`,
          );
        }
        if (error instanceof SheetReaderBusyError)
          throw unavailable('Previews are busy right now; try again in a moment.');
        if (error instanceof TableReadError || error instanceof UnsafeArchiveError) throw unprocessable(error.message);
        throw error;
      }
    },
  );

  routes.delete(
    '/files/:id',
    { schema: { params: fileIdParams, response: { 200: deleteFileResultSchema } } },
    async (request) => {
      const row = await findVisibleFile(db, request.params.id, requireUser(request).id);
      if (!row) throw fileNotFound();
      if (row.uploadedByUserId === null) throw publicFileForbidden();
      // Every version goes with the file, and so does their room in the quota.
      await removeFile(db, storage, row);
      return { success: true as const };
    },
  );
}

export async function sheetRoutes(
  app: FastifyInstance,
  options: { db: Database; reader: SheetNameReader },
): Promise<void> {
  const { db, reader } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/sheets/metadata',
    { schema: { body: sheetMetadataBody, response: { 200: sheetMetadataSchema } } },
    async (request) => {
      const sheetUrl = request.body.sheet_url;
      // The body schema already refused anything that is not a Google Sheets link.
      const sheetNames = await reader.sheetNames(parseGoogleSheetUrl(sheetUrl)!);
      await saveLinkedSheet(db, requireUser(request).id, sheetUrl);
      return { sheet_names: sheetNames };
    },
  );

  routes.get('/api/sheets/linked', { schema: { response: { 200: linkedSheetSchema } } }, async (request) => ({
    sheet_url: await loadLinkedSheet(db, requireUser(request).id),
  }));

  routes.delete('/api/sheets/linked', { schema: { response: { 200: linkedSheetSchema } } }, async (request) => {
    await unlinkSheet(db, requireUser(request).id);
    return { sheet_url: null };
  });
}
