// Alerts: the only module that reads or writes the `alerts` table. Saving the engine's alerts
// once each (ticker, generator, bar), the filtered newest-first alert log behind
// GET /external-api/alert, a ticker's alerts for the chart's markers, the stream's replay
// after a reconnect, and the rows the assistant counts. Other features and the composition
// root use the alerts feature through this module.
import { and, asc, desc, eq, gt, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { alerts } from '../db/schema.ts';
import { ALERT_LOG_DEFAULT_MAX, ALERT_LOG_DEFAULT_WINDOW_MS } from '../../shared/constants.ts';
import { formatAlertTimestamp, parseAlertTimestamp, type AlertRecord } from '../../shared/alertDisplay.ts';
import type { AlertQuery, LiveAlert } from '../../shared/schemas/alerts.ts';
import type { AssetClass } from '../../shared/symbolTable.ts';
import { tickersOfClass } from '../../shared/tickers.ts';
import type { CandleInput } from '../../signals/candles.ts';

export { createAlertBus, type AlertBus, type UserFiring } from './bus.ts';
export { createStreamRegistry, openEventStream, type StreamRegistry } from './eventStreams.ts';
export type { LiveAlert } from '../../shared/schemas/alerts.ts';

export interface NewAlert {
  ticker: string;
  alertType: string;
  message: string;
  timestamp: Date;
  source: string;
}

/**
 * What the engine hands the alert rules (rules/runtime.ts) after a pass over one symbol (bars
 * oldest first, times in ms).
 */
export interface SymbolUpdate {
  /** Canonical id. */
  productId: string;
  /** Where the bars came from: coinbase, yahoo or demo. */
  source: string;
  /** One-minute bars that just closed (the price updates), oldest first. */
  minutes: CandleInput[];
  /** One-hour bars that just closed, oldest first. */
  hours: CandleInput[];
  /** The built-in alerts the engine just stored for this symbol. */
  alerts: Array<{ alertType: string; time: number; message: string }>;
}

/** Rows a statement inserts at most (a statement takes at most 65,535 parameters). */
const SAVE_CHUNK = 1000;

/**
 * Held (for the transaction) by every writer of the alerts table, on every instance: writers
 * take turns, so ids become visible in the order they were given, and a reader that holds
 * every row up to id N needs only the rows after N to be current (recent.ts).
 */
const ALERT_WRITE_LOCK_KEY = 0x57414c47;

type StoredListener = (saved: Array<NewAlert & { id: number }>) => Promise<void> | void;
const storedListeners = new WeakMap<Database, Set<StoredListener>>();

/**
 * Told after every saveAlerts on this database in this process, once the rows are committed;
 * saveAlerts resolves after its listeners have (the recent alert log is current before the
 * writer goes on). Returns the unsubscribe function.
 */
export function onAlertsStored(db: Database, listener: StoredListener): () => void {
  let listeners = storedListeners.get(db);
  if (!listeners) storedListeners.set(db, (listeners = new Set()));
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Inserts alerts, skipping ones already stored; returns the ones that were new. */
export async function saveAlerts(db: Database, batch: NewAlert[]): Promise<Array<NewAlert & { id: number }>> {
  if (batch.length === 0) return [];
  const saved = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ALERT_WRITE_LOCK_KEY})`);
    const rows: Array<NewAlert & { id: number }> = [];
    for (let start = 0; start < batch.length; start += SAVE_CHUNK) {
      const chunk = await tx
        .insert(alerts)
        .values(batch.slice(start, start + SAVE_CHUNK))
        .onConflictDoNothing({ target: [alerts.ticker, alerts.alertType, alerts.timestamp] })
        .returning({
          id: alerts.id,
          ticker: alerts.ticker,
          alertType: alerts.alertType,
          message: alerts.message,
          timestamp: alerts.timestamp,
          source: alerts.source,
        });
      rows.push(...chunk);
    }
    return rows;
  });
  if (saved.length > 0) {
    for (const listener of storedListeners.get(db) ?? []) await listener(saved);
  }
  return saved;
}

export function toAlertRecord(row: {
  ticker: string;
  alertType: string;
  message: string;
  timestamp: Date;
}): AlertRecord {
  return {
    ticker: row.ticker,
    alert_type: row.alertType,
    message: row.message,
    timestamp: formatAlertTimestamp(row.timestamp),
  };
}

/** A stored alert as the live stream sends it: docs/SPEC.md's record with its id and source. */
export function toLiveAlert(row: NewAlert & { id: number }): LiveAlert {
  return { id: row.id, source: row.source, ...toAlertRecord(row) };
}

/** The database's own client (a node-postgres pool, also onto PGlite's thread): a statement and its parameters. */
interface DriverClient {
  query(
    text: string,
    params: unknown[],
  ): Promise<{ rows: Array<{ ticker: string; alert_type: string; message: string; timestamp: Date | string }> }>;
}

/**
 * The filtered alert log, newest first. Sent as one statement straight to the database's client:
 * the query builder and its row mapping cost more than the indexed query itself (2 to 3x on
 * PGlite), and this runs for every alert-log request the recent window does not answer.
 */
export async function queryAlerts(db: Database, query: AlertQuery, now = new Date()): Promise<AlertRecord[]> {
  const end = query.end_time ? parseAlertTimestamp(query.end_time) : now;
  const start = query.start_time
    ? parseAlertTimestamp(query.start_time)
    : new Date(now.getTime() - ALERT_LOG_DEFAULT_WINDOW_MS);
  const params: unknown[] = [start.toISOString(), end.toISOString()];
  let where = 'timestamp >= $1 and timestamp <= $2';
  if (query.alert_type) where += ` and alert_type = $${params.push(query.alert_type)}`;
  if (query.symbol) where += ` and ticker = $${params.push(query.symbol)}`;
  if (query.market) {
    const tickers = tickersOfClass(query.market);
    where +=
      tickers.length === 0
        ? ' and false'
        : ` and ticker in (${tickers.map((ticker) => `$${params.push(ticker)}`).join(', ')})`;
  }
  const limit = `$${params.push(query.max_count ?? ALERT_LOG_DEFAULT_MAX)}`;
  const client = (db as unknown as { $client: DriverClient }).$client;
  const { rows } = await client.query(
    `select ticker, alert_type, message, timestamp from alerts where ${where} order by timestamp desc, id desc limit ${limit}`,
    params,
  );
  return rows.map((row) => ({
    ticker: row.ticker,
    alert_type: row.alert_type,
    message: row.message,
    timestamp: formatAlertTimestamp(new Date(row.timestamp)),
  }));
}

/** One ticker's alerts since a moment, oldest first (at most `limit`): the chart's markers. */
export async function alertsSince(db: Database, ticker: string, since: Date, limit = 500): Promise<AlertRecord[]> {
  const rows = await db
    .select()
    .from(alerts)
    .where(and(eq(alerts.ticker, ticker), gte(alerts.timestamp, since)))
    .orderBy(asc(alerts.timestamp))
    .limit(limit);
  return rows.map(toAlertRecord);
}

/** The newest alert of a ticker (the watchlist table's "Latest alert"). */
export interface LatestAlert {
  ticker: string;
  alertType: string;
  message: string;
  timestamp: Date;
}

/** The newest stored alert of each ticker, in one query (a lateral index scan per ticker). */
export async function latestAlertsOf(db: Database, tickers: readonly string[]): Promise<Map<string, LatestAlert>> {
  const result = new Map<string, LatestAlert>();
  if (tickers.length === 0) return result;
  const answer = await db.execute(sql`
    select t.ticker, a.alert_type, a.message, a.timestamp
    from jsonb_array_elements_text(${JSON.stringify(tickers)}::jsonb) as t(ticker)
    cross join lateral (
      select ${alerts.alertType} as alert_type, ${alerts.message} as message, ${alerts.timestamp} as timestamp
      from ${alerts}
      where ${alerts.ticker} = t.ticker
      order by ${alerts.timestamp} desc, ${alerts.id} desc
      limit 1
    ) a`);
  const rows = (
    answer as {
      rows: Array<{ ticker: string; alert_type: string; message: string; timestamp: Date | string }>;
    }
  ).rows;
  for (const row of rows) {
    result.set(row.ticker, {
      ticker: row.ticker,
      alertType: row.alert_type,
      message: row.message,
      timestamp: new Date(row.timestamp),
    });
  }
  return result;
}

/**
 * The alerts stored after `lastId` that pass the stream's filters, oldest first (at most
 * `limit`): what a reconnecting stream missed.
 */
export async function alertsAfter(
  db: Database,
  lastId: number,
  filter: { alertType?: string; ticker?: string; market?: AssetClass },
  limit = 100,
): Promise<LiveAlert[]> {
  const conditions: SQL[] = [gt(alerts.id, lastId)];
  if (filter.alertType) conditions.push(eq(alerts.alertType, filter.alertType));
  if (filter.ticker) conditions.push(eq(alerts.ticker, filter.ticker));
  if (filter.market) conditions.push(inArray(alerts.ticker, tickersOfClass(filter.market)));
  const rows = await db
    .select()
    .from(alerts)
    .where(and(...conditions))
    .orderBy(asc(alerts.id))
    .limit(limit);
  return rows.map(toLiveAlert);
}

export interface AlertWindow {
  since: Date;
  until: Date;
  /** Plain ticker, e.g. 'BTC'. */
  ticker?: string;
  alertType?: string;
}

/**
 * The alerts of a time window (optionally one ticker and type), newest first, at most `limit`
 * of them, with what counting them needs (the assistant's alert summary).
 */
export async function alertsInWindow(
  db: Database,
  window: AlertWindow,
  limit: number,
): Promise<Array<{ ticker: string; alertType: string; message: string; source: string }>> {
  const conditions: SQL[] = [gte(alerts.timestamp, window.since), lte(alerts.timestamp, window.until)];
  if (window.ticker) conditions.push(eq(alerts.ticker, window.ticker));
  if (window.alertType) conditions.push(eq(alerts.alertType, window.alertType));
  return db
    .select({ ticker: alerts.ticker, alertType: alerts.alertType, message: alerts.message, source: alerts.source })
    .from(alerts)
    .where(and(...conditions))
    .orderBy(desc(alerts.timestamp))
    .limit(limit);
}
