// Where My Stuff keeps file bytes: one interface, two implementations (local disk under
// DATA_DIR/uploads by default, an S3-compatible bucket when S3_* is set). Both stream in
// and out, and a write either completes or leaves nothing behind. Keys are always
// server-generated (a random id and the validated kind), never a user's file name.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import type { SpreadsheetKind } from '../../shared/schemas/files.ts';
import { createDiskStorage } from './disk.ts';
import { createS3Storage } from './s3.ts';

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

/** The storage the configuration names: S3 when S3_BUCKET is set (config.ts checks the keys come with it). */
export function createFileStorage(config: Config, log?: StorageLog): FileStorage {
  if (config.S3_BUCKET && config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY) {
    return createS3Storage({
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      log,
    });
  }
  return createDiskStorage(config.dataDir);
}
