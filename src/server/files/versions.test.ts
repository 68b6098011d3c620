// File versions in My Stuff through the real app, on local disk and on S3 (the local fake):
// uploading a file with the name of one the user owns makes it the file's new version and
// keeps the earlier ones (their objects and dates), listed by GET /files/{id}/versions and
// downloadable byte for byte; every version counts against the quota; deleting the file
// deletes every version and frees its room; another user's file is a 404 on every route; the
// orphan sweep keeps earlier versions' objects. With TEST_DATABASE_URL, same-name uploads sent
// at once to two instances on one PostgreSQL database are numbered one after another.
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { files, fileVersions } from '../db/schema.ts';
import { openTestDatabase } from '../db/testing.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { startFakeS3, type FakeS3 } from '../testing/fakeS3.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { multipartBody } from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import type { FileEntry, FileVersionList } from '../../shared/schemas/files.ts';
import { TEMP_PREFIX } from './disk.ts';
import { ORPHAN_MIN_AGE_MS, reclaimOrphanObjects } from './fileRecords.ts';

const CSV = 'text/csv';
const MAX_FILES = 6;
const MAX_TOTAL_MB = 1;
const KB = 1024;

type User = { browser: Browser; userId: string };

const prices = (close: number) => Buffer.from(`date,symbol,close\n2026-01-02,BTC-USD,${close}\n`);

function upload(test: TestApp, user: User, data: Buffer, filename: string) {
  const { body, contentType } = multipartBody([
    { name: 'user_id', value: user.userId },
    { name: 'file', filename, contentType: CSV, data },
  ]);
  return test.app.inject({
    method: 'POST',
    url: '/upload',
    headers: { cookie: user.browser.cookieHeader, origin: test.config.publicUrl, 'content-type': contentType },
    payload: body,
  });
}

async function uploadOk(test: TestApp, user: User, data: Buffer, filename: string): Promise<FileEntry> {
  const response = await upload(test, user, data, filename);
  expect({ status: response.statusCode, body: response.json() }).toMatchObject({ status: 201 });
  return jsonBody<{ file: FileEntry }>(response).file;
}

async function listed(user: User): Promise<FileEntry[]> {
  const response = await user.browser.get('/files');
  expect(response.statusCode).toBe(200);
  return jsonBody<{ files: FileEntry[] }>(response).files;
}

async function versionsOf(user: User, id: string): Promise<FileVersionList> {
  const response = await user.browser.get(`/files/${id}/versions`);
  expect(response.statusCode).toBe(200);
  return jsonBody<FileVersionList>(response);
}

describe.each(['disk', 's3'] as const)('file versions on %s storage', (variant) => {
  let test: TestApp;
  let s3: FakeS3 | undefined;
  let dataDir: string;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `watos-versions-${variant}-`));
    s3 = variant === 's3' ? await startFakeS3() : undefined;
    test = await createTestApp({
      DATA_DIR: dataDir,
      FILES_MAX_PER_USER: String(MAX_FILES),
      FILES_MAX_TOTAL_MB: String(MAX_TOTAL_MB),
      UPLOAD_RATE_LIMIT_PER_MINUTE: '1000',
      ...s3?.env(),
    });
    expect(test.app.services.fileStorage.kind).toBe(variant);
    alice = await subscribedUser(test, `versions-alice-${variant}@example.com`);
    bob = await subscribedUser(test, `versions-bob-${variant}@example.com`);
  });

  afterAll(async () => {
    await test?.close();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Complete objects in storage. */
  async function storedObjects(): Promise<string[]> {
    if (s3) return [...s3.objects.keys()].sort();
    const names = await readdir(join(dataDir, 'uploads')).catch(() => [] as string[]);
    return names.filter((name) => !name.startsWith(TEMP_PREFIX)).sort();
  }

  async function versionRows(): Promise<number> {
    const [row] = await test.database.db.select({ value: count() }).from(fileVersions);
    return row!.value;
  }

  async function deleteEverything(user: User) {
    for (const file of await listed(user))
      if (file.uploaded_by_user_id === user.userId)
        expect((await user.browser.request('DELETE', `/files/${file.id}`)).statusCode).toBe(200);
  }

  it('keeps the earlier versions of a file uploaded again under its name, listed with their dates and sizes', async () => {
    const objectsBefore = await storedObjects();
    const first = await uploadOk(test, alice, prices(1), 'journal.csv');
    expect(first).toMatchObject({ version: 1, versions: 1 });
    const other = await uploadOk(test, alice, prices(7), 'other.csv');
    const second = await uploadOk(test, alice, prices(22), 'journal.csv');
    const third = await uploadOk(test, alice, prices(333), 'journal.csv');

    // One file, same id and url, now at version 3 with the newest bytes and date.
    expect(second.id).toBe(first.id);
    expect(third).toMatchObject({
      id: first.id,
      url: first.url,
      version: 3,
      versions: 3,
      file_size: prices(333).length,
      original_filename: 'journal.csv',
    });
    expect(Date.parse(third.upload_date)).toBeGreaterThanOrEqual(Date.parse(first.upload_date));
    const list = await listed(alice);
    expect(list.filter((file) => file.original_filename === 'journal.csv')).toHaveLength(1);
    // The newest upload leads the list; a file never uploaded again has one version.
    expect(list.map((file) => [file.id, file.version, file.versions])).toEqual([
      [first.id, 3, 3],
      [other.id, 1, 1],
    ]);
    expect((await alice.browser.get(first.url)).rawPayload.equals(prices(333))).toBe(true);

    const history = await versionsOf(alice, first.id);
    expect(history.file_id).toBe(first.id);
    expect(history.original_filename).toBe('journal.csv');
    expect(history.versions.map(({ version, file_size, current }) => ({ version, file_size, current }))).toEqual([
      { version: 3, file_size: prices(333).length, current: true },
      { version: 2, file_size: prices(22).length, current: false },
      { version: 1, file_size: prices(1).length, current: false },
    ]);
    // Each version keeps the date it was uploaded on.
    expect(history.versions.map((version) => version.upload_date)).toEqual([
      third.upload_date,
      second.upload_date,
      first.upload_date,
    ]);
    expect(history.versions.map((version) => version.url)).toEqual(
      [3, 2, 1].map((n) => `${first.url.replace(/\/download$/, '')}/versions/${n}/download`),
    );

    // Every version's object is kept in storage.
    expect((await storedObjects()).length).toBe(objectsBefore.length + 4);
    expect(await versionRows()).toBe(2);
    await deleteEverything(alice);
  });

  it('downloads an earlier version: its own bytes, type and the file name', async () => {
    const first = await uploadOk(test, alice, prices(1), 'btc closes.csv');
    await uploadOk(test, alice, prices(4242), 'btc closes.csv');

    const old = await alice.browser.get(`/files/${first.id}/versions/1/download`);
    expect(old.statusCode).toBe(200);
    expect(old.rawPayload.equals(prices(1))).toBe(true);
    expect(old.headers['content-type']).toBe(CSV);
    expect(old.headers['content-length']).toBe(String(prices(1).length));
    expect(old.headers['content-disposition']).toBe(
      `attachment; filename="btc closes.csv"; filename*=UTF-8''btc%20closes.csv`,
    );
    expect(old.headers['x-content-type-options']).toBe('nosniff');
    // The current version by number is the file's download.
    const current = await alice.browser.get(`/files/${first.id}/versions/2/download`);
    expect(current.rawPayload.equals(prices(4242))).toBe(true);
    const head = await test.app.inject({
      method: 'HEAD',
      url: `/files/${first.id}/versions/1/download`,
      headers: { cookie: alice.browser.cookieHeader },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(prices(1).length));
    expect(head.rawPayload.length).toBe(0);

    // No such version, and a version that is not a number, are clear errors.
    const missing = await alice.browser.get(`/files/${first.id}/versions/3/download`);
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({
      status: 404,
      body: { error: 'This file has no such version.' },
    });
    for (const bad of ['0', 'abc', '1.5', '-1']) {
      const response = await alice.browser.get(`/files/${first.id}/versions/${bad}/download`);
      expect(response.statusCode).toBe(400);
      expect(jsonBody<{ error: string }>(response).error).toMatch(/version must be a whole number, 1 or more/);
    }
    await deleteEverything(alice);
  });

  it('versions only the uploader’s own file: another user’s file of that name stays theirs, and answers 404', async () => {
    const alices = await uploadOk(test, alice, prices(1), 'shared name.csv');
    await uploadOk(test, alice, prices(2), 'shared name.csv');
    const bobs = await uploadOk(test, bob, prices(3), 'shared name.csv');
    expect(bobs.id).not.toBe(alices.id);
    expect(bobs).toMatchObject({ version: 1, versions: 1 });
    expect((await versionsOf(alice, alices.id)).versions).toHaveLength(2);

    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['GET', `/files/${alices.id}/versions`],
      ['GET', `/files/${alices.id}/versions/1/download`],
      ['GET', `/files/${alices.id}/versions/2/download`],
      ['DELETE', `/files/${alices.id}/versions/1`],
    ] as const) {
      const theirs = await bob.browser.request(method, path);
      const nobodys = await bob.browser.request(method, path.replace(alices.id, missing));
      expect({ path, status: theirs.statusCode, body: theirs.json() }).toEqual({
        path,
        status: 404,
        body: { error: 'File not found' },
      });
      expect(theirs.json()).toEqual(nobodys.json());
    }
    // Alice's versions are untouched by Bob's attempts.
    expect((await versionsOf(alice, alices.id)).versions.map((version) => version.version)).toEqual([2, 1]);
    expect((await alice.browser.get(`/files/${alices.id}/versions/1/download`)).rawPayload.equals(prices(1))).toBe(
      true,
    );
    // Signed out, nothing is answered.
    expect((await test.app.inject({ method: 'GET', url: `/files/${alices.id}/versions` })).statusCode).toBe(401);
    await deleteEverything(alice);
    await deleteEverything(bob);
  });

  it('counts every version against the quota, and deleting the file frees them all', async () => {
    const objectsBefore = await storedObjects();
    // 300 KB a version: three fit in 1 MB, a fourth does not.
    const sized = (digit: string) => Buffer.concat([Buffer.from('date,close\n'), Buffer.alloc(300 * KB - 11, digit)]);
    const file = await uploadOk(test, alice, sized('1'), 'sized.csv');
    await uploadOk(test, alice, sized('2'), 'sized.csv');
    await uploadOk(test, alice, sized('3'), 'sized.csv');
    const refused = await upload(test, alice, sized('4'), 'sized.csv');
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 413,
      body: {
        error:
          'Your files use 0.88 of 1 MB, earlier versions included. Delete some files or earlier versions to upload more.',
      },
    });
    // The refused upload changed nothing: still three versions, the newest current.
    expect((await versionsOf(alice, file.id)).versions.map((version) => version.version)).toEqual([3, 2, 1]);
    expect((await storedObjects()).length).toBe(objectsBefore.length + 3);

    // Deleting an earlier version frees its room; the current version goes only with the file.
    const current = await alice.browser.request('DELETE', `/files/${file.id}/versions/3`);
    expect({ status: current.statusCode, body: current.json() }).toEqual({
      status: 409,
      body: { error: 'This is the current version of the file. Delete the file to remove it.' },
    });
    expect((await alice.browser.request('DELETE', `/files/${file.id}/versions/1`)).json()).toEqual({ success: true });
    expect((await alice.browser.request('DELETE', `/files/${file.id}/versions/1`)).statusCode).toBe(404);
    expect((await storedObjects()).length).toBe(objectsBefore.length + 2);
    const fourth = await uploadOk(test, alice, sized('4'), 'sized.csv');
    expect(fourth).toMatchObject({ id: file.id, version: 4, versions: 3 });
    expect((await versionsOf(alice, file.id)).versions.map((version) => version.version)).toEqual([4, 3, 2]);

    // Deleting the file removes every version's row and object, and all its room is free again.
    const deleted = await alice.browser.request('DELETE', `/files/${file.id}`);
    expect(deleted.json()).toEqual({ success: true });
    expect((await alice.browser.get(`/files/${file.id}/versions`)).statusCode).toBe(404);
    expect((await alice.browser.get(`/files/${file.id}/versions/2/download`)).statusCode).toBe(404);
    expect(await versionRows()).toBe(0);
    expect(await storedObjects()).toEqual(objectsBefore);
    for (const digit of ['5', '6', '7']) await uploadOk(test, alice, sized(digit), `fresh-${digit}.csv`);
    await deleteEverything(alice);
    expect(await storedObjects()).toEqual(objectsBefore);
  });

  it('counts earlier versions as files against FILES_MAX_PER_USER, and says so', async () => {
    await uploadOk(test, alice, prices(1), 'a.csv');
    for (let index = 2; index <= MAX_FILES; index += 1) await uploadOk(test, alice, prices(index), 'b.csv');
    const refused = await upload(test, alice, prices(99), 'c.csv');
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 413,
      body: {
        error: `You have ${MAX_FILES} files, ${MAX_FILES - 2} of them earlier versions, the most you can keep is ${MAX_FILES}. Delete some files or earlier versions to upload more.`,
      },
    });
    await deleteEverything(alice);
  });

  it('keeps earlier versions’ objects when reclaiming objects no row names', async () => {
    const file = await uploadOk(test, alice, prices(1), 'kept.csv');
    await uploadOk(test, alice, prices(2), 'kept.csv');
    const objects = await storedObjects();
    const twoHoursAgo = new Date(Date.now() - 2 * ORPHAN_MIN_AGE_MS);
    for (const name of objects) {
      if (s3) s3.objects.get(name)!.modifiedAt = twoHoursAgo;
      else utimesSync(join(dataDir, 'uploads', name), twoHoursAgo, twoHoursAgo);
    }
    expect(await reclaimOrphanObjects(test.database.db, test.app.services.fileStorage)).toEqual({
      objects: 0,
      uploads: 0,
    });
    expect(await storedObjects()).toEqual(objects);
    expect((await alice.browser.get(`/files/${file.id}/versions/1/download`)).rawPayload.equals(prices(1))).toBe(true);
    await deleteEverything(alice);
  });

  it('never versions public files: the operator’s file of the same name is untouched and has one version', async () => {
    const publicUpload = await uploadOk(test, alice, prices(1), 'calendar.csv');
    // Made public as the operator's publish-file would (no owner).
    await test.database.db.update(files).set({ uploadedByUserId: null }).where(eq(files.id, publicUpload.id));
    const own = await uploadOk(test, alice, prices(2), 'calendar.csv');
    expect(own.id).not.toBe(publicUpload.id);
    expect(own).toMatchObject({ version: 1, versions: 1 });
    const publicHistory = await versionsOf(alice, publicUpload.id);
    expect(publicHistory.versions.map(({ version, current }) => ({ version, current }))).toEqual([
      { version: 1, current: true },
    ]);
    const removePublic = await alice.browser.request('DELETE', `/files/${publicUpload.id}/versions/1`);
    expect(removePublic.statusCode).toBe(403);
    await test.database.db.delete(files).where(eq(files.id, publicUpload.id));
    await deleteEverything(alice);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('file versions on PostgreSQL across two instances', () => {
  let dataDir: string;
  let close: () => Promise<void>;
  let tests: TestApp[];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watos-versions-pg-'));
    const database = await openTestDatabase('postgres');
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      MARKET_DATA: 'demo',
      DATA_DIR: dataDir,
      UPLOAD_RATE_LIMIT_PER_MINUTE: '10000',
    });
    const apps = [
      await buildApp({ config, database, webRoot: null, logger: false }),
      await buildApp({ config, database, webRoot: null, logger: false }),
    ];
    for (const app of apps) await app.ready();
    tests = apps.map((app) => ({ app, database, config, close: () => Promise.resolve() }));
    close = async () => {
      for (const app of apps) await app.close();
      await database.close();
    };
  });
  afterAll(async () => {
    await close?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'numbers 20 same-name uploads sent at once to two instances 1 to 20, keeping every version',
    { timeout: 120_000 },
    async () => {
      const [first, second] = tests;
      const erin = await subscribedUser(first!, 'versions-pg-erin@example.com');
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          upload(index % 2 === 0 ? first! : second!, erin, prices(index), 'race.csv'),
        ),
      );
      expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(201));
      const ids = new Set(responses.map((response) => jsonBody<{ file: FileEntry }>(response).file.id));
      expect(ids.size).toBe(1);
      const [id] = ids;
      const history = await versionsOf(erin, id!);
      expect(history.versions.map((version) => version.version)).toEqual(
        Array.from({ length: 20 }, (_, index) => 20 - index),
      );
      // Every version holds the bytes of exactly one of the uploads.
      const bodies = new Set<string>();
      for (const version of history.versions) bodies.add((await erin.browser.get(version.url)).body);
      expect(bodies).toEqual(new Set(Array.from({ length: 20 }, (_, index) => prices(index).toString())));
      expect(await readdir(join(dataDir, 'uploads'))).toHaveLength(20);
    },
  );
});
