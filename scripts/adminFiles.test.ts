// The operator's public-file commands (run in this process) against a real embedded database and
// disk storage:
// publish (validated like an upload), list, unpublish, and clear refusals.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/server/db/client.ts';
import { files } from '../src/server/db/schema.ts';
import { adminCommand } from './adminCommands.ts';
import { adminTestEnv } from './adminTestEnv.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'watos-admin-files-'));
const inputs = mkdtempSync(join(tmpdir(), 'watos-admin-inputs-'));

function admin(...args: string[]) {
  return adminCommand(args, adminTestEnv(dataDir));
}

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(inputs, { recursive: true, force: true });
});

describe('npm run admin -- publish-file / list-public-files / unpublish-file', () => {
  it('publishes a CSV under a chosen name, lists it, and removes it again', { timeout: 180_000 }, async () => {
    const csv = join(inputs, 'calendar-2026.csv');
    const content = 'date,event\n2026-03-18,FOMC\n';
    writeFileSync(csv, content);
    expect(content.length).toBe(27);

    const published = await admin('publish-file', csv, '--name', 'Economic Calendar.csv');
    expect(published.err).toBe('');
    const id = /as public file ([0-9a-f-]{36})\.$/.exec(published.out)?.[1];
    expect(published.out).toMatch(/^Published Economic Calendar\.csv \(27 Bytes\) as public file [0-9a-f-]{36}\.$/);
    expect(readdirSync(join(dataDir, 'uploads'))).toEqual([expect.stringMatching(/^[0-9a-f-]{36}\.csv$/)]);

    const database = await openDatabase({ pgliteDir: join(dataDir, 'db') });
    try {
      const rows = await database.db.select().from(files);
      expect(rows.map((row) => [row.id, row.originalFilename, row.uploadedByUserId, row.fileSize])).toEqual([
        [id, 'Economic Calendar.csv', null, 27],
      ]);
    } finally {
      await database.close();
    }

    const listed = await admin('list-public-files');
    expect(listed.out).toMatch(
      new RegExp(`^${id}\\s+27 Bytes\\s+\\d{4}-\\d{2}-\\d{2}T\\S+\\s+Economic Calendar\\.csv$`),
    );

    const removed = await admin('unpublish-file', '--id', id!);
    expect(removed.out).toBe(`Removed public file Economic Calendar.csv (${id}).`);
    expect(readdirSync(join(dataDir, 'uploads'))).toEqual([]);
    expect((await admin('list-public-files')).out).toBe('No public files.');
  });

  it('refuses what an upload would refuse, and explains bad arguments', { timeout: 180_000 }, async () => {
    const text = join(inputs, 'notes.txt');
    writeFileSync(text, 'hello');
    const wrongType = await admin('publish-file', text);
    expect(wrongType.status).toBe(2);
    expect(wrongType.err).toContain('Please select a CSV or Excel file. Only .csv, .xls and .xlsx files are accepted.');

    const disguised = join(inputs, 'disguised.xlsx');
    writeFileSync(disguised, 'a,b\n1,2\n');
    const badContent = await admin('publish-file', disguised);
    expect(badContent.status).toBe(2);
    expect(badContent.err).toContain("The file's content is not an Excel (.xlsx) workbook");

    expect((await admin('publish-file', join(inputs, 'missing.csv'))).err).toContain(
      `No file at ${join(inputs, 'missing.csv')}`,
    );
    expect((await admin('unpublish-file', '--id', 'nope')).err).toContain('No public file with id nope');
    expect(readdirSync(join(dataDir, 'uploads'))).toEqual([]);
  });
});
