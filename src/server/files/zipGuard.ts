// Zip-bomb guard for OOXML spreadsheets (.xlsx files are zip archives). Before any library
// unpacks an archive we inflate it once with yauzl, which checks every entry's real size
// against its declared one, and stop as soon as the unpacked total passes the cap.
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
        if (entries > limits.maxEntries) return fail(`The spreadsheet archive holds more than ${limits.maxEntries} entries; it was refused.`);
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
