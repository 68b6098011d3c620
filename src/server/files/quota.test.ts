// Per-user upload quotas (FILES_MAX_PER_USER, FILES_MAX_TOTAL_MB) and the upload rate limit
// (UPLOAD_RATE_LIMIT_PER_MINUTE), through the real app on disk and on S3 (the local fake):
// 300 uploads at once from one user keep exactly the quota's count, a file that does not fit
// the bytes left is refused with a clear 413, and nothing refused is left in storage. With
// TEST_DATABASE_URL, two app instances on one PostgreSQL database share the quota; with
// TEST_REDIS_URL they share the rate limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { files } from '../db/schema.ts';
import { openTestDatabase } from '../db/testing.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { startFakeS3, type FakeS3 } from '../testing/fakeS3.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { multipartBody, type MultipartPart } from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import { waitFor } from '../testing/waitFor.ts';
import { TEMP_PREFIX } from './disk.ts';
import { recordStoredFile } from './fileRecords.ts';
import { storeSpreadsheet } from './uploads.ts';
import type { FileEntry } from '../../shared/schemas/files.ts';

const CSV = 'text/csv';
const MB = 1024 * 1024;
const MAX_FILES = 20;
const MAX_TOTAL_MB = 1;
const COUNT_MESSAGE = `You have ${MAX_FILES} files, the most you can keep is ${MAX_FILES}. Delete some files to upload more.`;
const BYTES_MESSAGE = /^Your files use [\d.]+ of 1 MB\. Delete some files to upload more\.$/;

type User = { browser: Browser; userId: string };

/** A small CSV, different for every upload. */
const smallCsv = (index: number) => Buffer.from(`date,symbol,qty\n2026-01-02,BTC-USD,${index}\n`);
/** A CSV of exactly `bytes` bytes. */
const csvOfSize = (bytes: number) => Buffer.concat([Buffer.from('date,close\n'), Buffer.alloc(bytes - 11, '1')]);

/**
 * Each upload under a name of its own unless named: a name the user already has would make the
 * upload that file's new version (versions.test.ts covers how versions count).
 */
let uploadNumber = 0;
function upload(test: TestApp, user: User, data: Buffer, filename = `trades-${++uploadNumber}.csv`) {
  const parts: MultipartPart[] = [
    { name: 'user_id', value: user.userId },
    { name: 'file', filename, contentType: CSV, data },
  ];
  const { body, contentType } = multipartBody(parts);
  return test.app.inject({
    method: 'POST',
    url: '/upload',
    headers: { cookie: user.browser.cookieHeader, origin: test.config.publicUrl, 'content-type': contentType },
    payload: body,
  });
}

async function ownRows(test: TestApp, userId: string): Promise<number> {
  const [row] = await test.database.db.select({ value: count() }).from(files).where(eq(files.uploadedByUserId, userId));
  return row!.value;
}

describe.each(['disk', 's3'] as const)('upload quota on %s storage', (variant) => {
  let test: TestApp;
  let s3: FakeS3 | undefined;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `watos-quota-${variant}-`));
    s3 = variant === 's3' ? await startFakeS3() : undefined;
    test = await createTestApp({
      DATA_DIR: dataDir,
      FILES_MAX_PER_USER: String(MAX_FILES),
      FILES_MAX_TOTAL_MB: String(MAX_TOTAL_MB),
      // The rate limit has its own test below; here 300 uploads at once must reach the quota.
      UPLOAD_RATE_LIMIT_PER_MINUTE: '10000',
      ...s3?.env(),
    });
    expect(test.app.services.fileStorage.kind).toBe(variant);
  });

  afterAll(async () => {
    await test?.close();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Complete objects in storage. */
  async function storedObjects(): Promise<number> {
    if (s3) return s3.objects.size;
    const names = await readdir(join(dataDir, 'uploads')).catch(() => [] as string[]);
    return names.filter((name) => !name.startsWith(TEMP_PREFIX)).length;
  }

  async function partialObjects(): Promise<number> {
    if (s3) return s3.openUploads();
    const names = await readdir(join(dataDir, 'uploads')).catch(() => [] as string[]);
    return names.filter((name) => name.startsWith(TEMP_PREFIX)).length;
  }

  it(
    'keeps exactly FILES_MAX_PER_USER of 300 concurrent uploads, refuses the rest clearly, and leaves nothing behind',
    { timeout: 120_000 },
    async () => {
      const alice = await subscribedUser(test, `count-${variant}@example.com`);
      const objectsBefore = await storedObjects();
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, index) => upload(test, alice, smallCsv(index), `trades-${index}.csv`)),
      );

      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 201)).toHaveLength(MAX_FILES);
      const refused = responses.filter((response) => response.statusCode !== 201);
      expect(refused).toHaveLength(300 - MAX_FILES);
      for (const response of refused)
        expect({ status: response.statusCode, body: response.json() }).toEqual({
          status: 413,
          body: { error: COUNT_MESSAGE },
        });

      expect(await ownRows(test, alice.userId)).toBe(MAX_FILES);
      const listed = jsonBody<{ files: FileEntry[] }>(await alice.browser.get('/files')).files as Array<{
        id: string;
        uploaded_by_user_id: string | null;
      }>;
      expect(listed.filter((file) => file.uploaded_by_user_id === alice.userId)).toHaveLength(MAX_FILES);
      await waitFor(async () => (await partialObjects()) === 0, 'no partial objects');
      expect(await storedObjects()).toBe(objectsBefore + MAX_FILES);

      // A full account is refused at once; deleting one file makes room for exactly one more.
      const full = await upload(test, alice, smallCsv(1000));
      expect(full.statusCode).toBe(413);
      expect(jsonBody<{ error: string }>(full).error).toBe(COUNT_MESSAGE);
      expect((await alice.browser.request('DELETE', `/files/${listed[0]!.id}`)).statusCode).toBe(200);
      expect((await upload(test, alice, smallCsv(1001))).statusCode).toBe(201);
      expect((await upload(test, alice, smallCsv(1002))).statusCode).toBe(413);
      expect(await storedObjects()).toBe(objectsBefore + MAX_FILES);
    },
  );

  it(
    'refuses a file that does not fit FILES_MAX_TOTAL_MB with a clear 413, also when uploads race, storing nothing',
    { timeout: 120_000 },
    async () => {
      const bob = await subscribedUser(test, `bytes-${variant}@example.com`);
      // Public files are the operator's and count against nobody's quota.
      const storage = test.app.services.fileStorage;
      const published = await storeSpreadsheet(
        storage,
        { source: Readable.from([csvOfSize(900 * 1024)]), filename: 'calendar.csv', mimeType: CSV },
        { maxBytes: 8 * MB },
      );
      await recordStoredFile(test.database.db, storage, published, null);
      const objectsBefore = await storedObjects();
      // Ten 400 KB files at once against 1 MB: exactly two fit.
      const responses = await Promise.all(Array.from({ length: 10 }, () => upload(test, bob, csvOfSize(400 * 1024))));
      expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(2);
      for (const response of responses.filter((candidate) => candidate.statusCode !== 201)) {
        expect(response.statusCode).toBe(413);
        expect(jsonBody<{ error: string }>(response).error).toMatch(BYTES_MESSAGE);
      }
      expect(await ownRows(test, bob.userId)).toBe(2);

      // 800 KB used: a 300 KB file does not fit and the message says how much is used.
      const tooBig = await upload(test, bob, csvOfSize(300 * 1024));
      expect(tooBig.statusCode).toBe(413);
      expect(jsonBody<{ error: string }>(tooBig).error).toBe(
        'Your files use 0.78 of 1 MB. Delete some files to upload more.',
      );
      // What is left still fits exactly.
      expect((await upload(test, bob, csvOfSize(MB - 800 * 1024))).statusCode).toBe(201);
      const full = await upload(test, bob, smallCsv(1));
      expect(full.statusCode).toBe(413);
      expect(jsonBody<{ error: string }>(full).error).toBe(
        'Your files use 1 of 1 MB. Delete some files to upload more.',
      );

      await waitFor(async () => (await partialObjects()) === 0, 'no partial objects');
      expect(await storedObjects()).toBe(objectsBefore + 3);
      expect(await ownRows(test, bob.userId)).toBe(3);
    },
  );
});

describe('upload rate limit', () => {
  let test: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watos-upload-rate-'));
    test = await createTestApp({ DATA_DIR: dataDir, UPLOAD_RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await test?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 429 with a clear message past UPLOAD_RATE_LIMIT_PER_MINUTE, per user', { timeout: 60_000 }, async () => {
    const carol = await subscribedUser(test, 'rate-carol@example.com');
    const dave = await subscribedUser(test, 'rate-dave@example.com');
    // Refused attempts count too: the limit is on attempts, not on stored files.
    expect((await upload(test, carol, smallCsv(0), 'notes.txt')).statusCode).toBe(415);
    for (let index = 1; index < 5; index += 1)
      expect((await upload(test, carol, smallCsv(index))).statusCode).toBe(201);
    const limited = await upload(test, carol, smallCsv(5));
    expect(limited.statusCode).toBe(429);
    expect(jsonBody<{ error: string }>(limited).error).toMatch(
      /^You are uploading too fast \(at most 5 files a minute\)\. Please wait \d+ seconds? and try again\.$/,
    );
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await ownRows(test, carol.userId)).toBe(4);
    // Another user has their own allowance.
    expect((await upload(test, dave, smallCsv(0))).statusCode).toBe(201);
  });
});

/** Two app instances on one database (and one Redis, when given), sharing a disk folder. */
async function twoInstances(env: Record<string, string>, driver: 'pglite' | 'postgres') {
  const database = await openTestDatabase(driver);
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', MARKET_DATA: 'demo', ...env });
  const apps = [
    await buildApp({ config, database, webRoot: null, logger: false }),
    await buildApp({ config, database, webRoot: null, logger: false }),
  ];
  for (const app of apps) await app.ready();
  const tests: TestApp[] = apps.map((app) => ({ app, database, config, close: () => Promise.resolve() }));
  return {
    tests,
    database,
    async close() {
      for (const app of apps) await app.close();
      await database.close();
    },
  };
}

describe.runIf(process.env.TEST_DATABASE_URL)('upload quota on PostgreSQL across two instances', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watos-quota-pg-'));
    instances = await twoInstances(
      { DATA_DIR: dataDir, FILES_MAX_PER_USER: String(MAX_FILES), UPLOAD_RATE_LIMIT_PER_MINUTE: '10000' },
      'postgres',
    );
  });
  afterAll(async () => {
    await instances?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'keeps exactly FILES_MAX_PER_USER of 300 uploads sent at once to two instances',
    { timeout: 180_000 },
    async () => {
      const [first, second] = instances.tests;
      const erin = await subscribedUser(first!, 'pg-erin@example.com');
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, index) => upload(index % 2 === 0 ? first! : second!, erin, smallCsv(index))),
      );
      expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(MAX_FILES);
      expect(
        new Set(
          responses
            .filter((response) => response.statusCode !== 201)
            .map((response) => `${response.statusCode} ${jsonBody<{ error: string }>(response).error}`),
        ),
      ).toEqual(new Set([`413 ${COUNT_MESSAGE}`]));
      expect(await ownRows(first!, erin.userId)).toBe(MAX_FILES);
      const names = await readdir(join(dataDir, 'uploads'));
      expect(names).toHaveLength(MAX_FILES);
    },
  );
});

describe.runIf(process.env.TEST_REDIS_URL)('upload rate limit in Redis across two instances', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watos-upload-rate-redis-'));
    instances = await twoInstances(
      { DATA_DIR: dataDir, REDIS_URL: process.env.TEST_REDIS_URL!, UPLOAD_RATE_LIMIT_PER_MINUTE: '4' },
      'pglite',
    );
  });
  afterAll(async () => {
    await instances?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts one user’s uploads on both instances together', { timeout: 60_000 }, async () => {
    const [first, second] = instances.tests;
    // A fresh e-mail each run: the Redis counters outlive the test database.
    const frank = await subscribedUser(first!, `redis-frank-${Date.now()}@example.com`);
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1)
      statuses.push((await upload(index % 2 === 0 ? first! : second!, frank, smallCsv(index))).statusCode);
    expect(statuses).toEqual([201, 201, 201, 201, 429]);
  });
});
