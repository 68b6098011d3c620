// One process at a time on a PGlite data directory: a second open (a second server, or the
// admin CLI beside a running server) is refused with a clear error and loses nothing; a close
// releases the directory; a lock a crashed process left behind is taken over once stale.
import { mkdirSync, mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './client.ts';

const dir = join(mkdtempSync(join(tmpdir(), 'watos-lock-')), 'db');
const opened: DatabaseHandle[] = [];
const kept = async (database: DatabaseHandle) => {
  const result = await database.db.execute<{ value: number }>(sql`select value from kept`);
  return (result as { rows: Array<{ value: number }> }).rows;
};
afterAll(async () => {
  for (const database of opened) await database.close();
});

describe('the PGlite data directory lock', () => {
  it('refuses a second process, and a close releases the directory', { timeout: 120_000 }, async () => {
    const first = await openDatabase({ pgliteDir: dir });
    opened.push(first);
    await first.db.execute(sql`create table kept (value int)`);
    await first.db.execute(sql`insert into kept values (42)`);

    await expect(openDatabase({ pgliteDir: dir, lockWaitMs: 0 })).rejects.toThrow(
      `The embedded database in ${dir} is in use by another process (a running server?). Stop that process first`,
    );
    // The holder still works, and what it holds is intact.
    expect(await kept(first)).toEqual([{ value: 42 }]);

    await first.close();
    const second = await openDatabase({ pgliteDir: dir, lockWaitMs: 0 });
    opened.push(second);
    expect(await kept(second)).toEqual([{ value: 42 }]);
    await second.close();
  });

  it('takes over a lock that a crashed process left behind once it is stale', { timeout: 120_000 }, async () => {
    // What a SIGKILLed holder leaves: the lock directory, no longer refreshed.
    const lockDir = `${dir}.lock`;
    mkdirSync(lockDir);
    const fresh = openDatabase({ pgliteDir: dir, lockWaitMs: 0 });
    await expect(fresh).rejects.toThrow('is in use by another process');

    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lockDir, longAgo, longAgo);
    const database = await openDatabase({ pgliteDir: dir, lockWaitMs: 0 });
    opened.push(database);
    expect(await kept(database)).toEqual([{ value: 42 }]);
    await database.close();
  });
});
