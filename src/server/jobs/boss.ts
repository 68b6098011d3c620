// Background jobs through pg-boss, on whichever database the app runs: PostgreSQL (the app's
// pg pool) or the embedded PGlite (the pool onto its thread, db/pgliteThread.ts). pg-boss keeps its tables in its own
// schema `pgboss`, creates and upgrades them itself on start, and hands a job to one worker at
// a time (FOR UPDATE SKIP LOCKED), so several instances on one PostgreSQL never run a job twice.
//
// pg-boss normally opens its own pool from a connection string; here it gets a `db` adapter
// onto the pool the app already has, which is what lets it run on PGlite at all.
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { DatabaseHandle } from '../db/client.ts';

export const BOSS_SCHEMA = 'pgboss';

export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * Runs pg-boss's SQL on the app's connection. pg-boss sends two kinds of text: one statement
 * with $n parameters, and parameterless scripts of several statements (its migrations and its
 * maintenance, wrapped in BEGIN ... COMMIT around an advisory lock). A script that fails
 * half-way leaves its explicit transaction open and aborted on that connection, which the pool
 * would hand to the app's next query (on PGlite, whose one backend serves every connection, it
 * would hold the database). Hence the ROLLBACK.
 */
export function sqlExecutor(database: DatabaseHandle): SqlExecutor {
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  return {
    async executeSql(text, values) {
      if (values && values.length > 0) return pool.query(text, values);
      const connection = await pool.connect();
      try {
        const result = (await connection.query(text)) as
          pg.QueryResult<Record<string, unknown>> | pg.QueryResult<Record<string, unknown>>[];
        return { rows: Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows };
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
  };
}

export interface BossLog {
  warn(details: object, message: string): void;
}

/**
 * A started pg-boss on the app's database. `supervise` runs pg-boss's maintenance (failing
 * jobs stuck in `active` after a crash, archiving old ones): the server wants it, a one-shot
 * admin command does not. No cron schedules are used, so the timekeeper stays off.
 */
export async function startBoss(
  database: DatabaseHandle,
  log: BossLog,
  options: { supervise: boolean },
): Promise<PgBoss> {
  const boss = new PgBoss({
    db: sqlExecutor(database),
    schema: BOSS_SCHEMA,
    supervise: options.supervise,
    schedule: false,
    migrate: true,
  });
  // pg-boss reports a failed poll or maintenance run here and goes on; unhandled it would crash.
  boss.on('error', (error) => log.warn({ err: error }, 'background job queue error'));
  await boss.start();
  return boss;
}
