// Market data: the public surface of the feature and the only module that reads or writes
// the `candles` table. Other features (the alert engine, the assistant's tools), the
// composition root and config.ts import from here, never from the files behind it.
import { and, asc, desc, eq, gte, inArray, lt, max, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { candles } from '../db/schema.ts';
import { onlyRow } from '../db/rows.ts';
import type { CandleRow, Granularity, MarketSource } from './types.ts';

export { createCoinbaseProvider } from './coinbase.ts';
export { appendToBucket, createDemoFeed, DEMO_EPOCH, demoCandleColumns, rowsOfColumns } from './demoFeed.ts';
export { createQuoteService, type QuoteService } from './quotes.ts';
export { createMarketRouter, MARKET_DATA_MODES, type MarketRouterWithPin } from './router.ts';
export { createYahooProvider } from './yahoo.ts';
export type { FeedStats, FeedTick, TickFeed } from './feeds/types.ts';
export { createAlpacaTickFeed } from './feeds/alpacaWs.ts';
export { createCoinbaseTickFeed } from './feeds/coinbaseWs.ts';
export { createDemoTickFeed } from './feeds/demoTicks.ts';
export { createQuotePollingFeed } from './feeds/quotePolling.ts';
export type { CandleRow, Granularity, MarketDataProvider, MarketRouter, MarketSource, Quote } from './types.ts';
export { UpstreamError } from './types.ts';

/** A stored candle: the bar (open time in epoch ms) and the provider that produced it. */
export interface StoredCandle extends CandleRow {
  source: MarketSource;
}

const INSERT_CHUNK = 1000;
/** Rows per candle insert statement (one array parameter per column). */
const STORE_CHUNK = 500;

/** Open time (epoch ms) of the newest stored bar of one asset and size, or null when none is. */
export async function lastCandleTime(
  db: Database,
  productId: string,
  granularity: Granularity,
): Promise<number | null> {
  const { last } = onlyRow(
    await db
      .select({ last: max(candles.time) })
      .from(candles)
      .where(and(eq(candles.productId, productId), eq(candles.granularity, granularity))),
  );
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

/** A row of the raw lateral queries below, as either driver returns it. */
interface RawCandle {
  product_id: string;
  time: Date | string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  source: MarketSource;
}

function fromRaw(row: RawCandle): StoredCandle {
  return {
    time: new Date(row.time).getTime(),
    open: Number(row.open),
    high: Number(row.high),
    low: Number(row.low),
    close: Number(row.close),
    volume: Number(row.volume),
    source: row.source,
  };
}

/**
 * The newest `limit` stored one-minute bars of many assets, oldest first, in one query: the
 * watchlist table's last price and sparkline. Assets without bars are absent from the map.
 */
export function latestMinuteCandlesOf(
  db: Database,
  productIds: readonly string[],
  limit: number,
): Promise<Map<string, StoredCandle[]>> {
  return latestCandlesOf(db, productIds, 60, limit);
}

/**
 * The newest `limit` stored bars of one size of many assets, oldest first, in one query (a
 * lateral index scan per asset, so a long history costs nothing): the watchlist table, and the
 * scanner reading its universe. Assets without bars are absent from the map.
 */
export async function latestCandlesOf(
  db: Database,
  productIds: readonly string[],
  granularity: Granularity,
  limit: number,
): Promise<Map<string, StoredCandle[]>> {
  const result = new Map<string, StoredCandle[]>();
  if (productIds.length === 0) return result;
  const answer = await db.execute(sql`
    select p.id as product_id, c.time, c.open, c.high, c.low, c.close, c.volume, c.source
    from jsonb_array_elements_text(${JSON.stringify(productIds)}::jsonb) as p(id)
    cross join lateral (
      select ${candles.time} as time, ${candles.open} as open, ${candles.high} as high, ${candles.low} as low,
        ${candles.close} as close, ${candles.volume} as volume, ${candles.source} as source
      from ${candles}
      where ${candles.productId} = p.id and ${candles.granularity} = ${granularity}
      order by ${candles.time} desc
      limit ${limit}
    ) c`);
  for (const row of (answer as { rows: RawCandle[] }).rows) {
    const bars = result.get(row.product_id) ?? [];
    bars.push(fromRaw(row));
    result.set(row.product_id, bars);
  }
  for (const bars of result.values()) bars.sort((a, b) => a.time - b.time);
  return result;
}

/**
 * For each asset, its first stored one-minute bar with an open time in [from, before), in one
 * query: the watchlist table's session open price.
 */
export async function firstMinuteCandlesIn(
  db: Database,
  windows: ReadonlyArray<{ productId: string; from: number; before: number }>,
): Promise<Map<string, StoredCandle>> {
  const result = new Map<string, StoredCandle>();
  if (windows.length === 0) return result;
  const values = windows.map(({ productId, from, before }) => ({
    id: productId,
    from_time: new Date(from).toISOString(),
    before_time: new Date(before).toISOString(),
  }));
  const answer = await db.execute(sql`
    select w.id as product_id, c.time, c.open, c.high, c.low, c.close, c.volume, c.source
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as w(id text, from_time timestamptz, before_time timestamptz)
    cross join lateral (
      select ${candles.time} as time, ${candles.open} as open, ${candles.high} as high, ${candles.low} as low,
        ${candles.close} as close, ${candles.volume} as volume, ${candles.source} as source
      from ${candles}
      where ${candles.productId} = w.id and ${candles.granularity} = 60
        and ${candles.time} >= w.from_time and ${candles.time} < w.before_time
      order by ${candles.time} asc
      limit 1
    ) c`);
  for (const row of (answer as { rows: RawCandle[] }).rows) result.set(row.product_id, fromRaw(row));
  return result;
}

/** Bars of one asset and size from one source: a unit of storeCandleBatch. */
export interface CandleBatch {
  productId: string;
  granularity: Granularity;
  source: MarketSource;
  rows: readonly CandleRow[];
}

/**
 * Stores the bars of many assets, skipping any already stored: in order, 500 rows a statement. With `stopping`, asked between statements,
 * it may end early (returning false): each symbol then holds a prefix of its bars, and a later
 * run resumes from the last one stored, so nothing is skipped.
 */
export async function storeCandleBatch(
  db: Database,
  batches: readonly CandleBatch[],
  stopping: () => boolean = () => false,
): Promise<boolean> {
  // One statement per STORE_CHUNK rows with one array parameter per column (unnest): building
  // a 1,000-row VALUES list through the query builder cost more than the insert itself, and a
  // first backfill writes about a million bars. Between chunks the event loop gets a turn, so
  // requests are answered while a backfill writes (PGlite has a thread of its own, but building
  // the statements and reading the answers is this thread's work).
  let columns = emptyColumns();
  const flush = async () => {
    if (columns.time.length === 0) return;
    const c = columns;
    columns = emptyColumns();
    await db.execute(sql`
      insert into candles (product_id, granularity, time, open, high, low, close, volume, source)
      select * from unnest(
        ${sql.param(c.productId)}::text[], ${sql.param(c.granularity)}::int[],
        ${sql.param(c.time)}::timestamptz[], ${sql.param(c.open)}::float8[], ${sql.param(c.high)}::float8[],
        ${sql.param(c.low)}::float8[], ${sql.param(c.close)}::float8[], ${sql.param(c.volume)}::float8[],
        ${sql.param(c.source)}::text[]
      )
      on conflict do nothing`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  for (const { productId, granularity, source, rows } of batches) {
    for (const row of rows) {
      columns.productId.push(productId);
      columns.granularity.push(granularity);
      columns.time.push(new Date(row.time).toISOString());
      columns.open.push(row.open);
      columns.high.push(row.high);
      columns.low.push(row.low);
      columns.close.push(row.close);
      columns.volume.push(row.volume);
      columns.source.push(source);
      if (columns.time.length >= STORE_CHUNK) {
        await flush();
        if (stopping()) return false;
      }
    }
  }
  await flush();
  return true;
}

function emptyColumns() {
  return {
    productId: [] as string[],
    granularity: [] as number[],
    time: [] as string[],
    open: [] as number[],
    high: [] as number[],
    low: [] as number[],
    close: [] as number[],
    volume: [] as number[],
    source: [] as string[],
  };
}

/** Stores bars of one asset and size, skipping any already stored (same open time). */
export async function storeCandles(
  db: Database,
  productId: string,
  granularity: Granularity,
  source: MarketSource,
  rows: readonly CandleRow[],
): Promise<void> {
  await storeCandleBatch(db, [{ productId, granularity, source, rows }]);
}

function storedCandle(row: typeof candles.$inferSelect): StoredCandle {
  return {
    time: row.time.getTime(),
    open: row.open,
    high: row.high,
    low: row.low,
    close: row.close,
    volume: row.volume,
    source: row.source,
  };
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
  return rows.reverse().map(storedCandle);
}

/** The stored bars of one asset and size with an open time in [from, to), oldest first (the forecast resolver's window). */
export async function storedCandlesBetween(
  db: Database,
  productId: string,
  granularity: Granularity,
  from: Date,
  to: Date,
): Promise<StoredCandle[]> {
  const rows = await db
    .select()
    .from(candles)
    .where(
      and(
        eq(candles.productId, productId),
        eq(candles.granularity, granularity),
        gte(candles.time, from),
        lt(candles.time, to),
      ),
    )
    .orderBy(asc(candles.time));
  return rows.map(storedCandle);
}
