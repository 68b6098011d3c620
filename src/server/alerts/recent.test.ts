// The alert log's recent window answers exactly what the table answers (the same rows, order
// and JSON) for every filter, including on a second instance that shares the database and
// hears of the first one's saves only through the bus (Redis with TEST_REDIS_URL, Postgres
// NOTIFY with TEST_DATABASE_URL, else in-process) or, when a notice is lost, through its
// periodic read; it refuses (the database answers) ranges it does not hold, and before it is
// current. A table emptied behind its back is noticed.
import { randomBytes } from 'node:crypto';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_TYPES } from '../../shared/constants.ts';
import { formatAlertTimestamp } from '../../shared/alertDisplay.ts';
import type { AlertQuery } from '../../shared/schemas/alerts.ts';
import type { Database } from '../db/client.ts';
import * as schema from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { createRedis } from '../redis.ts';
import { createAlertBus, type AlertBus } from './bus.ts';
import { createRecentAlertLog, type RecentAlertLog } from './recent.ts';
import { queryAlerts, saveAlerts, type NewAlert } from './service.ts';

let database: TestDatabase;
/** The same database through a second client: what another instance holds. */
let otherDb: Database;
const opened: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  database = await openTestDatabase();
  otherDb = drizzlePg({ client: (database.db as unknown as { $client: pg.Pool }).$client, schema });
});
afterAll(async () => {
  for (const item of opened) await item.close();
  await database?.close();
});
beforeEach(async () => {
  for (const item of opened.splice(0)) await item.close();
  await database.truncateAll();
});

function windowOf(options: Parameters<typeof createRecentAlertLog>[0]): RecentAlertLog {
  const recent = createRecentAlertLog(options);
  opened.push(recent);
  return recent;
}

/** Two buses that hear each other, as two instances' buses do. */
function busPair(): [AlertBus, AlertBus] {
  if (process.env.TEST_REDIS_URL) {
    const prefix = `alog:test:${randomBytes(4).toString('hex')}:`;
    const redisA = createRedis(process.env.TEST_REDIS_URL);
    const redisB = createRedis(process.env.TEST_REDIS_URL);
    opened.push({ close: () => redisA.disconnect() }, { close: () => redisB.disconnect() });
    const pair: [AlertBus, AlertBus] = [
      createAlertBus(redisA, undefined, prefix),
      createAlertBus(redisB, undefined, prefix),
    ];
    opened.push(...pair);
    return pair;
  }
  if (process.env.TEST_DATABASE_URL) {
    const pair: [AlertBus, AlertBus] = [
      createAlertBus(undefined, process.env.TEST_DATABASE_URL),
      createAlertBus(undefined, process.env.TEST_DATABASE_URL),
    ];
    opened.push(...pair);
    return pair;
  }
  const shared = createAlertBus();
  opened.push(shared);
  return [shared, shared];
}

const now = Math.floor(Date.now() / 1000) * 1000;
const tickers = ['BTC', 'ETH', 'SOL', 'AAPL', 'SPY', 'MES'];

/** Alerts over the last `minutes`, several sharing a second (ties broken by id), one stamp in ms. */
function alertsOver(minutes: number, count: number, tag: string, seed = 1): NewAlert[] {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, index) => ({
    ticker: tickers[Math.floor(random() * tickers.length)]!,
    alertType: ALERT_TYPES[Math.floor(random() * ALERT_TYPES.length)]!,
    message: `${tag} alert ${index} "quoted" \u00e9`,
    timestamp: new Date(now - Math.floor(random() * minutes * 60) * 1000 - (index % 3 === 0 ? 0 : 7)),
    source: 'demo',
  }));
}

const at = (minutesAgo: number) => formatAlertTimestamp(new Date(now - minutesAgo * 60_000));

const queries: AlertQuery[] = [
  {},
  { max_count: 50 },
  { max_count: 100 },
  { max_count: 1 },
  ...ALERT_TYPES.map((alert_type) => ({ alert_type, max_count: 50 })),
  ...tickers.map((symbol) => ({ symbol, max_count: 100 })),
  { symbol: 'BTC', alert_type: ALERT_TYPES[0], max_count: 100 },
  { market: 'crypto', max_count: 100 },
  { market: 'stock' },
  { market: 'future', max_count: 100 },
  { start_time: at(90), end_time: at(30), max_count: 100 },
  { start_time: at(110), max_count: 100 },
  { end_time: at(20), max_count: 100, symbol: 'ETH' },
];

/** Every query answered from memory, and exactly as the table answers it. */
async function expectSameAsTable(recent: RecentAlertLog, db: Database) {
  for (const query of queries) {
    const fromTable = await queryAlerts(db, query, new Date(now));
    const fromMemory = recent.answer(query, new Date(now));
    expect(fromMemory, JSON.stringify(query)).not.toBeNull();
    expect(fromMemory!.records, JSON.stringify(query)).toEqual(fromTable);
    expect(fromMemory!.body, JSON.stringify(query)).toBe(JSON.stringify({ alerts: fromTable }));
  }
}

/** True once every query is answered from memory exactly as the table answers it. */
async function matchesTable(recent: RecentAlertLog, db: Database): Promise<boolean> {
  for (const query of queries) {
    const fromMemory = recent.answer(query, new Date(now));
    if (!fromMemory) return false;
    if (JSON.stringify(fromMemory.records) !== JSON.stringify(await queryAlerts(db, query, new Date(now))))
      return false;
  }
  return true;
}

describe('recent alert log', () => {
  it('answers every filter exactly as the table does, and is current when saveAlerts resolves', async () => {
    await saveAlerts(database.db, alertsOver(180, 600, 'first'));
    const recent = windowOf({ db: database.db });
    expect(recent.answer({}, new Date(now))).toBeNull();
    await recent.ready;
    await expectSameAsTable(recent, database.db);

    // New rows, some older than rows already held (a late symbol), are in place at once.
    await saveAlerts(database.db, alertsOver(100, 300, 'second', 7));
    await expectSameAsTable(recent, database.db);
    expect(
      recent.answer({ max_count: 100 }, new Date(now))!.records.some((row) => row.message.startsWith('second')),
    ).toBe(true);
  });

  it('serialises the same rows once: a repeated query gets the same body', async () => {
    await saveAlerts(database.db, alertsOver(60, 100, 'rows'));
    const recent = windowOf({ db: database.db });
    await recent.ready;
    const first = recent.answer({ max_count: 50 }, new Date(now))!;
    expect(recent.answer({ max_count: 50 }, new Date(now))!.body).toBe(first.body);
    await saveAlerts(database.db, [
      { ticker: 'BTC', alertType: ALERT_TYPES[0], message: 'newest', timestamp: new Date(now), source: 'demo' },
    ]);
    const after = recent.answer({ max_count: 50 }, new Date(now))!;
    expect(after.body).not.toBe(first.body);
    expect(after.records[0]!.message).toBe('newest');
  });

  it('leaves ranges before its window, and any moment it is not current, to the database', async () => {
    let clock = now;
    await saveAlerts(database.db, alertsOver(180, 200, 'old'));
    const recent = windowOf({ db: database.db, windowMs: 2 * 3_600_000, now: () => clock });
    expect(recent.answer({}, new Date(now))).toBeNull();
    await recent.ready;
    expect(recent.answer({ start_time: at(121) }, new Date(now))).toBeNull();
    expect(recent.answer({ start_time: at(119) }, new Date(now))).not.toBeNull();
    // Time moves on: the window's start moves with it, and what fell out is not answered.
    clock = now + 30 * 60_000;
    await recent.sync();
    expect(recent.answer({ start_time: at(100) }, new Date(now))).toBeNull();
    expect(recent.answer({ start_time: at(80) }, new Date(now))).not.toBeNull();
    recent.close();
    expect(recent.answer({}, new Date(now))).toBeNull();
  });

  it('on a second instance sharing the database, hears of the first one’s saves through the bus', async () => {
    const [busA, busB] = busPair();
    await Promise.all([busA.ready, busB.ready]);
    const first = windowOf({ db: database.db, bus: busA });
    // Its periodic read far off: only the notice can make it current in time.
    const second = windowOf({ db: otherDb, bus: busB, resyncMs: 3_600_000 });
    await Promise.all([first.ready, second.ready]);
    await saveAlerts(database.db, alertsOver(110, 400, 'shared'));
    await expectSameAsTable(first, database.db);
    await expect.poll(() => matchesTable(second, otherDb), { timeout: 10_000 }).toBe(true);
    await expectSameAsTable(second, otherDb);
    // And the other way round.
    await saveAlerts(otherDb, alertsOver(50, 50, 'back', 3));
    await expectSameAsTable(second, otherDb);
    await expect.poll(() => matchesTable(first, database.db), { timeout: 10_000 }).toBe(true);
  });

  it('catches up by its periodic read when a notice is lost', async () => {
    const second = windowOf({ db: otherDb, resyncMs: 100 });
    await second.ready;
    // Saved through the first instance, whose notice this one never hears (no bus).
    await saveAlerts(database.db, alertsOver(110, 200, 'unheard'));
    await expect.poll(() => matchesTable(second, otherDb), { timeout: 10_000 }).toBe(true);
  });

  it('notices a table emptied and refilled behind its back', async () => {
    await saveAlerts(database.db, alertsOver(100, 300, 'before'));
    const recent = windowOf({ db: database.db });
    await recent.ready;
    await database.truncateAll();
    await saveAlerts(database.db, alertsOver(100, 20, 'after', 5));
    await expectSameAsTable(recent, database.db);
    await database.truncateAll();
    await saveAlerts(database.db, alertsOver(100, 400, 'again', 9));
    await expectSameAsTable(recent, database.db);
  });
});
