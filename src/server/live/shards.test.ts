// Shard leases on real PostgreSQL (TEST_DATABASE_URL; skipped otherwise): two instances share
// the shards about half each, never both holding one, and a dead instance's shards move to the
// survivor within seconds; the embedded setup holds every shard.
import { afterEach, describe, expect, it } from 'vitest';
import { createAllShards, createPostgresShards, SHARD_COUNT, shardOf, type ShardLeases } from './shards.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const quiet = { info: () => undefined, warn: () => undefined };

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('shardOf', () => {
  it('spreads the symbol table over every shard, the same way every time', () => {
    const symbols = Array.from({ length: 2_000 }, (_, index) => `SYM${index}`);
    const counts = new Array<number>(SHARD_COUNT).fill(0);
    for (const symbol of symbols) counts[shardOf(symbol)]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(2_000 / SHARD_COUNT / 2);
    expect(shardOf('BTC-USD')).toBe(shardOf('BTC-USD'));
    expect(shardOf('BTC-USD')).toBeGreaterThanOrEqual(0);
  });

  it('the embedded setup owns every shard', () => {
    const all = createAllShards();
    expect(all.held().size).toBe(SHARD_COUNT);
    expect(all.owns('AAPL')).toBe(true);
  });
});

describe.skipIf(!databaseUrl)('shard leases on PostgreSQL', () => {
  const open: ShardLeases[] = [];
  // A lock class and group of this run's own, so no other test file's leases count.
  const lockClass = 0x10000 + Math.floor(Math.random() * 0x7fff0000);
  const group = `test-${lockClass}`;
  const leases = () => {
    const made = createPostgresShards({ databaseUrl: databaseUrl!, group, lockClass, rebalanceMs: 100, log: quiet });
    open.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((made) => made.close()));
  });

  it('one instance holds every shard; a second takes about half; none is held twice', async () => {
    const first = leases();
    await until(() => first.held().size === SHARD_COUNT);
    const second = leases();
    await until(() => first.held().size === SHARD_COUNT / 2 && second.held().size === SHARD_COUNT / 2);
    for (const shard of first.held()) expect(second.held().has(shard)).toBe(false);
    // Every symbol has exactly one owner.
    for (const symbol of ['BTC-USD', 'AAPL', 'MES1!', 'SPY', 'ETH-USD'])
      expect(Number(first.owns(symbol)) + Number(second.owns(symbol))).toBe(1);
  });

  it("a closed instance's shards move to the survivor", async () => {
    const first = leases();
    const second = leases();
    await until(() => first.held().size + second.held().size === SHARD_COUNT && second.held().size > 0);
    const changes: number[] = [];
    first.onChange((held) => changes.push(held.size));
    await second.close();
    await until(() => first.held().size === SHARD_COUNT);
    expect(changes.at(-1)).toBe(SHARD_COUNT);
  });

  it('a lost connection drops every shard at once and takes them back after reconnecting', async () => {
    const first = leases();
    await until(() => first.held().size === SHARD_COUNT);
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const seen: number[] = [];
    first.onChange((held) => seen.push(held.size));
    try {
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [
        `watos-shards:${group}`,
      ]);
    } finally {
      await admin.end();
    }
    await until(() => seen.includes(0) && first.held().size === SHARD_COUNT);
  });
});
