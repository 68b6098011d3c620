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
import lockfile from 'proper-lockfile';
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
  /**
   * PGlite directory only: how long to wait for another process's lock on it (default 12 s:
   * longer than a crashed holder's lock takes to go stale, shorter than an operator's patience).
   */
  lockWaitMs?: number;
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

  let unlock: (() => Promise<void>) | null = null;
  if (options.pgliteDir) {
    mkdirSync(options.pgliteDir, { recursive: true });
    unlock = await lockPgliteDir(options.pgliteDir, options.lockWaitMs ?? PGLITE_LOCK_WAIT_MS);
  }
  // PGlite on a thread of its own, reached like PostgreSQL through a node-postgres pool.
  let thread: Awaited<ReturnType<typeof startPgliteThread>>;
  try {
    thread = await startPgliteThread(
      options.pgliteDir ?? null,
      undefined,
      options.pgliteDir ? null : (options.pgliteSnapshot ?? null),
    );
  } catch (error) {
    await unlock?.();
    throw error;
  }
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
      try {
        await thread.close();
      } finally {
        await unlock?.();
      }
    },
  };
}

/** A crashed holder's lock is taken over once it has not been refreshed for this long. */
const PGLITE_LOCK_STALE_MS = 10_000;
const PGLITE_LOCK_WAIT_MS = 12_000;

/**
 * PGlite allows one process at a time on a data directory: a second one (a second server, or
 * `npm run admin` beside a running server) would corrupt it. proper-lockfile holds `<dir>.lock`
 * (an atomic mkdir, refreshed every 5 s); a lock a crashed process left behind goes stale after
 * 10 s and is taken over. Resolves with the release.
 */
async function lockPgliteDir(dir: string, waitMs: number): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dir, {
      stale: PGLITE_LOCK_STALE_MS,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 1000), minTimeout: 1000, maxTimeout: 1000 } : 0,
      // A lock refresh that failed (the disk, or an event loop stalled past the stale time) is
      // said; the process keeps serving rather than dying mid-request.
      onCompromised: (error) => process.stderr.write(`database lock on ${dir} could not be kept: ${error.message}\n`),
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') {
      throw new Error(
        `The embedded database in ${dir} is in use by another process (a running server?). ` +
          'Stop that process first: PGlite allows one process at a time.',
        { cause: error },
      );
    }
    throw error;
  }
}
