// Zip-bomb guard for OOXML spreadsheets (.xlsx files are zip archives). assertSafeZip (the
// upload check) inflates an archive once with yauzl, which checks every entry's real size
// against its declared one, and stops as soon as the unpacked total passes the cap. openZip
// (the readers) checks the central directory instead and inflates only the entries, and only
// as far, as a reader asks, each stopped the moment it inflates past its declared size.
import { Readable, Transform } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';

export class UnsafeArchiveError extends Error {}

export interface ZipGuardLimits {
  /** Largest unpacked size of all entries together, in bytes. */
  maxUnpackedBytes: number;
  /** Most entries an archive may hold. */
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipGuardLimits = { maxUnpackedBytes: 200 * 1024 * 1024, maxEntries: 10_000 };

/** Resolves when `data` is a readable zip within the limits; rejects with UnsafeArchiveError otherwise. */
export function assertSafeZip(data: Buffer, limits: ZipGuardLimits = DEFAULT_ZIP_LIMITS): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true, validateEntrySizes: true }, (openError, zip) => {
      if (openError || !zip) {
        reject(new UnsafeArchiveError('The file is not a valid spreadsheet archive.'));
        return;
      }
      let unpacked = 0;
      let entries = 0;
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        zip.close();
        reject(new UnsafeArchiveError(message));
      };
      const tooLarge = `The spreadsheet unpacks to more than ${Math.round(limits.maxUnpackedBytes / 1024 / 1024)} MB; it was refused.`;

      zip.on('error', () => fail('The file is not a valid spreadsheet archive.'));
      zip.on('end', () => {
        if (settled) return;
        settled = true;
        resolve();
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        entries += 1;
        if (entries > limits.maxEntries)
          return fail(`The spreadsheet archive holds more than ${limits.maxEntries} entries; it was refused.`);
        if (unpacked + entry.uncompressedSize > limits.maxUnpackedBytes) return fail(tooLarge);
        if (/\/$/.test(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return fail('The file is not a valid spreadsheet archive.');
          stream.on('data', (chunk: Buffer) => {
            unpacked += chunk.length;
            if (unpacked > limits.maxUnpackedBytes) {
              stream.destroy();
              fail(tooLarge);
            }
          });
          // yauzl raises an error when an entry inflates beyond its declared size.
          stream.on('error', () => fail('The file is not a valid spreadsheet archive.'));
          stream.on('end', () => {
            if (!settled) zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** One archive opened for reading single entries on demand (see openZip). */
export interface ZipReader {
  /** Whether the archive holds the entry (part names compare without case, as OOXML says). */
  has(name: string): boolean;
  /** The entry's unpacked bytes as a stream; it errors when the entry inflates past its declared size. */
  open(name: string): Promise<Readable>;
  close(): void;
}

/** Inflates in 256 KiB pieces: yauzl's own stream (16 KiB) takes several times as long for the same bytes. */
const INFLATE_CHUNK = 256 * 1024;

/**
 * One entry's unpacked bytes, inflated straight from the archive in memory. Like yauzl's
 * validateEntrySizes, the stream fails as soon as the entry inflates past its declared size
 * (a zip bomb lying in its headers), so nothing past the central directory's figures is read.
 */
function entryStream(data: Buffer, entry: yauzl.Entry): Readable {
  const invalid = () => new UnsafeArchiveError('The file is not a valid spreadsheet archive.');
  const at = entry.relativeOffsetOfLocalHeader;
  // Encrypted entries (general purpose bit 0) are password-protected workbooks.
  if (at + 30 > data.length || data.readUInt32LE(at) !== 0x04034b50 || (entry.generalPurposeBitFlag & 1) !== 0)
    throw invalid();
  const start = at + 30 + data.readUInt16LE(at + 26) + data.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > data.length) throw invalid();
  const body = data.subarray(start, end);
  if (entry.compressionMethod === 0) {
    if (body.length !== entry.uncompressedSize) throw invalid();
    return Readable.from([body], { objectMode: false });
  }
  if (entry.compressionMethod !== 8) throw invalid();
  const inflate = createInflateRaw({ chunkSize: INFLATE_CHUNK });
  let unpacked = 0;
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      unpacked += chunk.length;
      if (unpacked > entry.uncompressedSize) callback(invalid());
      else callback(null, chunk);
    },
    flush(callback) {
      callback(unpacked === entry.uncompressedSize ? null : invalid());
    },
  });
  inflate.on('error', (error) => checked.destroy(error instanceof UnsafeArchiveError ? error : invalid()));
  checked.on('close', () => inflate.destroy());
  inflate.pipe(checked);
  inflate.end(body);
  return checked;
}

/**
 * Opens a zip archive for reading chosen entries only, without inflating anything up front.
 * The guard here is the central directory: the entry count and the sum of the declared
 * unpacked sizes must be within the limits, and yauzl's size validation stops any entry that
 * inflates past its declared size. A reader that stops early (the first rows of a sheet) then
 * never inflates more than it reads, and never more than the cap.
 */
export function openZip(data: Buffer, limits: ZipGuardLimits = DEFAULT_ZIP_LIMITS): Promise<ZipReader> {
  const invalid = () => new UnsafeArchiveError('The file is not a valid spreadsheet archive.');
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true, validateEntrySizes: true, autoClose: false }, (openError, zip) => {
      if (openError || !zip) {
        reject(invalid());
        return;
      }
      const entries = new Map<string, yauzl.Entry>();
      let declared = 0;
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        zip.close();
        reject(error);
      };
      zip.on('error', () => fail(invalid()));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entries.size + 1 > limits.maxEntries)
          return fail(
            new UnsafeArchiveError(
              `The spreadsheet archive holds more than ${limits.maxEntries} entries; it was refused.`,
            ),
          );
        declared += entry.uncompressedSize;
        if (declared > limits.maxUnpackedBytes) {
          return fail(
            new UnsafeArchiveError(
              `The spreadsheet unpacks to more than ${Math.round(limits.maxUnpackedBytes / 1024 / 1024)} MB; it was refused.`,
            ),
          );
        }
        if (!/\/$/.test(entry.fileName)) entries.set(entry.fileName.replace(/^\//, '').toLowerCase(), entry);
        zip.readEntry();
      });
      zip.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({
          has: (name) => entries.has(name.toLowerCase()),
          open: async (name) => {
            const entry = entries.get(name.toLowerCase());
            if (!entry) throw invalid();
            return entryStream(data, entry);
          },
          close: () => zip.close(),
        });
      });
      zip.readEntry();
    });
  });
}
