// Which instance carries which symbols' live path (issue 34, item 5). The universe is cut into
// SHARD_COUNT shards by a hash of the symbol; an instance carries a shard's upstream feeds, its
// ticks and its tick rules while it holds that shard's PostgreSQL advisory lock.
//
// Every instance keeps one connection (application_name `watos-shards:<group>`) holding its
// shards' locks. Every `rebalanceMs` it counts the connections of its group (pg_stat_activity:
// the instances alive now), takes its fair share, ceil(SHARD_COUNT / instances), of the free
// shards, and gives back what it holds beyond that share, so two instances carry about half
// each and a third joining takes its part within a round or two. A dead instance's connection
// ends (a reset at once; a silent one after the session's idle timeout, LOCK_IDLE_TIMEOUT_S)
// and PostgreSQL frees its locks; the survivors take them in their next round: well within
// 10 s. Losing our own connection drops every shard at once, before PostgreSQL could hand
// them to another instance, and reconnects with backoff.
//
// Growing further: the share rule holds for any number of instances up to SHARD_COUNT (beyond
// it, extra instances carry nothing and stand by); raise SHARD_COUNT to spread finer. The
// embedded database (PGlite) serves one process, which therefore holds every shard.
import pg from 'pg';

export const SHARD_COUNT = 16;
/** The advisory locks' first key (two-key form: this, shard). "LIVE" in ASCII. */
const SHARD_LOCK_CLASS = 0x4c495645;
/** PostgreSQL ends a silent session after this, freeing its locks. */
const LOCK_IDLE_TIMEOUT_S = 6;

/** The shard of a canonical id: FNV-1a of its characters (stable across instances and restarts). */
export function shardOf(symbol: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < symbol.length; index += 1) {
    hash ^= symbol.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARD_COUNT;
}

export interface ShardLeases {
  /** The shards this instance holds now. */
  held(): ReadonlySet<number>;
  /** Whether this instance carries the symbol now. */
  owns(symbol: string): boolean;
  /** Called after every change of the held set. */
  onChange(listener: (held: ReadonlySet<number>) => void): () => void;
  close(): Promise<void>;
}

function listenerList() {
  const listeners = new Set<(held: ReadonlySet<number>) => void>();
  return {
    add(listener: (held: ReadonlySet<number>) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit(held: ReadonlySet<number>) {
      for (const listener of listeners) listener(held);
    },
  };
}

/** One process, every shard (the embedded database, or a single instance). */
export function createAllShards(): ShardLeases {
  const all: ReadonlySet<number> = new Set(Array.from({ length: SHARD_COUNT }, (_, shard) => shard));
  return {
    held: () => all,
    owns: () => true,
    onChange: () => () => undefined,
    close: async () => undefined,
  };
}

export interface PostgresShardOptions {
  databaseUrl: string;
  /** Instances sharing the shards: the deployment's name (config.redisPrefix without the colon). */
  group?: string;
  rebalanceMs?: number;
  log: { info(details: object, message: string): void; warn(details: object, message: string): void };
  /** Tests only: a lock class of their own, so parallel test files never share shards. */
  lockClass?: number;
}

export function createPostgresShards(options: PostgresShardOptions): ShardLeases {
  const rebalanceMs = options.rebalanceMs ?? 2_000;
  const lockClass = options.lockClass ?? SHARD_LOCK_CLASS;
  const applicationName = `watos-shards:${options.group ?? 'watos'}`.slice(0, 63);
  const { log } = options;
  const changes = listenerList();
  let held = new Set<number>();
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let failures = 0;

  function setHeld(next: Set<number>) {
    const changed = next.size !== held.size || [...next].some((shard) => !held.has(shard));
    held = next;
    if (changed) {
      log.info({ shards: [...next].sort((a, b) => a - b) }, 'shards held');
      changes.emit(held);
    }
  }

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: 2_000,
      connectionTimeoutMillis: 5_000,
      query_timeout: 2_500,
    });
    // A lost connection frees every lock: drop the shards at once; the next round reconnects.
    const lost = () => {
      if (client !== next) return;
      client = null;
      setHeld(new Set());
    };
    next.on('error', lost);
    next.on('end', lost);
    await next.connect();
    await next
      .query(
        `select set_config('idle_session_timeout', '${LOCK_IDLE_TIMEOUT_S}s', false),
                set_config('tcp_keepalives_idle', '5', false),
                set_config('tcp_keepalives_interval', '2', false),
                set_config('tcp_keepalives_count', '3', false)`,
      )
      .catch(() => undefined);
    return next;
  }

  /** One round: count the instances, give back the surplus, take free shards up to the share. */
  async function rebalance(): Promise<void> {
    if (!client) {
      const opened = await connect();
      if (closed) {
        await opened.end().catch(() => undefined);
        return;
      }
      client = opened;
    }
    const current = client;
    const counted = await current.query<{ instances: string }>(
      `select count(*) as instances from pg_stat_activity
        where application_name = $1 and datname = current_database()`,
      [applicationName],
    );
    const instances = Math.max(1, Number(counted.rows[0]?.instances ?? 1));
    const share = Math.ceil(SHARD_COUNT / instances);
    // What the locks say, not what we believe: a lock can only go with the connection.
    const mine = await current.query<{ shard: number }>(
      `select objid::int as shard from pg_locks
        where locktype = 'advisory' and pid = pg_backend_pid() and granted and classid = $1 and objsubid = 2`,
      [lockClass],
    );
    const next = new Set(mine.rows.map((row) => row.shard));
    for (const shard of [...next].sort((a, b) => b - a)) {
      if (next.size <= share) break;
      await current.query('select pg_advisory_unlock($1, $2)', [lockClass, shard]);
      next.delete(shard);
    }
    if (next.size < share) {
      // From a random place, so instances starting together do not race for the same shards.
      const start = Math.floor(Math.random() * SHARD_COUNT);
      for (let step = 0; step < SHARD_COUNT && next.size < share; step += 1) {
        const shard = (start + step) % SHARD_COUNT;
        if (next.has(shard)) continue;
        const taken = await current.query<{ taken: boolean }>('select pg_try_advisory_lock($1, $2) as taken', [
          lockClass,
          shard,
        ]);
        if (taken.rows[0]?.taken) next.add(shard);
      }
    }
    if (client === current) setHeld(next);
  }

  function schedule(delay: number) {
    if (closed) return;
    timer = setTimeout(() => {
      timer = null;
      rebalance()
        .then(
          () => {
            failures = 0;
          },
          (error: unknown) => {
            failures += 1;
            if (failures === 1) log.warn({ err: error }, 'live path: could not rebalance the shards');
            // Anything we could not confirm is not ours any more.
            const broken = client;
            client = null;
            setHeld(new Set());
            void broken?.end().catch(() => undefined);
          },
        )
        .finally(() => schedule(failures > 0 ? Math.min(rebalanceMs * 2 ** failures, 30_000) : rebalanceMs));
    }, delay);
    timer.unref();
  }

  schedule(0);
  return {
    held: () => held,
    owns: (symbol) => held.has(shardOf(symbol)),
    onChange: (listener) => changes.add(listener),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = null;
      setHeld(new Set());
      // Ending the session frees its locks at once.
      await current?.end().catch(() => undefined);
    },
  };
}
