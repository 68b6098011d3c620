// Market data: the public surface of the feature and the only module that reads or writes
// the `candles` table. Other features (the alert engine, the assistant's tools), the
// composition root and config.ts import from here, never from the files behind it.
import { and, desc, eq, inArray, max } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { candles } from '../db/schema.ts';
import type { CandleRow, Granularity } from './types.ts';

export { boundedConcurrency, COINBASE_EXCHANGE_API, COINBASE_PRICE_API, createCoinbaseProvider } from './coinbase.ts';
export { aggregate, appendToBucket, createDemoFeed, DEMO_EPOCH } from './demoFeed.ts';
export { createQuoteService, type QuoteService } from './quotes.ts';
export {
  createMarketRouter,
  MARKET_DATA_MODES,
  slotOf,
  type MarketDataMode,
  type MarketRouterWithPin,
} from './router.ts';
export { createYahooProvider } from './yahoo.ts';
export type {
  CandleRow,
  Granularity,
  MarketDataProvider,
  MarketRouter,
  MarketSource,
  Quote,
  QuoteResult,
} from './types.ts';

/** A stored candle: the bar (open time in epoch ms) and the provider that produced it. */
export interface StoredCandle extends CandleRow {
  source: string;
}

const INSERT_CHUNK = 1000;

/** Open time (epoch ms) of the newest stored bar of one asset and size, or null when none is. */
export async function lastCandleTime(
  db: Database,
  productId: string,
  granularity: Granularity,
): Promise<number | null> {
  const [{ last }] = await db
    .select({ last: max(candles.time) })
    .from(candles)
    .where(and(eq(candles.productId, productId), eq(candles.granularity, granularity)));
  return last ? new Date(last).getTime() : null;
}

/**
 * Open times (epoch ms) of the newest stored one-minute and hourly bars of many assets, in one
 * query: the alert engine reads these once when it starts leading, not once per asset a minute.
 */
export async function lastCandleTimes(
  db: Database,
  productIds: readonly string[],
): Promise<Map<string, Partial<Record<Granularity, number>>>> {
  const result = new Map<string, Partial<Record<Granularity, number>>>();
  for (let start = 0; start < productIds.length; start += INSERT_CHUNK) {
    const rows = await db
      .select({ productId: candles.productId, granularity: candles.granularity, last: max(candles.time) })
      .from(candles)
      .where(inArray(candles.productId, productIds.slice(start, start + INSERT_CHUNK)))
      .groupBy(candles.productId, candles.granularity);
    for (const row of rows) {
      if (!row.last || (row.granularity !== 60 && row.granularity !== 3600)) continue;
      const entry = result.get(row.productId) ?? {};
      entry[row.granularity] = new Date(row.last).getTime();
      result.set(row.productId, entry);
    }
  }
  return result;
}

/** Bars of one asset and size from one source: a unit of storeCandleBatch. */
export interface CandleBatch {
  productId: string;
  granularity: Granularity;
  source: string;
  rows: readonly CandleRow[];
}

/** Stores the bars of many assets in as few statements as possible, skipping any already stored. */
export async function storeCandleBatch(db: Database, batches: readonly CandleBatch[]): Promise<void> {
  let pending: Array<typeof candles.$inferInsert> = [];
  const flush = async () => {
    if (pending.length > 0) await db.insert(candles).values(pending).onConflictDoNothing();
    pending = [];
  };
  for (const { productId, granularity, source, rows } of batches) {
    for (const row of rows) {
      pending.push({ ...row, productId, granularity, time: new Date(row.time), source });
      if (pending.length >= INSERT_CHUNK) await flush();
    }
  }
  await flush();
}

/** Stores bars of one asset and size, skipping any already stored (same open time). */
export async function storeCandles(
  db: Database,
  productId: string,
  granularity: Granularity,
  source: string,
  rows: readonly CandleRow[],
): Promise<void> {
  await storeCandleBatch(db, [{ productId, granularity, source, rows }]);
}

/** The newest `limit` stored bars of one asset and size, oldest first. */
export async function latestCandles(
  db: Database,
  productId: string,
  granularity: Granularity,
  limit: number,
): Promise<StoredCandle[]> {
  const rows = await db
    .select()
    .from(candles)
    .where(and(eq(candles.productId, productId), eq(candles.granularity, granularity)))
    .orderBy(desc(candles.time))
    .limit(limit);
  return rows.reverse().map((row) => ({
    time: row.time.getTime(),
    open: row.open,
    high: row.high,
    low: row.low,
    close: row.close,
    volume: row.volume,
    source: row.source,
  }));
}
