// S3-compatible file storage (S3_BUCKET and keys set; S3_ENDPOINT for MinIO, R2, Ceph...).
// Uploads stream through @aws-sdk/lib-storage's multipart Upload; when the body fails, the
// multipart upload is aborted here (not by lib-storage, whose failed abort would replace the
// body's error), so no partial object is ever completed and the sender's error is what the
// caller sees. An abort the service refuses is logged, and the orphan sweep aborts the upload
// later (abortStaleUploads). Downloads stream the GetObject body. Objects live under the
// `uploads/` prefix of the bucket.
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  NoSuchKey,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import {
  assertStorageKey,
  isStorageKey,
  StoredObjectMissingError,
  type FileStorage,
  type StorageLog,
} from './storageTypes.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** Unset for AWS itself; any S3-compatible service otherwise (path-style addressing). */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Told about multipart uploads that could not be aborted; the console when absent. */
  log?: StorageLog;
}

const PREFIX = 'uploads/';

/** An S3 failure in a few fields: the SDK's error carries the whole raw response (socket and all). */
function describeS3Error(error: unknown): { name: string; message: string; status?: number } {
  if (error instanceof S3ServiceException)
    return { name: error.name, message: error.message, status: error.$metadata.httpStatusCode };
  return { name: (error as Error)?.name ?? 'Error', message: String((error as Error)?.message ?? error) };
}

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
  const log: StorageLog = options.log ?? { warn: (fields, message) => console.warn(message, fields) };
  const abortUpload = (key: string, uploadId: string) =>
    client.send(new AbortMultipartUploadCommand({ Bucket: options.bucket, Key: key, UploadId: uploadId }));

  return {
    kind: 's3',
    description: `S3: bucket ${options.bucket}${options.endpoint ? ` at ${options.endpoint}` : ''}`,

    async put(key, body, contentType) {
      const upload = new Upload({
        client,
        params: { Bucket: options.bucket, Key: objectKey(key), Body: body, ContentType: contentType },
        queueSize: 2,
        partSize: 5 * 1024 * 1024,
        // Aborted below instead: lib-storage would throw its abort's failure in place of the
        // body's error (a refused 30 MB CSV then read as a storage outage).
        leavePartsOnError: true,
      });
      try {
        await upload.done();
      } catch (error) {
        await upload.abort();
        if (upload.uploadId) {
          const uploadId = upload.uploadId;
          await abortUpload(objectKey(key), uploadId).catch((abortError: unknown) =>
            log.warn(
              { error: describeS3Error(abortError), key, uploadId },
              'could not abort a failed multipart upload; the orphan sweep aborts it within the hour',
            ),
          );
        }
        throw error;
      }
    },

    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
        if (!(object.Body instanceof Readable)) throw new Error(`S3 returned no stream for ${key}`);
        return object.Body;
      } catch (error) {
        if (
          error instanceof NoSuchKey ||
          (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
        ) {
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

    async abortStaleUploads(startedBefore) {
      let aborted = 0;
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      // ListMultipartUploads has no SDK paginator: follow the key and upload-id markers.
      for (;;) {
        let page;
        try {
          page = await client.send(
            new ListMultipartUploadsCommand({
              Bucket: options.bucket,
              Prefix: PREFIX,
              KeyMarker: keyMarker,
              UploadIdMarker: uploadIdMarker,
            }),
          );
        } catch (error) {
          // Some S3-compatible servers (s3rver, for one) do not implement the listing: say so
          // and leave their incomplete uploads to the service's own lifecycle rules.
          if (
            error instanceof S3ServiceException &&
            (error.$metadata.httpStatusCode === 501 || error.name === 'NotImplemented')
          ) {
            log.warn(
              { error: describeS3Error(error) },
              'this S3 service cannot list incomplete multipart uploads; abort them with a bucket lifecycle rule instead',
            );
            return aborted;
          }
          throw error;
        }
        for (const open of page.Uploads ?? []) {
          if (!open.Key || !open.UploadId || !open.Initiated || open.Initiated >= startedBefore) continue;
          if (!isStorageKey(open.Key.slice(PREFIX.length))) continue;
          try {
            await abortUpload(open.Key, open.UploadId);
            aborted += 1;
          } catch (error) {
            // Aborted meanwhile (by its own writer or another instance's sweep): nothing left to do.
            if (!(error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) throw error;
          }
        }
        if (!page.IsTruncated) break;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
        if (!keyMarker && !uploadIdMarker) break;
      }
      return aborted;
    },

    async close() {
      client.destroy();
    },
  };
}
