// One factory for the database: PGlite (Postgres compiled to WASM) in DATA_DIR/db by default,
// PostgreSQL through `pg` when DATABASE_URL is set. Both speak the same schema and migrations.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /** Applies every pending migration (idempotent). */
  migrate(): Promise<void>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /**
   * Tries to take a session-level advisory lock (one leader among all instances). Resolves
   * to a release function when taken, null when another instance holds it. `onLost` is
   * called if the lock's connection dies (the lock is then free for another instance).
   */
  tryLeadership(key: number, onLost?: () => void): Promise<(() => Promise<void>) | null>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent PGlite is used. */
  databaseUrl?: string;
  /** PGlite directory; absent means an in-memory PGlite (tests). */
  pgliteDir?: string;
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
      // The lock belongs to a connection, so it gets one of its own outside the pool.
      tryLeadership: async (key, onLost) => {
        const client = new pg.Client({ connectionString: options.databaseUrl });
        client.on('error', (error) => {
          onConnectionError(error);
          onLost?.();
        });
        await client.connect();
        const result = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1) as taken', [key]);
        if (!result.rows[0]?.taken) {
          await client.end();
          return null;
        }
        return async () => {
          await client.query('select pg_advisory_unlock($1)', [key]).catch(() => undefined);
          await client.end();
        };
      },
      close: () => pool.end(),
    };
  }

  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const client = await PGlite.create(options.pgliteDir ? { dataDir: options.pgliteDir } : {});
  const pgliteDb = drizzlePglite({ client, schema });
  const db = pgliteDb as unknown as Database;
  let closed = false;
  return {
    db,
    driver: 'pglite',
    migrate: () => migratePglite(pgliteDb, { migrationsFolder }),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    // PGlite serves exactly one process, which is therefore always the leader.
    tryLeadership: async () => async () => undefined,
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}
