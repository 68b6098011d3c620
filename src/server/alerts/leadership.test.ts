// Two alert engines sharing the universe by shards on real PostgreSQL (TEST_DATABASE_URL;
// skipped otherwise), with the production lease timings: each symbol's bars are fetched and
// stored by exactly one of them and together they cover every symbol; an instance that stops,
// or whose lock connection is reset (a killed process), has its symbols carried by the other
// within 10 s, read from the bars it left; and an instance whose lock connection silently stops
// answering drops its shards before the other takes them: never two instances on one shard.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SYMBOL_TABLE } from '../../shared/symbols.ts';
import { openDatabase, type DatabaseHandle } from '../db/client.ts';
import { withAdminClient } from '../db/testing.ts';
import { createPostgresShards, SHARD_COUNT, shardOf, type ShardLeases } from '../live/shards.ts';
import { createDemoFeed } from '../market/demoFeed.ts';
import { lastCandleTimes } from '../market/service.ts';
import type { MarketDataProvider } from '../market/types.ts';
import { createAlertBus } from './bus.ts';
import { createAlertEngine } from './engine.ts';

const adminUrl = process.env.TEST_DATABASE_URL;
const MINUTE = 60_000;
/** Every crypto symbol: their market is always open, so each has bars whenever a minute passed. */
const UNIVERSE = SYMBOL_TABLE.filter((symbol) => symbol.calendar === 'crypto-24x7').map((symbol) => symbol.id);
const quiet = { info: () => undefined, warn: () => undefined };

/** One provider call, by which instance, when (wall clock). */
interface Call {
  instance: string;
  productId: string;
  granularity: number;
  from: number;
  at: number;
}

/** What the engines said about their shards, in the order they said it. */
interface ShardEvent {
  instance: string;
  shards: ReadonlySet<number>;
  at: number;
}

/** A TCP hop that can reset its connections (a killed process) or turn into a black hole. */
async function startProxy(port: number) {
  const sockets = new Set<Socket>();
  let swallowing = false;
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => swallowing || upstream.write(chunk));
    upstream.on('data', (chunk) => swallowing || client.write(chunk));
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    // Once swallowing, even the client closing its end never reaches PostgreSQL.
    client.on('error', () => swallowing || drop()).on('close', () => swallowing || drop());
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const closed = new Promise<void>((resolve) => server.on('close', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    swallow() {
      swallowing = true;
    },
    /** Every connection reset and no new one accepted: what PostgreSQL sees of a killed process. */
    kill() {
      server.close();
      for (const socket of sockets) socket.resetAndDestroy();
    },
    close() {
      if (server.listening) server.close();
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}

describe.runIf(adminUrl)('alert engines sharing the symbols on PostgreSQL', () => {
  const name = `watos_test_shards_${randomBytes(4).toString('hex')}`;
  let url: URL;
  let offset = 0;
  /** The engines' clock: the wall clock, moved on by the test so that new bars are due. */
  const now = () => Date.now() + offset;
  const open: Array<{ close(): Promise<void> }> = [];
  const calls: Call[] = [];
  const events: ShardEvent[] = [];
  let group = '';
  let lockClass = 0;

  async function database(): Promise<DatabaseHandle> {
    const handle = await openDatabase({
      databaseUrl: url.toString(),
      maxConnections: 2,
      onConnectionError: () => undefined,
    });
    open.push(handle);
    return handle;
  }

  /** One instance: its own pool, its shard leases (optionally through a proxy) and its engine. */
  async function instance(label: string, leaseUrl = url.toString()) {
    const feed = createDemoFeed({ now });
    const provider: MarketDataProvider = {
      source: 'demo',
      quotes: () => Promise.resolve(new Map()),
      candles: (productId, granularity, from, to) => {
        calls.push({ instance: label, productId, granularity, from: from.getTime(), at: Date.now() });
        return feed.candles(productId, granularity, from, to);
      },
    };
    const shards: ShardLeases = createPostgresShards({ databaseUrl: leaseUrl, group, lockClass, log: quiet });
    const state = { carries: new Set<number>() as ReadonlySet<number> };
    const said = (shards: ReadonlySet<number>) => {
      state.carries = shards;
      events.push({ instance: label, shards, at: Date.now() });
    };
    const engine = createAlertEngine({
      database: await database(),
      shards,
      provider,
      bus: createAlertBus(),
      log: {
        info: (fields: object, message?: string) => {
          if (message === 'alert engine: this instance carries shards')
            said(new Set((fields as { shards: number[] }).shards));
          if (message === 'alert engine: this instance carries no shards') said(new Set());
        },
        warn: () => undefined,
        error: () => undefined,
      },
      products: UNIVERSE,
      now,
      backfillHourDays: 0.1,
      backfillMinuteDays: 0.01,
    });
    engine.start();
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await engine.stop();
      await shards.close();
    };
    open.push({ close: stop });
    return {
      label,
      state,
      engine,
      shards,
      stop,
      /** Carries these shards, and has run its pass over them. */
      settledOn: (count: number) => state.carries.size === count && engine.carried().size === count,
    };
  }

  type Instance = Awaited<ReturnType<typeof instance>>;

  async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<number> {
    const started = Date.now();
    while (!check()) {
      if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Date.now() - started;
  }

  /** Replays the engines' shard events: at no moment did two instances carry one shard. */
  function expectNeverShared(): void {
    const current = new Map<string, ReadonlySet<number>>();
    for (const event of events) {
      current.set(event.instance, event.shards);
      for (const [other, shards] of current) {
        if (other === event.instance) continue;
        const both = [...event.shards].filter((shard) => shards.has(shard));
        expect(both, `${event.instance} and ${other} both carry`).toEqual([]);
      }
    }
  }

  const symbolsOf = (shards: ReadonlySet<number>): string[] => UNIVERSE.filter((symbol) => shards.has(shardOf(symbol)));
  const askedBy = (label: string, since: number) =>
    new Set(calls.filter((call) => call.instance === label && call.at >= since).map((call) => call.productId));

  /** Two instances, `first` started alone, both settled on half the shards each. */
  async function pair(firstLeaseUrl?: string): Promise<[Instance, Instance]> {
    const first = await instance('first', firstLeaseUrl);
    await until('the first instance to carry every shard', () => first.settledOn(SHARD_COUNT));
    const second = await instance('second');
    await until(
      'the two to carry half each',
      () => first.settledOn(SHARD_COUNT / 2) && second.settledOn(SHARD_COUNT / 2),
    );
    return [first, second];
  }

  /** The newest stored one-minute bar of each of the shards' symbols. */
  async function storedOf(shards: ReadonlySet<number>): Promise<Map<string, number>> {
    const lasts = await lastCandleTimes((await database()).db, symbolsOf(shards));
    return new Map([...lasts].map(([symbol, last]) => [symbol, last[60] ?? 0]));
  }

  /**
   * Waits until `survivor` carries every shard and has asked for each of the leaver's symbols,
   * from no earlier than the bar after the last one stored when the leaver left (`stored`): a
   * survivor that held them once and remembered their bars from then would ask from earlier.
   * Answers the milliseconds from `since` until it carried them all.
   */
  async function expectTakeover(survivor: Instance, stored: Map<string, number>, since: number) {
    expect(stored.size).toBeGreaterThan(0);
    await until('the survivor to carry every shard', () => survivor.settledOn(SHARD_COUNT));
    const took = Date.now() - since;
    const firstAsks = new Map<string, Call>();
    for (const call of calls)
      if (
        call.instance === survivor.label &&
        call.at >= since &&
        call.granularity === 60 &&
        !firstAsks.has(call.productId)
      )
        firstAsks.set(call.productId, call);
    for (const [symbol, last] of stored) {
      const ask = firstAsks.get(symbol);
      expect(ask, `${symbol} asked by the survivor`).toBeDefined();
      expect(ask!.from, symbol).toBeGreaterThanOrEqual(last + MINUTE);
    }
    return took;
  }

  beforeAll(async () => {
    await withAdminClient((client) => client.query(`create database "${name}"`));
    url = new URL(adminUrl!);
    url.pathname = `/${name}`;
    const handle = await openDatabase({ databaseUrl: url.toString(), maxConnections: 1 });
    await handle.migrate();
    await handle.close();
  });
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close().catch(() => undefined);
    calls.length = 0;
    events.length = 0;
  });
  afterAll(async () => {
    await withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`));
  });
  // Each test its own leases: no shard or instance count carries over.
  const fresh = () => {
    lockClass = 0x10000 + Math.floor(Math.random() * 0x7fff0000);
    group = `test-engine-${lockClass}`;
  };

  it('shares the symbols: each fetched and stored by one instance, all by the two; a stopped one’s taken over within 10 s', async () => {
    fresh();
    const [first, second] = await pair();
    expect(symbolsOf(first.state.carries).length).toBeGreaterThan(0);
    expect(symbolsOf(second.state.carries).length).toBeGreaterThan(0);

    // Two minutes on, one pass each (alongside any scheduled one): who asks for what.
    offset += 2 * MINUTE;
    const since = Date.now();
    const lastClosed = Math.floor(now() / MINUTE) * MINUTE - MINUTE;
    await Promise.all([first.engine.tick(), second.engine.tick()]);
    const byFirst = askedBy('first', since);
    const bySecond = askedBy('second', since);
    expect([...byFirst].filter((symbol) => bySecond.has(symbol))).toEqual([]);
    expect(new Set([...byFirst, ...bySecond])).toEqual(new Set(UNIVERSE));
    expect(byFirst).toEqual(new Set(symbolsOf(first.state.carries)));
    // Every symbol's bars stored up to the last closed minute, by whichever instance carries it.
    const stored = await lastCandleTimes((await database()).db, UNIVERSE);
    expect(UNIVERSE.filter((symbol) => (stored.get(symbol)?.[60] ?? 0) < lastClosed)).toEqual([]);

    // The first held these symbols at its start: it must not ask from what it stored then.
    const leaving = second.state.carries;
    const stoppedAt = Date.now();
    await second.stop();
    const left = await storedOf(leaving);
    offset += 2 * MINUTE;
    const took = await expectTakeover(first, left, stoppedAt);
    expect(took).toBeLessThan(10_000);
    expectNeverShared();
  }, 60_000);

  it('carries a killed instance’s symbols within 10 s, from the bars it left', async () => {
    fresh();
    const proxy = await startProxy(Number(url.port || 5432));
    open.push(proxy);
    const viaProxy = new URL(url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const [first, second] = await pair(viaProxy.toString());
    const left = await storedOf(first.state.carries);

    const killedAt = Date.now();
    proxy.kill();
    offset += 2 * MINUTE;
    const took = await expectTakeover(second, left, killedAt);
    expect(took).toBeLessThan(10_000);
    // The cut-off instance knows it carries nothing (it cannot reach its locks).
    expect(first.state.carries.size).toBe(0);
    expectNeverShared();
  }, 60_000);

  it('drops the shards of a silently cut-off instance before the other carries them', async () => {
    fresh();
    const proxy = await startProxy(Number(url.port || 5432));
    open.push(proxy);
    const viaProxy = new URL(url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const [first, second] = await pair(viaProxy.toString());
    const left = await storedOf(first.state.carries);

    const cutAt = Date.now();
    proxy.swallow();
    // Its next lease round times out (2.5 s query timeout): it lets go. PostgreSQL ends the
    // silent session after its idle timeout (6 s), and only then can the other take the locks.
    const dropped = await until('the cut-off instance to drop its shards', () => first.state.carries.size === 0);
    offset += 2 * MINUTE;
    const took = await expectTakeover(second, left, cutAt);
    expect(dropped).toBeLessThan(5_000);
    expect(took).toBeLessThan(10_000);
    expectNeverShared();
  }, 60_000);
});
