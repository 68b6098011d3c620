// Live fan-out: in-process always; across instances through Redis when TEST_REDIS_URL is set
// and through Postgres LISTEN/NOTIFY when TEST_DATABASE_URL is set. Alerts, rule firings, and
// the live path's tick batches and demand announcements (issue 34).
import { describe, expect, it } from 'vitest';
import { createRedis } from '../redis.ts';
import { startTcpProxy } from '../testing/tcpProxy.ts';
import {
  createAlertBus,
  PG_PAYLOAD_MAX,
  splitJson,
  type AlertBus,
  type LiveAlert,
  type LiveTick,
  type UserFiring,
} from './bus.ts';

const alert: LiveAlert = {
  id: 7,
  source: 'demo',
  ticker: 'BTC',
  alert_type: 'BreakoutAlertGenerator',
  message: 'BTC breakout',
  timestamp: '2026-01-01 00:00:00',
};

const firing: UserFiring = {
  userId: 'user-1',
  firing: {
    id: 3,
    ruleId: 11,
    ruleName: 'BTC crosses above 100000',
    symbol: 'BTC-USD',
    ticker: 'BTC',
    timeframe: '1h',
    price: 100_012.5,
    message: 'BTC crosses above 100000 (1h): BTC at 100012.5',
    barTime: '2026-01-01T00:00:00.000Z',
    firedAt: '2026-01-01T00:01:02.000Z',
    source: 'demo',
  },
};

/** Rule firings travel the same channels as alerts, on their own topic: neither hears the other. */
async function expectFiringsApart(leader: AlertBus, follower: AlertBus) {
  const alertsHeard: LiveAlert[] = [];
  const firingsHeard: UserFiring[] = [];
  follower.subscribe((item) => alertsHeard.push(item));
  follower.subscribeFirings((item) => firingsHeard.push(item));
  await leader.publishFirings([firing, { ...firing, userId: 'user-2' }]);
  await leader.publish([alert]);
  await expect.poll(() => alertsHeard.map((item) => item.id)).toEqual([7]);
  await expect.poll(() => firingsHeard.map((item) => item.userId)).toEqual(['user-1', 'user-2']);
  expect(firingsHeard[0]).toEqual(firing);
}

describe('alert bus', () => {
  it('carries rule firings in-process, apart from the alerts', async () => {
    const bus = createAlertBus();
    await expectFiringsApart(bus, bus);
    await bus.close();
  });

  it.runIf(process.env.TEST_DATABASE_URL)('carries rule firings across instances through Postgres', async () => {
    const leader = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
    const follower = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
    await Promise.all([leader.ready, follower.ready]);
    await expectFiringsApart(leader, follower);
    await leader.close();
    await follower.close();
  });

  it.runIf(process.env.TEST_REDIS_URL)('carries rule firings across instances through Redis', async () => {
    const connections = [0, 1].map(() => createRedis(process.env.TEST_REDIS_URL!));
    const prefix = `watos:firings-${Math.random().toString(36).slice(2, 8)}:`;
    const leader = createAlertBus(connections[0], undefined, prefix);
    const follower = createAlertBus(connections[1], undefined, prefix);
    await Promise.all([leader.ready, follower.ready]);
    await expectFiringsApart(leader, follower);
    await leader.close();
    await follower.close();
    for (const connection of connections) connection.disconnect();
  });

  it('delivers to every in-process listener until it unsubscribes', async () => {
    const bus = createAlertBus();
    const first: LiveAlert[] = [];
    const second: LiveAlert[] = [];
    const stopFirst = bus.subscribe((item) => first.push(item));
    bus.subscribe((item) => second.push(item));
    await bus.publish([alert]);
    stopFirst();
    await bus.publish([{ ...alert, id: 8 }]);
    expect(first.map((item) => item.id)).toEqual([7]);
    expect(second.map((item) => item.id)).toEqual([7, 8]);
    await bus.close();
  });

  it.runIf(process.env.TEST_DATABASE_URL)('fans out across instances through Postgres LISTEN/NOTIFY', async () => {
    const leader = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
    const follower = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
    await Promise.all([leader.ready, follower.ready]);
    const heard: LiveAlert[] = [];
    follower.subscribe((item) => heard.push(item));
    await leader.publish([alert, { ...alert, id: 9, message: 'second' }]);
    await expect.poll(() => heard.map((item) => item.message)).toEqual(['BTC breakout', 'second']);
    await leader.close();
    await follower.close();
  });

  it.runIf(process.env.TEST_DATABASE_URL)('listens again after its PostgreSQL connection is cut', async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(process.env.TEST_DATABASE_URL!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const follower = createAlertBus(undefined, viaProxy.toString());
    const leader = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
    await Promise.all([leader.ready, follower.ready]);
    const heard: LiveAlert[] = [];
    follower.subscribe((item) => heard.push(item));
    proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.restore();
    await expect
      .poll(
        async () => {
          await leader.publish([{ ...alert, id: 10, message: 'after the cut' }]);
          return heard.some((item) => item.message === 'after the cut');
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(true);
    await leader.close();
    await follower.close();
    await proxy.close();
  });

  it.runIf(process.env.TEST_REDIS_URL)('fans out across instances through Redis', async () => {
    const leaderRedis = createRedis(process.env.TEST_REDIS_URL!);
    const followerRedis = createRedis(process.env.TEST_REDIS_URL!);
    const leader = createAlertBus(leaderRedis);
    const follower = createAlertBus(followerRedis);
    await Promise.all([leader.ready, follower.ready]);
    const heard: LiveAlert[] = [];
    follower.subscribe((item) => heard.push(item));
    await leader.publish([alert]);
    await expect.poll(() => heard.map((item) => item.message)).toEqual(['BTC breakout']);
    await leader.close();
    await follower.close();
    leaderRedis.disconnect();
    followerRedis.disconnect();
  });

  it.runIf(process.env.TEST_REDIS_URL)('keeps deployments that share a Redis apart by their prefix', async () => {
    const connections = [0, 1, 2].map(() => createRedis(process.env.TEST_REDIS_URL!));
    const run = Math.random().toString(36).slice(2, 8);
    const ours = createAlertBus(connections[0], undefined, `watos:ours-${run}:`);
    const theirs = createAlertBus(connections[1], undefined, `watos:theirs-${run}:`);
    await Promise.all([ours.ready, theirs.ready]);
    const heardByUs: LiveAlert[] = [];
    const heardByThem: LiveAlert[] = [];
    ours.subscribe((item) => heardByUs.push(item));
    theirs.subscribe((item) => heardByThem.push(item));
    await theirs.publish([{ ...alert, id: 21, message: 'their alert' }]);
    // A raw PUBLISH on the old un-namespaced channel, as another deployment would send it.
    await connections[2]!.publish('watos:alerts', JSON.stringify([{ ...alert, id: 22, message: 'foreign alert' }]));
    await ours.publish([{ ...alert, id: 23, message: 'our alert' }]);
    await expect.poll(() => heardByUs.map((item) => item.message)).toEqual(['our alert']);
    await expect.poll(() => heardByThem.map((item) => item.message)).toEqual(['their alert']);
    // Give a stray delivery time to arrive before the final check.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heardByUs.map((item) => item.message)).toEqual(['our alert']);
    expect(heardByThem.map((item) => item.message)).toEqual(['their alert']);
    await ours.close();
    await theirs.close();
    for (const connection of connections) connection.disconnect();
  });
});

function tick(symbol: string, price: number): LiveTick {
  return {
    symbol,
    price,
    time: 1_767_225_600_000 + price,
    source: 'demo',
    delayMinutes: 0,
    bar: [1_767_225_600_000, price - 1, price + 2, price - 3, price, 12.5],
  };
}

/** 400 ticks with their bars: about 50 kB of JSON, over six NOTIFY payloads. */
const bigBatch = Array.from({ length: 400 }, (_, index) => tick(`SYM${index}-USD`, 1000 + index));
/** 900 symbols of up to 20 characters: about 17 kB, over a NOTIFY payload. */
const manySymbols = Array.from({ length: 900 }, (_, index) => `LONGSYMBOLNAME${String(index).padStart(6, '0')}`);

/** Ticks and demand from one instance reach the other whole, in batches, apart from alerts. */
async function expectLivePath(owner: AlertBus, viewer: AlertBus) {
  const batches: Array<readonly LiveTick[]> = [];
  const demands: Array<[string, readonly string[]]> = [];
  const alertsHeard: LiveAlert[] = [];
  viewer.subscribeTicks((ticks) => batches.push(ticks));
  owner.subscribeDemand((instance, symbols) => demands.push([instance, symbols]));
  viewer.subscribe((item) => alertsHeard.push(item));

  await owner.publishTicks([tick('BTC-USD', 100_000), tick('ETH-USD', 3_000)]);
  await expect.poll(() => batches.length).toBe(1);
  expect(batches[0]).toEqual([tick('BTC-USD', 100_000), tick('ETH-USD', 3_000)]);

  await owner.publishTicks(bigBatch);
  await expect.poll(() => batches.slice(1).flat().length).toBe(400);
  expect(batches.slice(1).flat()).toEqual(bigBatch);

  await viewer.publishDemand('viewer-1', ['AAPL', 'BTC-USD']);
  await viewer.publishDemand('viewer-1', manySymbols);
  await viewer.publishDemand('viewer-1', []);
  await expect.poll(() => demands.length).toBe(3);
  expect(demands[0]).toEqual(['viewer-1', ['AAPL', 'BTC-USD']]);
  expect(demands[1]).toEqual(['viewer-1', manySymbols]);
  expect(demands[2]).toEqual(['viewer-1', []]);
  expect(alertsHeard).toEqual([]);
}

describe('live path on the bus', () => {
  it('splits JSON into payloads under the limit, keeping every item in order', () => {
    const texts = splitJson(bigBatch, (chunk) => chunk, PG_PAYLOAD_MAX);
    expect(texts.length).toBeGreaterThan(5);
    for (const text of texts) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(PG_PAYLOAD_MAX);
    expect(texts.flatMap((text) => JSON.parse(text) as LiveTick[])).toEqual(bigBatch);
    expect(splitJson([tick('BTC-USD', 1)], (chunk) => chunk, PG_PAYLOAD_MAX)).toHaveLength(1);
  });

  it('carries tick batches and demand in-process, the batch itself to every listener', async () => {
    const bus = createAlertBus();
    await expectLivePath(bus, bus);
    const seen: Array<readonly LiveTick[]> = [];
    const stop = bus.subscribeTicks((ticks) => seen.push(ticks));
    const batch = [tick('SOL-USD', 150)];
    await bus.publishTicks(batch);
    await bus.publishTicks([]);
    stop();
    await bus.publishTicks([tick('SOL-USD', 151)]);
    expect(seen).toEqual([batch]);
    expect(seen[0]).toBe(batch);
    await bus.close();
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    'carries them across instances through Postgres, split under 8000 bytes',
    async () => {
      const owner = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
      const viewer = createAlertBus(undefined, process.env.TEST_DATABASE_URL);
      await Promise.all([owner.ready, viewer.ready]);
      await expectLivePath(owner, viewer);
      await owner.close();
      await viewer.close();
    },
  );

  it.runIf(process.env.TEST_REDIS_URL)(
    'carries them across instances through Redis, and drops what is no tick',
    async () => {
      const connections = [0, 1, 2].map(() => createRedis(process.env.TEST_REDIS_URL!));
      const prefix = `watos:live-${Math.random().toString(36).slice(2, 8)}:`;
      const owner = createAlertBus(connections[0], undefined, prefix);
      const viewer = createAlertBus(connections[1], undefined, prefix);
      await Promise.all([owner.ready, viewer.ready]);
      await expectLivePath(owner, viewer);

      const later: Array<readonly LiveTick[]> = [];
      viewer.subscribeTicks((ticks) => later.push(ticks));
      // Another writer's messages on our channel: not JSON, not a list, no price.
      await connections[2]!.publish(`${prefix}ticks`, 'not json');
      await connections[2]!.publish(`${prefix}ticks`, '{"symbol":"BTC-USD"}');
      await connections[2]!.publish(`${prefix}ticks`, JSON.stringify([{ symbol: 'BTC-USD', price: 'high', time: 1 }]));
      await owner.publishTicks([tick('ADA-USD', 1)]);
      await expect.poll(() => later.length).toBe(1);
      expect(later[0]).toEqual([tick('ADA-USD', 1)]);
      await owner.close();
      await viewer.close();
      for (const connection of connections) connection.disconnect();
    },
  );
});
