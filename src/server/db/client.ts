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
  /**
   * Tries to take a session-level advisory lock (one leader among all instances; `key` a
   * non-negative integer). Resolves to the held lock when taken, null when another instance
   * holds it. `onLost` is called once if the lock's connection dies or stops answering (the
   * lock is then, or soon, free for another instance).
   */
  tryLeadership(key: number, onLost?: () => void): Promise<Leadership | null>;
  close(): Promise<void>;
}

/** A held leadership lock: call it to release the lock and close its connection. */
export interface Leadership {
  (): Promise<void>;
  /** Asks PostgreSQL whether this connection still holds the lock; false once it is lost. */
  held(): Promise<boolean>;
}

/**
 * The lock connection is checked this often. A leader whose connection stopped answering
 * (a network black hole: no reset, no error) notices within LOCK_PING_MS + LOCK_QUERY_TIMEOUT_MS
 * and steps down, before PostgreSQL ends the silent session after LOCK_IDLE_TIMEOUT_S and hands
 * the lock to a standby: so two instances never both believe they lead.
 */
const LOCK_PING_MS = 1_000;
const LOCK_QUERY_TIMEOUT_MS = 2_500;
const LOCK_IDLE_TIMEOUT_S = 6;

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
      // The lock belongs to a connection, so it gets one of its own outside the pool.
      tryLeadership: async (key, onLost) => {
        const client = new pg.Client({
          connectionString: options.databaseUrl,
          keepAlive: true,
          keepAliveInitialDelayMillis: 2_000,
          connectionTimeoutMillis: 5_000,
          query_timeout: LOCK_QUERY_TIMEOUT_MS,
        });
        let holding = false;
        let done = false;
        let ping: NodeJS.Timeout | undefined = undefined;
        const lose = (error?: Error) => {
          if (!holding || done) return;
          done = true;
          clearInterval(ping);
          if (error) onConnectionError(error);
          // Ending it makes PostgreSQL free the lock now if the connection was only slow; a
          // hung connection is destroyed (pg does that when a query is still outstanding).
          client.end().catch(() => undefined);
          onLost?.();
        };
        client.on('error', (error) => lose(error));
        client.on('end', () => lose(new Error('the leadership lock connection closed')));
        try {
          await client.connect();
          // PostgreSQL ends this session, freeing the lock, when it hears nothing for
          // LOCK_IDLE_TIMEOUT_S (the pings below keep a live leader's session busy) or when TCP
          // keepalives go unanswered: a leader that vanished without closing its connection
          // does not keep the lock for hours. Older servers without these settings skip them.
          await client
            .query(
              `select set_config('idle_session_timeout', '${LOCK_IDLE_TIMEOUT_S}s', false),
                      set_config('tcp_keepalives_idle', '5', false),
                      set_config('tcp_keepalives_interval', '2', false),
                      set_config('tcp_keepalives_count', '3', false)`,
            )
            .catch(() => undefined);
          const result = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1) as taken', [key]);
          if (!result.rows[0]?.taken) {
            await client.end();
            return null;
          }
        } catch (error) {
          await client.end().catch(() => undefined);
          throw error;
        }
        holding = true;
        ping = setInterval(() => {
          client.query('select 1').catch((error: Error) => lose(error));
        }, LOCK_PING_MS);
        ping.unref();
        const release = async () => {
          if (done) return;
          done = true;
          clearInterval(ping);
          await client.query('select pg_advisory_unlock($1)', [key]).catch(() => undefined);
          await client.end().catch(() => undefined);
        };
        return Object.assign(release, {
          held: async () => {
            if (done) return false;
            try {
              const check = await client.query<{ held: boolean }>(
                `select exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
                                  and ((classid::bigint << 32) | objid::bigint) = $1 and objsubid = 1) as held`,
                [key],
              );
              if (check.rows[0]?.held) return true;
              lose(new Error('the leadership lock is no longer held'));
            } catch (error) {
              lose(error as Error);
            }
            return false;
          },
        });
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
    // PGlite serves exactly one process, which is therefore always the leader.
    tryLeadership: async () => Object.assign(async () => undefined, { held: async () => !closed }),
    close: async () => {
      if (closed) return;
      closed = true;
      await thread.close();
    },
  };
}
