// Test databases: one per test file. With TEST_DATABASE_URL set, a freshly created PostgreSQL
// database (dropped afterwards) so parallel or repeated runs never collide; otherwise an
// in-memory PGlite (started from a migrated template when vitest's global setup made one).
// Tests isolate from each other with truncateAll, never a new database.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from './client.ts';

export interface TestDatabase extends DatabaseHandle {
  /** Empties every application table (keeps the migration journal). */
  truncateAll(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs `run` on a connection of its own to the TEST_DATABASE_URL server (create, drop, terminate). */
export async function withAdminClient<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export async function openTestDatabase(
  driver: 'pglite' | 'postgres' = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite',
): Promise<TestDatabase> {
  let handle: DatabaseHandle;
  let dropDatabase: (() => Promise<void>) | undefined;
  let dropping = false;

  if (driver === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
    const name = `watos_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
    await withAdminClient((admin) => admin.query(`create database "${name}"`));
    handle = await openDatabase({
      databaseUrl: withDatabase(adminUrl, name),
      maxConnections: 4,
      // Dropping the database terminates connections the pool is still closing: expected then.
      onConnectionError: (error) => {
        if (!dropping) process.stderr.write(`test database connection lost: ${error.message}\n`);
      },
    });
    dropDatabase = async () => {
      dropping = true;
      await withAdminClient((admin) => admin.query(`drop database if exists "${name}" with (force)`));
    };
  } else {
    // Vitest's global setup (src/server/testing/pgliteTemplate.ts) names a migrated template.
    handle = await openDatabase({ pgliteSnapshot: process.env.PGLITE_TEST_TEMPLATE });
  }
  await handle.migrate();

  return {
    ...handle,
    async truncateAll() {
      const rows = await handle.db.execute<{ tablename: string }>(
        sql`select tablename from pg_tables where schemaname = 'public'`,
      );
      const tables = (rows as { rows: Array<{ tablename: string }> }).rows.map((row) => `"${row.tablename}"`);
      if (tables.length > 0) await handle.db.execute(sql.raw(`truncate ${tables.join(', ')} restart identity cascade`));
    },
    async close() {
      await handle.close();
      await dropDatabase?.();
    },
  };
}
