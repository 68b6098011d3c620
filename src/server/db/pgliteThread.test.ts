// PGlite on its own thread behind node-postgres: the wire-protocol framing it relies on, and
// what the app relies on: connections take turns (a transaction holds the one backend until it
// ends, and one left open by a vanished connection is rolled back), the server's event loop stays
// free while the database works, the data outlives a restart, and a stopped thread fails queries
// instead of leaving them waiting.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeFrames, isStartupFrame, readyStatus } from './pgliteProtocol.ts';
import { startPgliteThread, type PgliteThread } from './pgliteThread.ts';

/** A typed message: its type byte, then its length (counting itself) and body. */
function message(type: string, body: string): Buffer {
  const payload = Buffer.from(body);
  const frame = Buffer.alloc(5 + payload.length);
  frame.write(type, 0, 'latin1');
  frame.writeInt32BE(4 + payload.length, 1);
  payload.copy(frame, 5);
  return frame;
}

describe('wire-protocol framing', () => {
  it('takes the whole messages and keeps a partial one for later', () => {
    const query = message('Q', 'select 1\0');
    const sync = message('S', '');
    const bytes = Buffer.concat([query, sync, query.subarray(0, 7)]);
    const { frames, rest, terminated } = completeFrames(bytes);
    expect(Buffer.concat(frames)).toEqual(Buffer.concat([query, sync]));
    expect(rest).toEqual(query.subarray(0, 7));
    expect(terminated).toBe(false);
    expect(completeFrames(Buffer.concat([rest, query.subarray(7)])).frames).toEqual([query]);
    expect(completeFrames(query.subarray(0, 3))).toMatchObject({ frames: [], terminated: false });
  });

  it('stops at a Terminate and never passes it on', () => {
    const query = message('Q', 'select 1\0');
    const { frames, terminated } = completeFrames(Buffer.concat([query, message('X', ''), query]));
    expect(terminated).toBe(true);
    expect(Buffer.concat(frames)).toEqual(query);
  });

  it('refuses a length that cannot be', () => {
    const bad = Buffer.from([0x51, 0, 0, 0, 2]);
    expect(() => completeFrames(bad)).toThrow(/malformed/);
  });

  it('knows a whole startup message by its length', () => {
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8, 0);
    expect(isStartupFrame(startup)).toBe(true);
    expect(isStartupFrame(startup.subarray(0, 6))).toBe(false);
  });

  it('reads the transaction status of a final ReadyForQuery, even split across chunks', () => {
    const ready = (status: string) => Buffer.from([0x5a, 0, 0, 0, 5, status.charCodeAt(0)]);
    const complete = message('C', 'SELECT 1\0');
    expect(readyStatus([complete, ready('I')])).toBe('I');
    expect(readyStatus([Buffer.concat([complete, ready('T').subarray(0, 2)]), ready('T').subarray(2)])).toBe('T');
    expect(readyStatus([complete, ready('E')])).toBe('E');
    // An extended query without its Sync yet: no ReadyForQuery at the end.
    expect(readyStatus([complete])).toBeNull();
    expect(readyStatus([])).toBeNull();
  });
});

describe('PGlite on its own thread', () => {
  let thread: PgliteThread;

  beforeAll(async () => {
    thread = await startPgliteThread(null);
    await thread.pool.query('create table items (id serial primary key, label text not null)');
  });
  afterAll(async () => {
    await thread?.close();
  });

  it('answers with the types node-postgres gives for PostgreSQL', async () => {
    const { rows } = await thread.pool.query(
      `select $1::int as n, '{"a":[1]}'::jsonb as j, 'x' || $2 as t, timestamptz '2024-02-29T12:00:00Z' as at, 9007199254740993::bigint as big`,
      [41, 'y'],
    );
    expect(rows).toEqual([
      { n: 41, j: { a: [1] }, t: 'xy', at: new Date('2024-02-29T12:00:00Z'), big: '9007199254740993' },
    ]);
    await expect(thread.pool.query('select no_such_column')).rejects.toThrow(/no_such_column/);
    // The error left nothing behind: the next query on the same connections works.
    expect((await thread.pool.query('select 2 as two')).rows).toEqual([{ two: 2 }]);
  });

  it("holds the other connections while one's transaction is open, then lets them see its outcome", async () => {
    const writer = await thread.pool.connect();
    try {
      await writer.query('begin');
      await writer.query(`insert into items (label) values ('uncommitted')`);
      let counted = false;
      const count = thread.pool.query<{ n: number }>('select count(*)::int as n from items').then((result) => {
        counted = true;
        return result.rows[0]!.n;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Inside the writer's transaction it would have counted the uncommitted row.
      expect(counted).toBe(false);
      await writer.query('rollback');
      expect(await count).toBe(0);
    } finally {
      writer.release();
    }
  });

  it('rolls back what a vanished connection left open, and the others go on', async () => {
    const client = await thread.pool.connect();
    await client.query('begin');
    await client.query(`insert into items (label) values ('abandoned')`);
    // The connection dies mid-transaction (released as broken: the pool closes it).
    client.release(new Error('gone'));
    const { rows } = await thread.pool.query<{ n: number }>(
      `select count(*)::int as n from items where label = 'abandoned'`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it("keeps the server's event loop free while the database works", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const started = performance.now();
      await thread.pool.query('select pg_sleep(0.5)');
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(450);
      // On the server's thread the timer could not have fired during the sleep at all.
      expect(ticks).toBeGreaterThanOrEqual(10);
    } finally {
      clearInterval(timer);
    }
  });
});

/**
 * Runs a script in a process of its own (with startPgliteThread imported) and answers what it
 * printed and how it ended. `source` gets a directory of its own for the script's files.
 */
function runScript(source: (dir: string) => string): { stderr: string; stdout: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-thread-script-'));
  try {
    const file = join(dir, 'script.mjs');
    const entry = JSON.stringify(new URL('./pgliteThread.ts', import.meta.url).href);
    writeFileSync(file, `const { startPgliteThread } = await import(${entry});\n${source(dir)}`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8', timeout: 60_000 });
    return { stderr: run.stderr, stdout: run.stdout.trim(), status: run.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('PGlite thread lifetime', () => {
  it('keeps the data in its directory across a close and a new start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-thread-'));
    try {
      const first = await startPgliteThread(dir);
      await first.pool.query('create table kept (v text)');
      await first.pool.query(`insert into kept values ('still here')`);
      await first.close();
      const second = await startPgliteThread(dir);
      try {
        expect((await second.pool.query('select v from kept')).rows).toEqual([{ v: 'still here' }]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a process alive while a query waits, and lets it end once idle, closed or not', () => {
    const run = runScript(
      () => `
      const thread = await startPgliteThread(null);
      // Nothing but the query keeps this process alive while it sleeps in the database.
      const { rows } = await thread.pool.query('select pg_sleep(0.3), 7 as seven');
      console.log(JSON.stringify(rows[0].seven));
    `,
    );
    expect(run).toEqual({ stderr: '', stdout: '7', status: 0 });
  });

  it('finishes a close begun while a query runs, though that query was all that kept the process alive', () => {
    // The shutdown of `npm start`: the HTTP server and timers are gone, a last query is still in
    // the database, and the close must still complete (PGlite's files) before the process ends.
    const run = runScript(
      (dir) => `
      // A directory with fresh writes, as \`npm start\` has: its close checkpoints them to files,
      // which takes a while.
      const thread = await startPgliteThread(${JSON.stringify(join(dir, 'db'))});
      await thread.pool.query('create table filler as select generate_series(1, 200000) as v');
      const last = thread.pool.query('select pg_sleep(0.3)').then(() => 'answered', () => 'refused');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await thread.close();
      console.log('closed', await last);
    `,
    );
    expect(run).toEqual({ stderr: '', stdout: 'closed answered', status: 0 });
  });

  it('fails queries with an error, not a wait, once the thread has stopped', async () => {
    const thread = await startPgliteThread(null);
    try {
      expect((await thread.pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      await thread.worker.terminate();
      await expect(thread.pool.query('select 1')).rejects.toThrow(/PGlite thread exited/);
      // A new connection too, not only the pooled one.
      const fresh = new pg.Client({
        stream: (thread.pool as unknown as { options: { stream: unknown } }).options.stream,
      } as pg.ClientConfig);
      await expect(fresh.connect()).rejects.toThrow(/PGlite thread exited/);
    } finally {
      await thread.close();
    }
  });
});
