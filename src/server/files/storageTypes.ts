// What every file storage is (the FileStorage interface, its missing-object error) and the
// shape of its keys: shared by storage.ts, which picks one, and the two implementations
// (disk.ts, s3.ts), which import this module and not storage.ts (no cycle).
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { SpreadsheetKind } from '../../shared/schemas/files.ts';

export interface FileStorage {
  readonly kind: 'disk' | 's3';
  /** Human description for the start-up log, e.g. `disk: /srv/data/uploads`. */
  readonly description: string;
  /**
   * Streams `body` into a new object under `key`. Resolves once the whole object is stored;
   * when `body` fails (too large, bad content, client gone) it rejects with that failure and
   * nothing complete remains. (On S3 a multipart upload whose abort failed is left open until
   * abortStaleUploads, run by the orphan sweep, aborts it.)
   */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The object's bytes as a stream; rejects with StoredObjectMissingError when there is none. */
  get(key: string): Promise<Readable>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Every complete object (server-made keys only, never temporaries), with when it was written. */
  list(): AsyncIterable<{ key: string; modifiedAt: Date }>;
  /**
   * Abandons incomplete writes started before `startedBefore` (S3: open multipart uploads) and
   * answers how many. Disk storage sweeps its own temporaries and has none to report.
   */
  abortStaleUploads(startedBefore: Date): Promise<number>;
  close(): Promise<void>;
}

export class StoredObjectMissingError extends Error {}

/** Where storage reports what it could not clean up (the app's pino logger). */
export interface StorageLog {
  warn(fields: object, message: string): void;
}

const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(csv|xls|xlsx)$/;

/** A fresh storage key for a file of this kind: `<uuid>.<kind>`. */
export function newStorageKey(kind: SpreadsheetKind): string {
  return `${randomUUID()}.${kind}`;
}

/** Whether `key` has the shape newStorageKey gives. */
export function isStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** Refuses anything but a key newStorageKey made, so no path or object name can be steered. */
export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`Refusing storage key ${JSON.stringify(key)}`);
}
