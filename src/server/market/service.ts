// Market data: the public surface of the feature and the only module that reads or writes
// the `candles` table. Other features (the alert engine, the assistant's tools), the
// composition root and config.ts import from here, never from the files behind it.
import { and, asc, eq, gte, lt, max, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { candles } from '../db/schema.ts';
import { onlyRow, rowsOf } from '../db/rows.ts';
import { seriesOfLength, type CandleSeries } from '../../signals/candles.ts';
import { rowsOfColumns } from './demoFeed.ts';
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
 * query: the alert engine reads these once when it starts leading, not once per asset a minute,
 * and the scanner every few seconds while scans run. One backward step of the primary key per
 * asset and size, so the figure does not grow with the stored history (a max() over every stored
 * bar did: 0.8 s for 2,000 assets of 600 bars each on PGlite).
 */
export async function lastCandleTimes(
  db: Database,
  productIds: readonly string[],
): Promise<Map<string, Partial<Record<Granularity, number>>>> {
  const result = new Map<string, Partial<Record<Granularity, number>>>();
  for (let start = 0; start < productIds.length; start += INSERT_CHUNK) {
    const answer = await db.execute(sql`
      select p.id as product_id, g.granularity, (extract(epoch from newest.time) * 1000)::float8 as last
      from jsonb_array_elements_text(${JSON.stringify(productIds.slice(start, start + INSERT_CHUNK))}::jsonb) as p(id)
      cross join (values (60), (3600)) as g(granularity)
      cross join lateral (
        select ${candles.time} as time from ${candles}
        where ${candles.productId} = p.id and ${candles.granularity} = g.granularity
        order by ${candles.time} desc
        limit 1
      ) newest`);
    for (const row of rowsOf<{ product_id: string; granularity: Granularity; last: number }>(answer)) {
      const entry = result.get(row.product_id) ?? {};
      entry[row.granularity] = row.last;
      result.set(row.product_id, entry);
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
 * lateral index scan per asset, so a long history costs nothing; the bars packed, see
 * PACKED_BARS): the watchlist table, and the scanner reading its universe. Assets without bars
 * are absent from the map.
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
    select p.id as product_id, packed.*
    from jsonb_array_elements_text(${JSON.stringify(productIds)}::jsonb) as p(id)
    cross join lateral (
      select ${PACKED_BARS}
      from (
        select time, open, high, low, close, volume, source from ${candles}
        where ${candles.productId} = p.id and ${candles.granularity} = ${granularity}
        order by ${candles.time} desc
        limit ${limit}
      ) newest
    ) packed
    where packed.length > 0`);
  for (const row of rowsOf<PackedRow & { product_id: string }>(answer)) {
    const { series, sources } = unpackBars(row);
    result.set(
      row.product_id,
      rowsOfColumns(series).map((bar, index) => Object.assign(bar, { source: sources[index]! })),
    );
  }
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

/** The newest `limit` stored bars of one asset and size, oldest first (packed, as latestCandlesOf). */
export async function latestCandles(
  db: Database,
  productId: string,
  granularity: Granularity,
  limit: number,
): Promise<StoredCandle[]> {
  return (await latestCandlesOf(db, [productId], granularity, limit)).get(productId) ?? [];
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

/**
 * The bars of a query's rows as one packed row: their count, the bars in one bytea, oldest first,
 * each as PostgreSQL's binary forms (timestamptz_send: microseconds since 2000-01-01 UTC as a
 * big-endian int8; float8send: open, high, low, close, volume as big-endian float8s), and their
 * sources joined by spaces. Two years of hours for 50 symbols (693,241 bars) as rows cost
 * node-postgres seven text fields and an object a bar, and the query builder a mapping again:
 * 3.4-4.2 s from PostgreSQL, 4.7-4.9 s from PGlite. Packed, 1.0 s from PGlite (the epoch as
 * numeric arithmetic instead of timestamptz_send took half a second more).
 */
const PACKED_BARS = sql.raw(`count(*)::int as length,
  string_agg(
    timestamptz_send(time) || float8send(open) || float8send(high) || float8send(low)
      || float8send(close) || float8send(volume),
    ''::bytea order by time) as bars,
  string_agg(source, ' ' order by time) as sources`);

/** PostgreSQL's epoch (2000-01-01 UTC) in Unix epoch ms. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/** Bytes of one bar in PACKED_BARS. */
const PACKED_BAR_BYTES = 6 * Float64Array.BYTES_PER_ELEMENT;

interface PackedRow {
  length: number;
  bars: Buffer | null;
  sources: string | null;
}

/** A PACKED_BARS row back into columns and sources. */
function unpackBars({ length, bars, sources }: PackedRow): { series: CandleSeries; sources: MarketSource[] } {
  const series = seriesOfLength(length);
  if (bars) {
    const view = new DataView(bars.buffer, bars.byteOffset, bars.byteLength);
    for (let index = 0, at = 0; index < length; index += 1, at += PACKED_BAR_BYTES) {
      // Microseconds as a big-endian int8: exact in a double for 285 years either side.
      series.time[index] = (view.getInt32(at) * 2 ** 32 + view.getUint32(at + 4)) / 1000 + POSTGRES_EPOCH_MS;
      series.open[index] = view.getFloat64(at + 8);
      series.high[index] = view.getFloat64(at + 16);
      series.low[index] = view.getFloat64(at + 24);
      series.close[index] = view.getFloat64(at + 32);
      series.volume[index] = view.getFloat64(at + 40);
    }
  }
  return { series, sources: sources ? (sources.split(' ') as MarketSource[]) : [] };
}

/**
 * The stored bars of one asset and size with an open time in [from, to), oldest first, as
 * columns (packed, see PACKED_BARS), and each bar's source: a setup study's history.
 */
export async function storedCandleColumns(
  db: Database,
  productId: string,
  granularity: Granularity,
  from: Date,
  to: Date,
): Promise<{ series: CandleSeries; sources: MarketSource[] }> {
  const answer = await db.execute(sql`
    select ${PACKED_BARS}
    from ${candles}
    where ${candles.productId} = ${productId} and ${candles.granularity} = ${granularity}
      and ${candles.time} >= ${from.toISOString()} and ${candles.time} < ${to.toISOString()}`);
  return unpackBars(onlyRow(rowsOf<PackedRow>(answer)));
}
