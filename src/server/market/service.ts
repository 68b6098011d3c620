// Market data: the public surface of the feature and the only module that reads or writes
// the `candles` table. Other features (the alert engine, the assistant's tools), the
// composition root and config.ts import from here, never from the files behind it.
import { and, desc, eq, max } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { candles } from '../db/schema.ts';
import type { CandleRow, Granularity } from './types.ts';

export { boundedConcurrency, COINBASE_EXCHANGE_API, COINBASE_PRICE_API, createCoinbaseProvider } from './coinbase.ts';
export { aggregate, appendToBucket, createDemoFeed, DEMO_EPOCH } from './demoFeed.ts';
export { createQuoteService, type QuoteService } from './quotes.ts';
export type { CandleRow, Granularity, MarketDataProvider, MarketSource, Quote, QuoteResult } from './types.ts';

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

/** Stores bars of one asset and size, skipping any already stored (same open time). */
export async function storeCandles(
  db: Database,
  productId: string,
  granularity: Granularity,
  source: string,
  rows: readonly CandleRow[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows
      .slice(start, start + INSERT_CHUNK)
      .map((row) => ({ ...row, productId, granularity, time: new Date(row.time), source }));
    await db.insert(candles).values(chunk).onConflictDoNothing();
  }
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
