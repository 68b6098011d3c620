// The whole live path under upstream faults (issue 34, "Measured": upstream faults): the real
// startLivePath (shards, Coinbase feed, owner, tick rules, coalescing publisher) with its
// Coinbase feed pointed at a local fake of Coinbase Exchange's WebSocket (fakeCoinbaseWs.ts:
// `ws`'s own server speaking the documented shapes), the rules runtime on the app's database,
// the bus and the hub. Checked: drops and silence past the heartbeat (reconnect, resubscribe,
// gap reported, ticks flow again, the screen's Stale then Live), malformed and out-of-order
// messages and a 10,000-message burst (no crash, the newest price wins), the owner of a shard
// killed mid-stream (its symbols move to the survivor within 10 s), and Redis connections
// killed (ticks resume after ioredis reconnects). A price rule crossing in each stream fires
// exactly once, whatever the fake repeats.
//
// The database is PostgreSQL with TEST_DATABASE_URL, else PGlite; the failover needs
// PostgreSQL (advisory-lock shards) and the Redis part TEST_REDIS_URL: each is skipped without.
// A real restart of the shared Redis would cut every other test file using it, so the restart
// is simulated by CLIENT KILL of this bus's own connections (named for it), which is what a
// restart looks like from the client side: the connections close and ioredis reconnects.
import { Writable } from 'node:stream';
import { and, eq, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { liveStateOf } from '../../shared/live.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { symbolById } from '../../shared/tickers.ts';
import { createAlertBus, type AlertBus } from '../alerts/service.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { alertRules, ruleFirings, subscriptions, user } from '../db/schema.ts';
import { latestCandles } from '../market/service.ts';
import { startFakeCoinbaseWs, type FakeCoinbaseWs } from '../testing/fakeCoinbaseWs.ts';
import { createRuleEvaluator, createRulesRuntime, type RulesRuntime } from '../rules/service.ts';
import { createLiveHub } from './hub.ts';
import {
  createAllShards,
  createPostgresShards,
  shardOf,
  startLivePath,
  type LivePath,
  type ShardLeases,
} from './service.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const MINUTE = 60_000;
/** A minute some time ago: the streams' ticks carry explicit times from here. */
const BASE = Math.floor(Date.now() / MINUTE) * MINUTE - 30 * MINUTE;
const CRYPTO = SYMBOL_TABLE.filter((row) => row.assetClass === 'crypto').map((row) => row.id);
/**
 * Short timings so a silence costs about a second (the fake heartbeats every 50 ms; a second
 * of silence is far beyond a stall of a busy test machine, so no reconnect happens unasked).
 */
const TIMINGS = { heartbeatTimeoutMs: 1_000, backoffBaseMs: 20, backoffCapMs: 100 };
const TRADER = 'faults-trader';

interface LogEntry {
  level: 'info' | 'warn' | 'error';
  details: object;
  message: string;
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let database: TestDatabase;
let fake: FakeCoinbaseWs;
/** Closers of what a test started, run after it in reverse order. */
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  database = await openTestDatabase();
  // A subscribed trader whose rules may fire (firings need an active subscription).
  await database.db.insert(user).values({ id: TRADER, name: 'Faults', email: 'faults@example.com' });
  await database.db.insert(subscriptions).values({
    id: 'faults-subscription',
    userId: TRADER,
    status: 'active',
    currentPeriodEnd: new Date(Date.now() + 86_400_000),
    provider: 'test',
  });
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
  // Each test's rules (and their firings) only.
  await database.db.delete(alertRules);
});

async function startFake(): Promise<FakeCoinbaseWs> {
  fake = await startFakeCoinbaseWs({ heartbeatMs: 50 });
  cleanups.push(() => fake.close());
  return fake;
}

/** "Price crosses above level" on every tick, at most once a minute (trigger key: the minute). */
async function priceRule(symbol: string, level: number): Promise<number> {
  const [row] = await database.db
    .insert(alertRules)
    .values({
      userId: TRADER,
      name: `${symbol} above ${level}`,
      symbol,
      timeframe: '1m',
      condition: { kind: 'price_cross', direction: 'above', level },
      trigger: 'every_time',
      channels: ['in_app'],
    })
    .returning({ id: alertRules.id });
  return row!.id;
}

async function firingsOf(ruleId: number) {
  const rows = await database.db.select().from(ruleFirings).where(eq(ruleFirings.ruleId, ruleId));
  return rows
    .map((row) => ({ barTime: row.barTime.getTime(), price: row.price }))
    .sort((a, b) => a.barTime - b.barTime);
}

/** A Coinbase ticker as the fake sends it; kept so that it can be sent again (a repeat). */
interface Sent {
  product: string;
  price: number;
  sequence: number;
  time: number;
}
let lastSequence = 1_000_000;
/** Sequences far above the fake's heartbeats (one per 50 ms), so every new ticker is newer. */
function ticker(product: string, price: number, time: number): Sent {
  lastSequence += 1_000;
  return { product, price, sequence: lastSequence, time };
}
function send(to: FakeCoinbaseWs, ...tickers: Sent[]): void {
  for (const sent of tickers)
    to.ticker(sent.product, {
      price: String(sent.price),
      sequence: sent.sequence,
      tradeId: sent.sequence,
      time: new Date(sent.time).toISOString(),
    });
}

/** A subscriber of the bus (another instance's hub would be one): every tick, in order. */
function busTicks(bus: AlertBus) {
  const ticks: LiveTick[] = [];
  cleanups.push(async () => stop());
  const stop = bus.subscribeTicks((batch) => ticks.push(...batch));
  return {
    ticks,
    of: (symbol: string) => ticks.filter((tick) => tick.symbol === symbol),
    latest: (symbol: string) => ticks.findLast((tick) => tick.symbol === symbol),
  };
}

interface Instance {
  path: LivePath;
  runtime: RulesRuntime;
  registry: Registry;
  logs: LogEntry[];
  /** The Coinbase feed's figure as /metrics shows it (watos_feed_<name>{feed="coinbase"}). */
  feedMetric(name: string): Promise<number>;
  /** Stops it (the shards' session ends: its locks are free for the others). */
  close(): Promise<void>;
}

/** One instance's live path on this bus, its crypto from the fake, with the app's tick rules. */
async function startInstance(bus: AlertBus, shards: ShardLeases): Promise<Instance> {
  const logs: LogEntry[] = [];
  const log = {
    info: (details: object, message: string) => logs.push({ level: 'info', details, message }),
    warn: (details: object, message: string) => logs.push({ level: 'warn', details, message }),
    error: (details: object, message: string) => logs.push({ level: 'error', details, message }),
  };
  const runtime = createRulesRuntime({
    db: database.db,
    bus,
    evaluator: createRuleEvaluator({
      history: (symbol, granularity, limit) => latestCandles(database.db, symbol, granularity, limit),
    }),
    // Only in-app channels here: nothing to queue for e-mail, push or webhook.
    enqueue: async () => undefined,
    log,
    tickSyncMs: 200,
  });
  await runtime.sync();
  const registry = new Registry();
  const path = startLivePath({
    config: {
      COINBASE_WS_URL: fake.url,
      ALPACA_WS_URL: 'ws://127.0.0.1:9',
      LIVE_QUOTE_POLL_MS: 60_000,
      redisPrefix: 'faults:',
    },
    sourceOf: (symbol) => (symbolById(symbol)?.assetClass === 'crypto' ? 'coinbase' : 'demo'),
    bus,
    rules: runtime,
    metrics: { registry },
    log,
    shards,
    coinbaseTimings: TIMINGS,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await path.close();
    // Shards given to the live path are the giver's to close (main.ts shares them with the engine).
    await shards.close();
    await runtime.flushTicks();
  };
  cleanups.push(close);
  return {
    path,
    runtime,
    registry,
    logs,
    async feedMetric(name) {
      const metric = registry.getSingleMetric(`watos_feed_${name}`);
      const values = (await metric?.get())?.values ?? [];
      return values.find((value) => value.labels.feed === 'coinbase')?.value ?? Number.NaN;
    },
    close,
  };
}

/** A browser's live connection on an instance: its SSE `ticks` frames and when each arrived. */
function browser(bus: AlertBus, symbols: readonly string[]) {
  const hub = createLiveHub({ bus, demandEveryMs: 1_000 });
  const frames: Array<{ at: number; ticks: LiveTick[] }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString();
      if (text.startsWith('event: ticks\n'))
        frames.push({ at: Date.now(), ticks: JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as LiveTick[] });
      done();
    },
  });
  const connection = hub.open({ userId: TRADER, symbols, sink });
  cleanups.push(async () => {
    connection.close();
    await hub.close();
  });
  return { frames };
}

const gapLogs = (instance: Instance) =>
  instance.logs.filter(
    (entry) =>
      entry.message === 'live path: a feed may have missed ticks; the engine refills bars' &&
      (entry.details as { feed?: string }).feed === 'coinbase',
  );

describe('the live path under upstream faults', () => {
  it(
    'drops and silence past the heartbeat: reconnects, resubscribes, reports the gap, ticks flow again; the rule fires once; the screen goes Stale, then Live',
    { timeout: 20_000 },
    async () => {
      await startFake();
      const bus = createAlertBus();
      cleanups.push(() => bus.close());
      const received = busTicks(bus);
      const rule = await priceRule('ETH-USD', 3000);
      const instance = await startInstance(bus, createAllShards());
      const screen = browser(bus, ['ETH-USD']);
      // The rule's symbol is carried at once: one connection, subscribed to it.
      await until(() => fake.subscribed().includes('ETH-USD'), 'the subscription');

      const M = BASE;
      const before = [
        ticker('ETH-USD', 2990, M + 1_000),
        ticker('ETH-USD', 2995, M + 2_000),
        ticker('ETH-USD', 3005, M + 3_000),
        ticker('ETH-USD', 3008, M + 4_000),
      ];
      send(fake, ...before);
      await until(() => received.latest('ETH-USD')?.price === 3008, 'the first stream at the subscriber');

      // A drop (TCP reset) mid-stream.
      fake.dropAll();
      await until(() => fake.connectionCount() === 2 && fake.subscribed().includes('ETH-USD'), 'the resubscription');
      await until(() => gapLogs(instance).length === 1, "the gap at the owner's onGap");
      expect(gapLogs(instance)[0]!.details).toMatchObject({ feed: 'coinbase', symbols: 1 });
      // The fake repeats what it sent before the drop (the crossing among it), then goes on.
      const droppedBefore = instance.path.owner.dropped();
      send(fake, ...before, ticker('ETH-USD', 3010, M + 5_000));
      await until(() => received.latest('ETH-USD')?.price === 3010, 'ticks after the reconnect');
      // The repeats older than the newest tick never went further than the owner.
      expect(instance.path.owner.dropped() - droppedBefore).toBe(3);
      const seen = received.of('ETH-USD');
      expect(seen.every((tick, index) => index === 0 || tick.time >= seen[index - 1]!.time)).toBe(true);
      expect(await instance.feedMetric('reconnects_total')).toBe(1);

      // (The hub writes on the next turn after the bus delivered.)
      await until(() => screen.frames.at(-1)?.ticks.at(-1)?.price === 3010, 'the price on the screen');
      const framesBefore = screen.frames.length;
      const lastFrame = screen.frames.at(-1)!;
      // The screen's threshold (STALE_AFTER_MS, 30 s in the app) scaled down like the heartbeat.
      const staleAfterMs = TIMINGS.heartbeatTimeoutMs;
      // Silence past the heartbeat: the connection stays open but says nothing.
      fake.silence(true);
      await until(async () => (await instance.feedMetric('reconnects_total')) >= 2, 'the silence reconnect');
      await until(() => Date.now() - lastFrame.at >= staleAfterMs, 'a silent spell');
      // Nothing reached the screen while the feed was silent, so the browser shows Stale.
      expect(screen.frames.length).toBe(framesBefore);
      const calendar = symbolById('ETH-USD')!.calendar;
      const lastTick = lastFrame.ticks.at(-1)!;
      expect(liveStateOf({ tick: lastTick, since: lastFrame.at, now: Date.now(), calendar, staleAfterMs })).toEqual({
        kind: 'stale',
        since: lastFrame.at,
      });

      // The upstream speaks again: ticks flow, and the screen is Live again.
      fake.silence(false);
      await until(() => fake.subscribed().includes('ETH-USD'), 'a subscribed connection');
      send(fake, ...before);
      // Sent again until it lands: the connection found silent may still be ended by the
      // watchdog in the instant the heartbeats resume (then the next one carries it).
      await until(() => {
        send(fake, ticker('ETH-USD', 3012, M + 6_000));
        return screen.frames.some((frame) => frame.ticks.some((tick) => tick.price === 3012));
      }, 'the screen');
      const recovered = screen.frames.at(-1)!;
      expect(
        liveStateOf({ tick: recovered.ticks.at(-1)!, since: recovered.at, now: Date.now(), calendar, staleAfterMs }),
      ).toEqual({ kind: 'live' });
      expect(received.latest('ETH-USD')?.price).toBe(3012);
      expect(gapLogs(instance).length).toBeGreaterThanOrEqual(2);
      expect(await instance.feedMetric('gaps_total')).toBe(gapLogs(instance).length);

      // 2995 -> 3005 crossed 3000 once; every repeat of it after each reconnect fired nothing.
      await instance.runtime.flushTicks();
      expect(await firingsOf(rule)).toEqual([{ barTime: M, price: 3005 }]);
      expect(instance.logs.filter((entry) => entry.level === 'error')).toEqual([]);
    },
  );

  it(
    'malformed and out-of-order messages in a 10,000-message burst: no crash, the newest price wins, the rule fires once',
    { timeout: 20_000 },
    async () => {
      await startFake();
      const bus = createAlertBus();
      cleanups.push(() => bus.close());
      const received = busTicks(bus);
      const rule = await priceRule('SOL-USD', 150);
      const instance = await startInstance(bus, createAllShards());
      await until(() => fake.subscribed().includes('SOL-USD'), 'the subscription');
      const M = BASE + 2 * MINUTE;
      send(fake, ticker('SOL-USD', 140, M));
      await until(() => received.latest('SOL-USD')?.price === 140, 'the first tick');

      // Garbage first: not JSON, not an object, an unknown product, no price, a type of no interest.
      const time = new Date(M + 500).toISOString();
      fake.raw('{"type":"ticker","product_id":"SOL-USD"');
      fake.raw('[]');
      fake.raw('null');
      fake.raw(JSON.stringify({ type: 'ticker', product_id: 'NOPE-USD', sequence: 1, price: '1', time }));
      fake.raw(
        JSON.stringify({ type: 'ticker', product_id: 'SOL-USD', sequence: (lastSequence += 1), price: 'abc', time }),
      );
      fake.raw(JSON.stringify({ type: 'l2update', product_id: 'SOL-USD', changes: [] }));
      // 10,000 tickers within the minute, crossing 150 on every other one; every 1,000th
      // followed by a repeat of an old sequence (price 1) and by a newer sequence with an
      // older time (price 999): neither may reach the bus nor fire.
      // (Sequences are taken as each goes out: a newer message has a higher one.)
      const burst: Sent[] = [];
      for (let index = 0; index < 10_000; index += 1) {
        const price = (index % 2 === 0 ? 149 : 151) + index / 100_000;
        const sent = ticker('SOL-USD', price, M + 1_000 + index * 5);
        burst.push(sent);
        send(fake, sent);
        if (index % 1_000 === 999) {
          send(fake, { ...burst[0]!, price: 1 });
          send(fake, ticker('SOL-USD', 999, M + 600));
        }
      }
      const final = burst.at(-1)!;
      await until(() => received.latest('SOL-USD')?.price === final.price, 'the newest price', 15_000);

      const seen = received.of('SOL-USD');
      expect(seen.map((tick) => tick.price)).not.toContain(1);
      expect(seen.map((tick) => tick.price)).not.toContain(999);
      // Never back in time at the subscriber, and the newest tick is the burst's last.
      expect(seen.every((tick, index) => index === 0 || tick.time >= seen[index - 1]!.time)).toBe(true);
      expect(received.latest('SOL-USD')).toMatchObject({ price: final.price, time: final.time, source: 'coinbase' });
      // The forming bar covers the whole burst: its high and low are the burst's extremes.
      expect(received.latest('SOL-USD')!.bar).toEqual([M, 140, final.price, 140, final.price, expect.any(Number)]);
      // Rejected by the feed: 5 unreadable messages and the 10 old sequences (the l2update is
      // ignored, as Coinbase asks); dropped by the owner: the 10 older times.
      expect(await instance.feedMetric('rejected_total')).toBe(15);
      expect(instance.path.owner.dropped()).toBe(10);
      expect(await instance.feedMetric('reconnects_total')).toBe(0);
      expect(await instance.feedMetric('connected')).toBe(1);

      // Still alive: the next ticker goes through.
      send(fake, ticker('SOL-USD', 152, M + 59_000));
      await until(() => received.latest('SOL-USD')?.price === 152, 'a tick after the burst');
      await instance.runtime.flushTicks();
      expect(await firingsOf(rule)).toEqual([{ barTime: M, price: burst[1]!.price }]);
      expect(instance.logs.filter((entry) => entry.level === 'error')).toEqual([]);
    },
  );
});

describe.runIf(databaseUrl)('two instances on PostgreSQL shards, one killed mid-stream', () => {
  it(
    'each symbol has one carrier; the dead one’s symbols move to the survivor within 10 s and its rule fires once',
    { timeout: 30_000 },
    async () => {
      await startFake();
      // This file's own database, so no other file's NOTIFY traffic or demand reaches these buses.
      const rows = await database.db.execute<{ name: string }>(sql`select current_database() as name`);
      const name = (rows as { rows: Array<{ name: string }> }).rows[0]!.name;
      const url = new URL(databaseUrl!);
      url.pathname = `/${name}`;
      const testUrl = url.toString();
      // A lock class and group of this run's own (shards.test.ts may run at the same time).
      const lockClass = 0x10000 + Math.floor(Math.random() * 0x7fff0000);
      const quiet = { info: () => undefined, warn: () => undefined };
      const shards = () =>
        createPostgresShards({
          databaseUrl: testUrl,
          group: `faults-${lockClass}`,
          lockClass,
          rebalanceMs: 200,
          log: quiet,
        });
      const buses = [createAlertBus(undefined, testUrl), createAlertBus(undefined, testUrl)];
      for (const bus of buses) cleanups.push(() => bus.close());
      await Promise.all(buses.map((bus) => bus.ready));
      const [busA, busB] = buses as [AlertBus, AlertBus];
      const a = await startInstance(busA, shards());
      const b = await startInstance(busB, shards());
      await until(
        () => a.path.shards.held().size === 8 && b.path.shards.held().size === 8,
        'the shards shared half and half',
      );
      // A browser on A watches every crypto symbol; its demand reaches both through NOTIFY.
      const received = busTicks(busA);
      browser(busA, CRYPTO);
      const carried = (instance: Instance) => instance.path.owner.carried().get('coinbase') ?? [];
      await until(() => carried(a).length + carried(b).length === CRYPTO.length, 'every symbol carried');
      expect([...carried(a), ...carried(b)].sort()).toEqual([...CRYPTO].sort());
      // Upstream too: two connections, each product subscribed on exactly one of them.
      await until(
        () => fake.subscribedPerConnection().flat().length === CRYPTO.length && fake.openCount() === 2,
        'the subscriptions',
      );
      expect(fake.subscribedPerConnection().flat().sort()).toEqual([...CRYPTO].sort());

      // A rule on a symbol B carries.
      const symbol = carried(b)[0]!;
      expect(a.path.shards.owns(symbol)).toBe(false);
      const rule = await priceRule(symbol, 100);
      await Promise.all([a.runtime.sync(), b.runtime.sync()]);
      const M = BASE + 4 * MINUTE;
      const crossing = [ticker(symbol, 90, M + 1_000), ticker(symbol, 105, M + 2_000)];
      send(fake, ...crossing);
      await until(() => received.latest(symbol)?.price === 105, 'the ticks through B');
      await b.runtime.flushTicks();
      expect(await firingsOf(rule)).toEqual([{ barTime: M, price: 105 }]);

      // B dies: its shards' session is cut (the locks go with it) and its process stops.
      const admin = new pg.Client({ connectionString: testUrl });
      await admin.connect();
      cleanups.push(() => admin.end());
      // The 10 s of issue 34 count from here.
      const killedAt = Date.now();
      const killed = await admin.query<{ killed: boolean }>(
        `select pg_terminate_backend(pid) as killed from pg_locks
          where locktype = 'advisory' and classid = $1 and objid = $2 and objsubid = 2 and granted`,
        [lockClass, shardOf(symbol)],
      );
      expect(killed.rows).toEqual([{ killed: true }]);
      await b.close();
      await until(
        () => carried(a).length === CRYPTO.length,
        "B's symbols carried by A",
        Math.max(0, 10_000 - (Date.now() - killedAt)),
      );
      await until(
        () => fake.openCount() === 1 && fake.subscribedPerConnection()[0]?.length === CRYPTO.length,
        "A's subscriptions",
        Math.max(0, 10_000 - (Date.now() - killedAt)),
      );

      // The upstream repeats the crossing to the new carrier, then goes on: ticks resume
      // through A; the crossing already recorded by B fires nothing again; a new crossing in
      // the next minute fires on A (nothing missed).
      send(fake, ...crossing, ticker(symbol, 106, M + 3_000));
      await until(() => received.latest(symbol)?.price === 106, 'the ticks through A');
      send(fake, ticker(symbol, 95, M + MINUTE + 1_000), ticker(symbol, 107, M + MINUTE + 2_000));
      await until(() => received.latest(symbol)?.price === 107, 'the next minute through A');
      await a.runtime.flushTicks();
      expect(await firingsOf(rule)).toEqual([
        { barTime: M, price: 105 },
        { barTime: M + MINUTE, price: 107 },
      ]);
      expect(
        await database.db
          .select()
          .from(ruleFirings)
          .where(and(eq(ruleFirings.ruleId, rule), eq(ruleFirings.symbol, symbol))),
      ).toHaveLength(2);
    },
  );
});

describe.runIf(redisUrl)('the Redis bus when Redis drops every connection', () => {
  it('ticks resume after ioredis reconnects; nothing crashes', { timeout: 20_000 }, async () => {
    await startFake();
    const connectionName = `faults-${process.pid}-${Date.now()}`;
    // The app's connection options (redis.ts), named so this bus's connections can be found.
    const redis = new Redis(redisUrl!, {
      connectTimeout: 2000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      connectionName,
    });
    const bus = createAlertBus(redis, undefined, `${connectionName}:`);
    cleanups.push(async () => redis.disconnect());
    cleanups.push(() => bus.close());
    await bus.ready;
    const admin = new Redis(redisUrl!);
    cleanups.push(async () => admin.disconnect());
    const received = busTicks(bus);
    const instance = await startInstance(bus, createAllShards());
    // The browser's demand goes through Redis too.
    browser(bus, ['BTC-USD']);
    await until(() => fake.subscribed().includes('BTC-USD'), 'the subscription');
    const M = BASE + 8 * MINUTE;
    send(fake, ticker('BTC-USD', 97_000, M));
    await until(() => received.latest('BTC-USD')?.price === 97_000, 'a tick through Redis');

    const ours = async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .filter((line) => line.includes(` name=${connectionName} `))
        .map((line) => /\bid=(\d+)/.exec(line)![1]!);
    const before = await ours();
    // The publishing connection and the subscriber (redis.duplicate() keeps the name).
    expect(before).toHaveLength(2);
    for (const id of before) await admin.client('KILL', 'ID', id);
    // Tickers keep coming while ioredis reconnects and subscribes again; one gets through.
    let price = 97_000;
    await until(
      async () => {
        price += 1;
        send(fake, ticker('BTC-USD', price, M + (price - 97_000) * 100));
        await new Promise((resolve) => setTimeout(resolve, 50));
        return (received.latest('BTC-USD')?.price ?? 0) > 97_000;
      },
      'a tick after the reconnection',
      10_000,
    );
    const after = await ours();
    expect(after).toHaveLength(2);
    expect(after.some((id) => before.includes(id))).toBe(false);
    expect(instance.logs.filter((entry) => entry.level === 'error')).toEqual([]);
    expect(received.latest('BTC-USD')!.price).toBeGreaterThan(97_000);
  });
});
