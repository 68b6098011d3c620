// Local-disk file storage (the embedded default): objects are files in DATA_DIR/uploads.
// A write goes to a temporary name in the same folder and is renamed into place only after
// the whole stream arrived, so a failed or interrupted upload never leaves a partial file.
// A process killed mid-upload cannot clean up after itself: a temporary's name says which
// host and process wrote it, so the next start removes those of dead processes of this host
// at once; a temporary of another host (a shared volume) goes once it is an hour untouched.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey, isStorageKey, StoredObjectMissingError, type FileStorage } from './storageTypes.ts';

/** Temporary files start with this prefix; real objects never do (see assertStorageKey). */
export const TEMP_PREFIX = '.partial-';
/** A temporary this long untouched belongs to a writer that is gone (an upload writes as bytes arrive). */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** How often a running server sweeps, for temporaries it cannot tell are dead at start. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** This host, short and safe in a file name. */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 12);
const TEMP_NAME = /^\.partial-([0-9a-f]{12})-(\d+)-[0-9a-f-]{36}$/;

/** The temporary name for a new write by this process. */
export function temporaryName(): string {
  return `${TEMP_PREFIX}${HOST_TAG}-${process.pid}-${randomUUID()}`;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a temporary's writer is certainly gone: it was written on this host by a process
 * that no longer runs, or (at start, before this process wrote anything) by a process with
 * this process's id, an earlier life of a restarted container.
 */
export function writerIsGone(name: string, atStart: boolean): boolean {
  const match = TEMP_NAME.exec(name);
  if (!match || match[1] !== HOST_TAG) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return atStart;
  return !processIsAlive(pid);
}

async function sweepTemporaries(folder: string, atStart: boolean): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const cutoff = Date.now() - STALE_TEMP_MS;
  for (const name of names.filter((entry) => entry.startsWith(TEMP_PREFIX))) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => null);
    if (!info) continue;
    if (writerIsGone(name, atStart) || info.mtimeMs < cutoff) {
      await rm(path, { force: true });
    }
  }
}

export function createDiskStorage(dataDir: string): FileStorage {
  const folder = join(dataDir, 'uploads');
  const ready = mkdir(folder, { recursive: true }).then(() => sweepTemporaries(folder, true));
  const sweeper = setInterval(() => void sweepTemporaries(folder, false).catch(() => undefined), SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    kind: 'disk',
    description: `disk: ${folder}`,

    async put(key, body) {
      assertStorageKey(key);
      await ready;
      const temporary = join(folder, temporaryName());
      const output = createWriteStream(temporary, { flags: 'wx', mode: 0o600 });
      try {
        await pipeline(body, output);
        await rename(temporary, join(folder, key));
      } catch (error) {
        // pipeline rejects as soon as the body fails, while the temporary may still be opening
        // on the thread pool: removed before it exists, it would appear afterwards and stay.
        // Once the stream has closed, the file exists (or never will) and goes.
        if (!output.closed) await new Promise<void>((resolve) => output.once('close', () => resolve()));
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

    async *list() {
      await ready;
      for (const name of await readdir(folder)) {
        if (!isStorageKey(name)) continue;
        const info = await stat(join(folder, name)).catch(() => null);
        if (info?.isFile()) yield { key: name, modifiedAt: info.mtime };
      }
    },

    // Temporaries are swept at start and every ten minutes (sweepTemporaries): nothing to report.
    async abortStaleUploads() {
      return 0;
    },

    async close() {
      clearInterval(sweeper);
      await ready;
    },
  };
}
