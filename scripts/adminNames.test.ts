// publish-file sanitises the public file's name like an upload (sanitizeDisplayName): bidi
// controls and invisible characters are removed before the extension is read and stored.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/server/db/client.ts';
import { files } from '../src/server/db/schema.ts';
import { adminCommand } from './adminCommands.ts';
import { adminTestEnv } from './adminTestEnv.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'watos-admin-names-'));
const inputs = mkdtempSync(join(tmpdir(), 'watos-admin-names-inputs-'));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(inputs, { recursive: true, force: true });
});

describe('npm run admin -- publish-file --name with invisible characters', () => {
  it('publishes under the sanitised name, its extension read after sanitising', { timeout: 180_000 }, async () => {
    const csv = join(inputs, 'calendar.csv');
    writeFileSync(csv, 'date,event\n2026-03-18,FOMC\n');
    const run = await adminCommand(
      ['publish-file', csv, '--name', '\u202AEconomic\u200B Calendar.cs\u200Bv\u202C'],
      adminTestEnv(dataDir),
    );
    expect(run).toMatchObject({ status: 0, err: '' });
    expect(run.out).toMatch(/^Published Economic Calendar\.csv \(27 Bytes\) as public file [0-9a-f-]{36}\.$/);
    const database = await openDatabase({ pgliteDir: join(dataDir, 'db') });
    try {
      expect((await database.db.select().from(files)).map((row) => row.originalFilename)).toEqual([
        'Economic Calendar.csv',
      ]);
    } finally {
      await database.close();
    }
  });
});
