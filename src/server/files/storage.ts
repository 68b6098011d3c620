// Where My Stuff keeps file bytes: one interface, two implementations (local disk under
// DATA_DIR/uploads by default, an S3-compatible bucket when S3_* is set). Both stream in
// and out, and a write either completes or leaves nothing behind. Keys are always
// server-generated (a random id and the validated kind), never a user's file name.
import type { Config } from '../config.ts';
import { createDiskStorage } from './disk.ts';
import { createS3Storage } from './s3.ts';
import type { FileStorage, StorageLog } from './storageTypes.ts';

export { assertStorageKey, newStorageKey, type FileStorage, type StorageLog } from './storageTypes.ts';

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
