// Upload validation without HTTP (the path publish-file takes): safe names, the size limit on
// a plain stream, the disk storage's clean-up after dead writers, and the download header
// for any name.
import { spawnSync } from 'node:child_process';
import { pbkdf2, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../errors/domain.ts';
import { xlsxWorkbook } from '../testing/spreadsheets.ts';
import { createDiskStorage, temporaryName, writerIsGone } from './disk.ts';
import { attachmentDisposition } from './routes.ts';
import { assertStorageKey } from './storage.ts';
import { safeOriginalFilename, storeSpreadsheet } from './uploads.ts';

const pbkdf2Async = promisify(pbkdf2);
const dataDir = mkdtempSync(join(tmpdir(), 'watos-uploads-'));
const storage = createDiskStorage(dataDir);
afterAll(async () => {
  await storage.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('safeOriginalFilename', () => {
  it('keeps the last path segment without control characters, extension kept when shortened', () => {
    expect(safeOriginalFilename('C:\\Users\\me\\Desktop\\trades.csv')).toBe('trades.csv');
    expect(safeOriginalFilename('../../etc/passwd.csv')).toBe('passwd.csv');
    expect(safeOriginalFilename('  spaced name.xlsx  ')).toBe('spaced name.xlsx');
    expect(safeOriginalFilename('bell\u0007and\u009bcsi.csv')).toBe('bellandcsi.csv');
    expect(safeOriginalFilename(`${'é'.repeat(250)}.xlsx`)).toBe(`${'é'.repeat(195)}.xlsx`);
  });
});

describe('storeSpreadsheet on a plain stream', () => {
  it('refuses a stream past the limit with 413 and leaves nothing, for CSV and xlsx', async () => {
    const tooLong = Readable.from([Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b')]);
    const csv = storeSpreadsheet(
      storage,
      { source: tooLong, filename: 'big.csv', mimeType: 'text/csv' },
      { maxBytes: 1000 },
    );
    await expect(csv).rejects.toBeInstanceOf(DomainError);
    // 'too-large' answers 413 (DOMAIN_ERROR_STATUS).
    await expect(csv).rejects.toMatchObject({ kind: 'too-large', message: expect.stringMatching(/upload limit\.$/) });
    const workbook = await xlsxWorkbook({ S: [['x'.repeat(2000)]] });
    const xlsx = storeSpreadsheet(
      storage,
      {
        source: Readable.from([workbook]),
        filename: 'big.xlsx',
        mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
      { maxBytes: 1000 },
    );
    await expect(xlsx).rejects.toMatchObject({ kind: 'too-large' });
    expect(await readdir(join(dataDir, 'uploads'))).toEqual([]);
  });

  it('stores a valid workbook under a server-made key', async () => {
    const workbook = await xlsxWorkbook({ S: [['Symbol'], ['BTC']] });
    const stored = await storeSpreadsheet(
      storage,
      {
        source: Readable.from([workbook]),
        filename: '../x/book.xlsx',
        mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
      { maxBytes: 10_000_000 },
    );
    expect(stored).toMatchObject({ kind: 'xlsx', size: workbook.length, originalFilename: 'book.xlsx' });
    expect(() => assertStorageKey(stored.storageKey)).not.toThrow();
    expect(await readdir(join(dataDir, 'uploads'))).toEqual([stored.storageKey]);
    const back: Buffer[] = [];
    for await (const chunk of await storage.get(stored.storageKey)) back.push(chunk as Buffer);
    expect(Buffer.concat(back).equals(workbook)).toBe(true);
  });
});

describe('disk storage temporaries left by dead writers', () => {
  it("removes at start those of dead processes of this host and old ones, keeps live writers' fresh ones", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'watos-sweep-'));
    const uploads = join(folder, 'uploads');
    mkdirSync(uploads);
    const host = /^\.partial-([0-9a-f]{12})-/.exec(temporaryName())![1];
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const uuid = () => randomUUID();
    const names = {
      deadHere: `.partial-${host}-${deadPid}-${uuid()}`,
      earlierLifeOfThisPid: `.partial-${host}-${process.pid}-${uuid()}`,
      aliveHere: `.partial-${host}-${process.ppid}-${uuid()}`,
      otherHostFresh: `.partial-0123456789ab-${process.ppid}-${uuid()}`,
      otherHostOld: `.partial-0123456789ab-1-${uuid()}`,
      unnamedOld: `.partial-${uuid()}`,
      object: `${uuid()}.csv`,
    };
    for (const name of Object.values(names)) writeFileSync(join(uploads, name), 'date,price\n');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(uploads, names.otherHostOld), twoHoursAgo, twoHoursAgo);
    utimesSync(join(uploads, names.unnamedOld), twoHoursAgo, twoHoursAgo);
    utimesSync(join(uploads, names.object), twoHoursAgo, twoHoursAgo);

    const swept = createDiskStorage(folder);
    await swept.close();
    try {
      expect((await readdir(uploads)).sort()).toEqual([names.aliveHere, names.otherHostFresh, names.object].sort());
      expect(writerIsGone(names.aliveHere, true)).toBe(false);
      // A running server never takes its own writes for a dead process's.
      expect(writerIsGone(temporaryName(), false)).toBe(false);
      expect(writerIsGone(temporaryName(), true)).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('disk storage write that fails', () => {
  it('leaves no temporary when the body fails before the temporary file is even open', async () => {
    // A body refused at once (an empty CSV fails at its end, a sender gone) makes the write fail
    // while the temporary may still be opening on libuv's thread pool: removing it then must
    // wait until the stream has closed. The pool is kept busy here (password hashing and
    // compression do that on a loaded server), so the opens come late.
    const before = (await readdir(join(dataDir, 'uploads'))).length;
    const busy = Array.from({ length: 8 }, () => pbkdf2Async('x', 'salt', 60_000, 32, 'sha512'));
    const writes = Array.from({ length: 8 }, () => {
      const failing = new Readable({ read() {} });
      failing.destroy(new Error('refused'));
      return storage.put(`${randomUUID()}.csv`, failing, 'text/csv').then(
        () => 'stored',
        () => 'refused',
      );
    });
    expect(await Promise.all(writes)).toEqual(Array(8).fill('refused'));
    await Promise.all(busy);
    // Every open the writes started has finished by now (the pool drained).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await readdir(join(dataDir, 'uploads'))).toHaveLength(before);
  });
});

describe('storage keys', () => {
  it('refuses anything but a server-made key', () => {
    for (const key of ['../etc/passwd', 'a/b.csv', 'x.csv', '.partial-1', '00000000-0000-4000-8000-000000000000.exe']) {
      expect(() => assertStorageKey(key)).toThrow(/Refusing storage key/);
    }
  });
});

describe('attachmentDisposition', () => {
  it('is a plain ASCII header for any name, and its filename* gives the exact name back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (name) => {
        const header = attachmentDisposition(name);
        expect(header).toMatch(/^attachment; filename="[\x20-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]*$/);
        expect(header.match(/filename="([^"]*)"/)?.[1]).not.toMatch(/["\\]/);
        expect(decodeURIComponent(header.split("UTF-8''")[1]!)).toBe(name);
      }),
    );
  });
});
