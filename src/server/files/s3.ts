// S3-compatible file storage (S3_BUCKET and keys set; S3_ENDPOINT for MinIO, R2, Ceph...).
// Uploads stream through @aws-sdk/lib-storage's multipart Upload, which aborts the multipart
// upload when the body fails, so no partial object is ever completed; downloads stream the
// GetObject body. Objects live under the `uploads/` prefix of the bucket.
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, paginateListObjectsV2, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { assertStorageKey, isStorageKey, StoredObjectMissingError, type FileStorage } from './storage.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** Unset for AWS itself; any S3-compatible service otherwise (path-style addressing). */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const PREFIX = 'uploads/';

export function createS3Storage(options: S3StorageOptions): FileStorage {
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    // Self-hosted S3-compatible services rarely resolve bucket subdomains.
    forcePathStyle: Boolean(options.endpoint),
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    // Several S3-compatible services reject the SDK's newer default checksum headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const objectKey = (key: string) => {
    assertStorageKey(key);
    return `${PREFIX}${key}`;
  };

  return {
    kind: 's3',
    description: `S3: bucket ${options.bucket}${options.endpoint ? ` at ${options.endpoint}` : ''}`,

    async put(key, body, contentType) {
      const upload = new Upload({
        client,
        params: { Bucket: options.bucket, Key: objectKey(key), Body: body, ContentType: contentType },
        queueSize: 2,
        partSize: 5 * 1024 * 1024,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // lib-storage aborts a failed multipart upload itself; a second abort is harmless.
        await upload.abort().catch(() => undefined);
        throw error;
      }
    },

    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
        if (!(object.Body instanceof Readable)) throw new Error(`S3 returned no stream for ${key}`);
        return object.Body;
      } catch (error) {
        if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) {
          throw new StoredObjectMissingError(`No stored object ${key}`);
        }
        throw error;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
    },

    async *list() {
      for await (const page of paginateListObjectsV2({ client }, { Bucket: options.bucket, Prefix: PREFIX })) {
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(PREFIX.length) ?? '';
          if (isStorageKey(key) && object.LastModified) yield { key, modifiedAt: object.LastModified };
        }
      }
    },

    async close() {
      client.destroy();
    },
  };
}
