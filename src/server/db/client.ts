// One factory for the database: PGlite (Postgres compiled to WASM) in DATA_DIR/db by default,
// PostgreSQL when DATABASE_URL is set. Both are reached through node-postgres (`pg`): PGlite runs
// on a thread of its own (pgliteThread.ts) behind a pool whose connections are message channels
// to it. Both speak the same schema and migrations.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { startPgliteThread } from './pgliteThread.ts';
import * as schema from './schema.ts';

type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** How many migrations this build ships (drizzle's journal). */
export function expectedMigrationCount(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/** How many migrations the database has applied (the health check compares the two). */
export async function appliedMigrationCount(db: Database): Promise<number> {
  const result = await db.execute<{ applied: number }>(
    sql`select count(*)::int as applied from drizzle.__drizzle_migrations`,
  );
  return (result as { rows: Array<{ applied: number }> }).rows[0]?.applied ?? 0;
}

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /** Applies every pending migration (idempotent). */
  migrate(): Promise<void>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent PGlite is used. */
  databaseUrl?: string;
  /** PGlite directory; absent means an in-memory PGlite (tests). */
  pgliteDir?: string;
  /** In-memory PGlite only: a data-directory dump to start from (tests' migrated template). */
  pgliteSnapshot?: string;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
  /**
   * Told when an idle PostgreSQL connection dies (server restart, admin termination). The
   * pool drops that connection and opens a new one on the next query; without a listener
   * node-postgres would crash the process instead.
   */
  onConnectionError?: (error: Error) => void;
}

function reportConnectionError(error: Error): void {
  process.stderr.write(`database connection lost (it is replaced on the next query): ${error.message}\n`);
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.maxConnections ?? 10 });
    const onConnectionError = options.onConnectionError ?? reportConnectionError;
    pool.on('error', onConnectionError);
    const db = drizzlePg({ client: pool, schema }) as unknown as Database;
    return {
      db,
      driver: 'postgres',
      migrate: () => migratePg(drizzlePg({ client: pool, schema }), { migrationsFolder }),
      ping: async () => {
        await db.execute(sql`select 1`);
      },
      close: () => pool.end(),
    };
  }

  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  // PGlite on a thread of its own, reached like PostgreSQL through a node-postgres pool.
  const thread = await startPgliteThread(
    options.pgliteDir ?? null,
    undefined,
    options.pgliteDir ? null : (options.pgliteSnapshot ?? null),
  );
  const db = drizzlePg({ client: thread.pool, schema }) as unknown as Database;
  let closed = false;
  return {
    db,
    driver: 'pglite',
    migrate: () => migratePg(drizzlePg({ client: thread.pool, schema }), { migrationsFolder }),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await thread.close();
    },
  };
}
