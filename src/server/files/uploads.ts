// Upload validation for My Stuff, shared by POST /upload and the operator's publish-file:
// a spreadsheet is accepted only when its extension (.csv/.xls/.xlsx), its declared MIME type
// (one of docs/SPEC.md's three) and its content (text without NUL bytes, the OLE signature, or an
// xlsx zip that passes the zip-bomb guard) all agree, and it fits UPLOAD_MAX_MB. CSV and xls
// stream straight into storage while being checked; an xlsx is held in memory up to the
// limit because its zip directory sits at the end. Any failure leaves nothing stored.
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import yauzl from 'yauzl';
import { DomainError, tooLarge, unprocessable } from '../errors/domain.ts';
import { readCapped } from '../http/cappedRead.ts';
import {
  isAcceptedUploadMimeType,
  sanitizeDisplayName,
  SPREADSHEET_MIME_TYPES,
  type SpreadsheetKind,
} from '../../shared/schemas/files.ts';
import { newStorageKey, type FileStorage } from './storageTypes.ts';
import { spreadsheetKindOf } from './tableReader.ts';
import { assertSafeZip, DEFAULT_ZIP_LIMITS, UnsafeArchiveError, type ZipGuardLimits } from './zipGuard.ts';

export interface IncomingSpreadsheet {
  /** The bytes, as they arrive. Busboy's file streams signal the size limit with a 'limit' event. */
  source: Readable;
  /** The name the client gave; kept only as data. */
  filename: string;
  /** The MIME type the client declared. */
  mimeType: string;
}

export interface StoredSpreadsheet {
  storageKey: string;
  kind: SpreadsheetKind;
  contentType: string;
  size: number;
  originalFilename: string;
}

export interface UploadLimits {
  maxBytes: number;
  zipLimits?: ZipGuardLimits;
  /**
   * The room left in the uploader's quota: a file growing past it is refused with `error` while
   * it streams, not after it was stored. (The authoritative check comes when its row is written.)
   */
  quota?: { remainingBytes: number; error: () => DomainError };
}

/** OLE2 compound document signature of legacy .xls files. */
const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const MAX_FILENAME_LENGTH = 200;

const KIND_LABELS: Record<SpreadsheetKind, string> = {
  csv: 'a CSV (plain text) file',
  xls: 'an Excel 97-2003 (.xls) workbook',
  xlsx: 'an Excel (.xlsx) workbook',
};

export const tooLargeError = (maxBytes: number) =>
  tooLarge(`The file is larger than the ${+(maxBytes / 1024 / 1024).toFixed(2)} MB upload limit.`);

const contentMismatch = (kind: SpreadsheetKind, detail = '') =>
  new DomainError('unsupported', `The file's content is not ${KIND_LABELS[kind]}${detail}, so it was refused.`);

/**
 * The name a client gave, reduced to something safe to show and to put in a download header:
 * the last path segment (either separator), no control, bidi or other invisible characters
 * (sanitizeDisplayName), at most 200 characters with the extension kept. It never reaches a
 * storage path.
 */
export function safeOriginalFilename(name: string): string {
  const lastSegment = name.split(/[\\/]/).pop() ?? '';
  const cleaned = sanitizeDisplayName(lastSegment);
  if (cleaned.length <= MAX_FILENAME_LENGTH) return cleaned;
  const extension = /\.[A-Za-z0-9]{1,8}$/.exec(cleaned)?.[0] ?? '';
  return `${cleaned.slice(0, MAX_FILENAME_LENGTH - extension.length)}${extension}`;
}

/** Checks name and declared type before a byte is read; answers the spreadsheet kind. */
function acceptedKind(filename: string, mimeType: string): SpreadsheetKind {
  const kind = spreadsheetKindOf(filename);
  if (!kind)
    throw new DomainError(
      'unsupported',
      'Please select a CSV or Excel file. Only .csv, .xls and .xlsx files are accepted.',
    );
  if (!isAcceptedUploadMimeType(mimeType)) {
    throw new DomainError(
      'unsupported',
      `Please select a CSV or Excel file. The file was sent as "${mimeType || 'no type'}", which is not a CSV or Excel type.`,
    );
  }
  return kind;
}

/** Counts bytes, enforces the size limit, and checks the content of a streamed CSV or xls. */
class ContentGuard extends Transform {
  bytes = 0;
  private head = Buffer.alloc(0);

  constructor(
    private readonly kind: 'csv' | 'xls',
    private readonly limits: UploadLimits,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    const overflow = limitError(this.bytes, this.limits);
    if (overflow) return done(overflow);
    if (this.kind === 'csv' && chunk.includes(0))
      return done(contentMismatch('csv', ' (it holds binary data; save it as CSV UTF-8)'));
    if (this.kind === 'xls' && this.head.length < OLE_SIGNATURE.length) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, OLE_SIGNATURE.length - this.head.length)]);
      if (!OLE_SIGNATURE.subarray(0, this.head.length).equals(this.head)) return done(contentMismatch('xls'));
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.bytes === 0) return done(unprocessable('The file is empty.'));
    if (this.kind === 'xls' && this.head.length < OLE_SIGNATURE.length) return done(contentMismatch('xls'));
    done();
  }
}

/** The refusal for a file that has grown to `bytes`: over the upload limit or the quota's room. */
function limitError(bytes: number, limits: UploadLimits): DomainError | null {
  if (bytes > limits.maxBytes) return tooLargeError(limits.maxBytes);
  if (limits.quota && bytes > limits.quota.remainingBytes) return limits.quota.error();
  return null;
}

/** Reads the whole source into memory, refusing it once it passes the limits. */
async function readLimited(source: Readable, limits: UploadLimits): Promise<Buffer> {
  const { maxBytes } = limits;
  // Busboy stops at the limit and only says so with 'limit': fail right there, not once the
  // sender has finished sending the rest.
  source.once('limit', () => source.destroy(tooLargeError(maxBytes)));
  // The first byte past the upload limit or the quota's room fails the read with that refusal.
  const data = await readCapped(source, {
    maxBytes: Math.min(maxBytes, limits.quota?.remainingBytes ?? Infinity),
    tooLarge: (total) => limitError(total, limits) ?? tooLargeError(maxBytes),
  });
  if ((source as Readable & { truncated?: boolean }).truncated) throw tooLargeError(maxBytes);
  return data;
}

/** The entry names of a zip archive, read from its central directory (nothing is inflated). */
function zipEntryNames(data: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: false }, (error, zip) => {
      if (error || !zip) return reject(new UnsafeArchiveError('The file is not a valid spreadsheet archive.'));
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => names.push(entry.fileName));
      zip.on('end', () => resolve(names));
      zip.on('error', () => reject(new UnsafeArchiveError('The file is not a valid spreadsheet archive.')));
    });
  });
}

async function checkXlsx(data: Buffer, zipLimits: ZipGuardLimits): Promise<void> {
  if (data.length === 0) throw unprocessable('The file is empty.');
  if (!data.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE)) throw contentMismatch('xlsx');
  try {
    await assertSafeZip(data, zipLimits);
    if (!(await zipEntryNames(data)).includes('xl/workbook.xml'))
      throw contentMismatch('xlsx', ' (the archive holds no workbook)');
  } catch (error) {
    if (error instanceof UnsafeArchiveError) throw unprocessable(error.message);
    throw error;
  }
}

/**
 * Validates an incoming spreadsheet and streams it into storage under a new key. Resolves
 * with what was stored; rejects (a DomainError for anything the sender can fix) with nothing
 * left in storage.
 */
export async function storeSpreadsheet(
  storage: FileStorage,
  incoming: IncomingSpreadsheet,
  limits: UploadLimits,
): Promise<StoredSpreadsheet> {
  const { source } = incoming;
  const originalFilename = safeOriginalFilename(incoming.filename);
  let kind: SpreadsheetKind;
  try {
    kind = acceptedKind(originalFilename, incoming.mimeType);
  } catch (error) {
    source.destroy();
    throw error;
  }
  const storageKey = newStorageKey(kind);
  const contentType = SPREADSHEET_MIME_TYPES[kind];

  if (kind === 'xlsx') {
    const data = await readLimited(source, limits);
    await checkXlsx(data, limits.zipLimits ?? DEFAULT_ZIP_LIMITS);
    await storage.put(storageKey, Readable.from([data]), contentType);
    return { storageKey, kind, contentType, size: data.length, originalFilename };
  }

  const guard = new ContentGuard(kind, limits);
  // Busboy stops at the limit and only says so with 'limit': fail the upload right there.
  const onLimit = () => guard.destroy(tooLargeError(limits.maxBytes));
  source.once('limit', onLimit);
  // Errors of either stream reach storage.put through `guard`, which pipeline destroys.
  pipeline(source, guard, () => source.off('limit', onLimit));
  try {
    await storage.put(storageKey, guard, contentType);
  } catch (error) {
    // The sender's fault (too large, not a CSV) wins over whatever storage made of it: on S3 a
    // refused body also fails the multipart upload, and a failing abort after it must not turn
    // a 413 or 415 into a 503 "try again".
    const refusal = guard.errored;
    // Storage may fail without consuming the body (bucket down): release both streams.
    guard.destroy();
    source.destroy();
    if (refusal instanceof DomainError) throw refusal;
    throw error;
  }
  return { storageKey, kind, contentType, size: guard.bytes, originalFilename };
}
