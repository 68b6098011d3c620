// Local-disk file storage (the embedded default): objects are files in DATA_DIR/uploads.
// A write goes to a temporary name in the same folder and is renamed into place only after
// the whole stream arrived, so a failed or interrupted upload never leaves a partial file.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey, StoredObjectMissingError, type FileStorage } from './storage.ts';

/** Temporary files start with this prefix; real objects never do (see assertStorageKey). */
export const TEMP_PREFIX = '.partial-';
/** A temporary file this old belongs to a process that died mid-upload. */
const STALE_TEMP_MS = 60 * 60 * 1000;

async function sweepStaleTemporaries(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const cutoff = Date.now() - STALE_TEMP_MS;
  for (const name of names.filter((entry) => entry.startsWith(TEMP_PREFIX))) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => null);
    if (info && info.mtimeMs < cutoff) await rm(path, { force: true });
  }
}

export function createDiskStorage(dataDir: string): FileStorage {
  const folder = join(dataDir, 'uploads');
  const ready = mkdir(folder, { recursive: true }).then(() => sweepStaleTemporaries(folder));

  return {
    kind: 'disk',
    description: `disk: ${folder}`,

    async put(key, body) {
      assertStorageKey(key);
      await ready;
      const temporary = join(folder, `${TEMP_PREFIX}${randomUUID()}`);
      try {
        await pipeline(body, createWriteStream(temporary, { flags: 'wx', mode: 0o600 }));
        await rename(temporary, join(folder, key));
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },

    async get(key) {
      assertStorageKey(key);
      // Opening first turns a missing file into an error before any response header is sent.
      const handle = await open(join(folder, key), 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new StoredObjectMissingError(`No stored object ${key}`);
        throw error;
      });
      return handle.createReadStream();
    },

    async delete(key) {
      assertStorageKey(key);
      await rm(join(folder, key), { force: true });
    },

    async close() {
      await ready;
    },
  };
}
