// The candle store's bulk reads, on PGlite and, with TEST_DATABASE_URL, on PostgreSQL. The bars
// come back packed (six float8s a bar in one bytea): every value exactly as stored (crypto's
// fractions of a cent, zero volume), oldest first, only the asked asset, size and window, each
// bar's source; nothing stored reads as nothing. lastCandleTimes answers each asset's newest bar
// per size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import {
  lastCandleTimes,
  latestCandles,
  latestCandlesOf,
  storeCandles,
  storedCandleColumns,
  storedCandlesBetween,
  type CandleRow,
} from './service.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 5);
const drivers: Array<'pglite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

const bar = (hours: number, close: number, volume: number): CandleRow => ({
  time: T0 + hours * HOUR,
  open: close * 0.999,
  high: close * 1.0031,
  low: close / 1.0017,
  close,
  volume,
});

describe.each(drivers)('stored candles read as columns on %s', (driver) => {
  let database: TestDatabase;
  const demo = [bar(0, 0.000_012_345_678_9, 1.5e12), bar(1, 0.000_012_4, 0), bar(2, 0.000_012_3, 7.25)];
  const coinbase = [bar(3, 0.000_012_31, 3.1), bar(4, 1e-9, 0.1)];

  beforeAll(async () => {
    database = await openTestDatabase(driver);
    await storeCandles(database.db, 'PEPE-USD', 3600, 'demo', demo);
    await storeCandles(database.db, 'PEPE-USD', 3600, 'coinbase', coinbase);
    // Other assets and sizes in the same table: never read.
    await storeCandles(database.db, 'PEPE-USD', 60, 'coinbase', [bar(2, 99, 1)]);
    await storeCandles(database.db, 'BTC-USD', 3600, 'coinbase', [bar(2, 65_000.5, 1)]);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('gives back every bar exactly, oldest first, with its source', async () => {
    const read = await storedCandleColumns(database.db, 'PEPE-USD', 3600, new Date(T0), new Date(T0 + 5 * HOUR));
    const rows = [...demo, ...coinbase];
    expect(read.series.length).toBe(5);
    for (const column of ['time', 'open', 'high', 'low', 'close', 'volume'] as const)
      expect([...read.series[column]], column).toEqual(rows.map((row) => row[column]));
    expect(read.sources).toEqual(['demo', 'demo', 'demo', 'coinbase', 'coinbase']);
    // The same bars the row reader gives.
    const asRows = await storedCandlesBetween(database.db, 'PEPE-USD', 3600, new Date(T0), new Date(T0 + 5 * HOUR));
    expect(asRows.map((row) => row.close)).toEqual([...read.series.close]);
  });

  it('gives back open times before and long after PostgreSQL’s epoch (2000-01-01) to the millisecond', async () => {
    const times = [Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2000, 0, 1), Date.UTC(2099, 5, 30, 12, 0, 0, 1)];
    await storeCandles(
      database.db,
      'OLD-USD',
      60,
      'demo',
      times.map((time) => ({ ...bar(0, 1, 1), time })),
    );
    const read = await storedCandleColumns(database.db, 'OLD-USD', 60, new Date(0), new Date(Date.UTC(2100, 0)));
    expect([...read.series.time]).toEqual(times);
  });

  it('reads [from, to) only: the bar at `to` is left out', async () => {
    const read = await storedCandleColumns(database.db, 'PEPE-USD', 3600, new Date(T0 + HOUR), new Date(T0 + 3 * HOUR));
    expect([...read.series.time]).toEqual([T0 + HOUR, T0 + 2 * HOUR]);
    expect(read.sources).toEqual(['demo', 'demo']);
  });

  it('answers an empty series where nothing is stored', async () => {
    const read = await storedCandleColumns(database.db, 'ETH-USD', 3600, new Date(T0), new Date(T0 + 5 * HOUR));
    expect(read.series.length).toBe(0);
    expect(read.series.close).toHaveLength(0);
    expect(read.sources).toEqual([]);
  });

  it('reads the newest bars of many assets at once, oldest first, leaving out assets with none', async () => {
    const read = await latestCandlesOf(database.db, ['PEPE-USD', 'BTC-USD', 'ETH-USD'], 3600, 2);
    expect([...read.keys()].sort()).toEqual(['BTC-USD', 'PEPE-USD']);
    expect(read.get('PEPE-USD')).toEqual(coinbase.map((row) => ({ ...row, source: 'coinbase' })));
    expect(read.get('BTC-USD')).toEqual([{ ...bar(2, 65_000.5, 1), source: 'coinbase' }]);
    const all = await latestCandles(database.db, 'PEPE-USD', 3600, 10);
    expect(all.map((row) => row.time)).toEqual([...demo, ...coinbase].map((row) => row.time));
    expect(all.map((row) => row.source)).toEqual(['demo', 'demo', 'demo', 'coinbase', 'coinbase']);
    expect(await latestCandles(database.db, 'ETH-USD', 3600, 10)).toEqual([]);
  });

  it('answers the newest stored bar time of each asset and size', async () => {
    const times = await lastCandleTimes(database.db, ['PEPE-USD', 'BTC-USD', 'ETH-USD']);
    expect(Object.fromEntries(times)).toEqual({
      'PEPE-USD': { 60: T0 + 2 * HOUR, 3600: T0 + 4 * HOUR },
      'BTC-USD': { 3600: T0 + 2 * HOUR },
    });
  });
});
