// An S3-compatible server that refuses AbortMultipartUpload (405, as some do) must not turn
// a refused upload into a storage outage: a 30 MB CSV over the 25 MB limit still answers 413
// and a CSV with a NUL byte at 11 MB still answers 415 (both past the first 5 MB part, so a
// multipart upload is open when the body fails). The failed abort is logged, and the orphan
// sweep (reclaimOrphanObjects) lists and aborts the incomplete uploads once an hour old.
import { text } from 'node:stream/consumers';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { CreateMultipartUploadCommand, S3Client } from '@aws-sdk/client-s3';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { files } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { startFakeS3, type FakeS3 } from '../testing/fakeS3.ts';
import { parseJson } from '../testing/http.ts';
import { multipartHead } from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import { ORPHAN_MIN_AGE_MS, reclaimOrphanObjects } from './fileRecords.ts';
import { newStorageKey } from './storage.ts';

const MB = 1024 * 1024;
const HEADER = 'date,symbol,side,qty,price\n';
const ROW = '2026-01-02,BTC-USD,buy,0.5,97000\n';

/** A CSV of `bytes` bytes, with a NUL byte at `nulAt` when given. */
function csv(bytes: number, nulAt?: number): Buffer {
  const data = Buffer.alloc(bytes);
  data.write(HEADER);
  for (let offset = HEADER.length; offset < bytes; offset += ROW.length) data.write(ROW, offset);
  if (nulAt !== undefined) data[nulAt] = 0;
  return data;
}

describe('S3 uploads when the service refuses to abort a multipart upload', () => {
  let s3: FakeS3;
  let test: TestApp;
  let dataDir: string;
  const logLines: Array<{ msg?: string; key?: string; uploadId?: string }> = [];

  beforeAll(async () => {
    s3 = await startFakeS3();
    dataDir = mkdtempSync(join(tmpdir(), 'watos-s3-abort-'));
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
          logLines.push(parseJson<(typeof logLines)[number]>(line));
        done();
      },
    });
    test = await createTestApp(
      { DATA_DIR: dataDir, LOG_LEVEL: 'warn', UPLOAD_MAX_MB: '25', ...s3.env() },
      { logStream },
    );
  });

  async function listen(): Promise<number> {
    if (!test.app.server.listening) await test.app.listen({ port: 0, host: '127.0.0.1' });
    return (test.app.server.address() as AddressInfo).port;
  }

  afterAll(async () => {
    await test?.close();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'answers 413 and 415, not 503, logs the failed abort, and the sweep aborts the uploads later',
    { timeout: 120_000 },
    async () => {
      const alice = await subscribedUser(test, 'abort-alice@example.com');
      const port = await listen();
      /**
       * Sends the file over a real socket, 256 KiB at a time as the server takes it, so parts go
       * to S3 while the body arrives (as from a browser) and a multipart upload is open when
       * the server refuses the file.
       */
      const send = async (data: Buffer, filename: string) => {
        const { head, tail, contentType } = multipartHead(
          { user_id: alice.userId },
          { filename, contentType: 'text/csv' },
        );
        const request = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/upload',
          headers: {
            cookie: alice.browser.cookieHeader,
            origin: test.config.publicUrl,
            'content-type': contentType,
            'transfer-encoding': 'chunked',
          },
        });
        request.on('error', () => undefined); // the server closes the connection after refusing
        let answered = false;
        const response = new Promise<{ status: number; body: unknown }>((resolve) => {
          request.on('response', (message: IncomingMessage) => {
            answered = true;
            void text(message).then((body) => resolve({ status: message.statusCode ?? 0, body: parseJson(body) }));
          });
        });
        request.write(head);
        for (let offset = 0; offset < data.length && !answered; offset += 256 * 1024) {
          if (!request.write(data.subarray(offset, offset + 256 * 1024)))
            await Promise.race([once(request, 'drain'), response]);
        }
        if (!answered) request.end(tail);
        const answer = await response;
        request.destroy();
        return answer;
      };
      s3.refuseAborts(true);

      const tooLarge = await send(csv(30 * MB), 'big.csv');
      expect(tooLarge).toEqual({ status: 413, body: { error: 'The file is larger than the 25 MB upload limit.' } });
      const binary = await send(csv(12 * MB, 11 * MB), 'binary.csv');
      expect(binary).toEqual({
        status: 415,
        body: {
          error:
            "The file's content is not a CSV (plain text) file (it holds binary data; save it as CSV UTF-8), so it was refused.",
        },
      });

      // Both multipart uploads are still open (the service refused the aborts), and it was logged.
      expect(s3.openUploads()).toBe(2);
      expect(s3.objects.size).toBe(0);
      const [row] = await test.database.db.select({ value: count() }).from(files);
      expect(row!.value).toBe(0);
      const failedAborts = logLines.filter((line) => line.msg?.startsWith('could not abort a failed multipart upload'));
      expect(failedAborts).toHaveLength(2);
      expect(failedAborts.every((line) => typeof line.uploadId === 'string' && typeof line.key === 'string')).toBe(
        true,
      );

      // Three more open uploads of our own (paging: the fake lists two a page) and one that is
      // not ours (another prefix), all older than an hour; then one started just now.
      const client = new S3Client({
        region: 'us-east-1',
        endpoint: s3.env().S3_ENDPOINT!,
        forcePathStyle: true,
        credentials: { accessKeyId: s3.env().S3_ACCESS_KEY_ID!, secretAccessKey: s3.env().S3_SECRET_ACCESS_KEY! },
      });
      for (const key of [
        `uploads/${newStorageKey('csv')}`,
        `uploads/${newStorageKey('xlsx')}`,
        `uploads/${newStorageKey('xls')}`,
        'backups/not-ours.csv',
      ]) {
        await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: key }));
      }
      s3.ageOpenUploads(2 * ORPHAN_MIN_AGE_MS);
      await client.send(
        new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: `uploads/${newStorageKey('csv')}` }),
      );
      client.destroy();
      expect(s3.openUploads()).toBe(7);

      // While the service still refuses, the sweep fails (and its scheduler logs and retries hourly).
      await expect(reclaimOrphanObjects(test.database.db, test.app.services.fileStorage)).rejects.toThrow();
      s3.refuseAborts(false);
      expect(await reclaimOrphanObjects(test.database.db, test.app.services.fileStorage)).toEqual({
        objects: 0,
        uploads: 5,
      });
      // Left: the upload under another prefix and the one started just now.
      expect(s3.openUploads()).toBe(2);
      expect(await reclaimOrphanObjects(test.database.db, test.app.services.fileStorage)).toEqual({
        objects: 0,
        uploads: 0,
      });
    },
  );

  it('still reclaims objects on a service that cannot list multipart uploads, and says so', async () => {
    s3.withoutUploadListing(true);
    try {
      expect(await reclaimOrphanObjects(test.database.db, test.app.services.fileStorage)).toEqual({
        objects: 0,
        uploads: 0,
      });
      expect(
        logLines.some((line) => line.msg?.startsWith('this S3 service cannot list incomplete multipart uploads')),
      ).toBe(true);
    } finally {
      s3.withoutUploadListing(false);
    }
  });
});
