// The alert log's recent window, held in memory: nearly every GET /external-api/alert asks for
// the last hour (the dashboard's default filters), so each instance keeps every alert of the
// last two hours and answers those requests without the database, with what the table would
// answer: the same rows, in the same order (timestamp desc, id desc), as the same JSON. Older
// or unusual ranges, and any moment the window is not known to be current, go to the database.
//
// Kept current by id: every writer takes ALERT_WRITE_LOCK_KEY for its transaction, so ids
// become visible in order, and holding every row up to id N, the window needs only the rows
// after N. It reads them after every saveAlerts in this process (before saveAlerts resolves),
// on every stored-alert notice from another instance (the bus: in-process, Postgres NOTIFY or
// Redis), and every few seconds in case a notice was lost. Each read also counts the window's
// rows in the table and looks at the newest row it knows; a count or a row that differs from
// memory's (rows deleted, a table emptied and refilled) makes it load the window again.
// Alerts are stamped in whole milliseconds (saveAlerts stores JavaScript dates).
import { sql } from 'drizzle-orm';
import { ALERT_LOG_DEFAULT_MAX, ALERT_LOG_DEFAULT_WINDOW_MS } from '../../shared/constants.ts';
import { parseAlertTimestamp, type AlertRecord } from '../../shared/alertDisplay.ts';
import type { AlertQuery } from '../../shared/schemas/alerts.ts';
import { tickersOfClass } from '../../shared/tickers.ts';
import type { Database } from '../db/client.ts';
import { onlyRow } from '../db/rows.ts';
import { coalesced } from '../jobs/coalesce.ts';
import type { AlertBus } from './bus.ts';
import { onAlertsStored, toAlertRecord } from './service.ts';

/** How far back the window reaches: twice the log's default hour. */
const RECENT_WINDOW_MS = 2 * 3_600_000;
/** How often the window reads new rows without a notice (a notice lost with its connection). */
const RECENT_RESYNC_MS = 5_000;

interface HeldAlert {
  id: number;
  time: number;
  ticker: string;
  alertType: string;
  record: AlertRecord;
  /** The record as JSON, made once. */
  json: string;
}

export interface RecentAlertLog {
  /**
   * The answer to this query from memory (the route's JSON body and its records), or null when
   * the database must answer: the range starts before the window, or the window is not current.
   */
  answer(query: AlertQuery, now?: Date): { body: string; records: AlertRecord[] } | null;
  /** Reads the rows stored since the last read; concurrent calls share one read. */
  sync(): Promise<void>;
  /** Resolves once the window has been loaded (or failed to load: then it answers nothing). */
  ready: Promise<void>;
  close(): void;
}

export interface RecentAlertLogOptions {
  db: Database;
  /** Stored-alert notices from other instances; this instance's saves are published on it. */
  bus?: AlertBus;
  windowMs?: number;
  resyncMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

type Row = { id: number | string; ticker: string; alert_type: string; message: string; timestamp: Date | string };

const markerOf = (row: Row) => `${row.ticker}|${row.alert_type}|${new Date(row.timestamp).getTime()}|${row.message}`;

function held(row: Row): HeldAlert {
  const timestamp = new Date(row.timestamp);
  const record = toAlertRecord({ ticker: row.ticker, alertType: row.alert_type, message: row.message, timestamp });
  return {
    id: Number(row.id),
    time: timestamp.getTime(),
    ticker: row.ticker,
    alertType: row.alert_type,
    record,
    json: JSON.stringify(record),
  };
}

/** (time, id) ascending. */
function before(a: HeldAlert, b: HeldAlert): boolean {
  return a.time < b.time || (a.time === b.time && a.id < b.id);
}

/** The index of the first alert whose time is above `time` (all at or below it come before). */
function upperBound(alerts: HeldAlert[], time: number): number {
  let low = 0;
  let high = alerts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (alerts[middle]!.time <= time) low = middle + 1;
    else high = middle;
  }
  return low;
}

function rowsOf(result: unknown): Row[] {
  return (result as { rows: Row[] }).rows;
}

export function createRecentAlertLog(options: RecentAlertLogOptions): RecentAlertLog {
  const { db } = options;
  const windowMs = options.windowMs ?? RECENT_WINDOW_MS;
  const now = options.now ?? Date.now;
  /** Every stored alert with time >= floor and id <= newestId, (time, id) ascending. */
  let alerts: HeldAlert[] = [];
  let floor = Number.POSITIVE_INFINITY;
  let newestId = 0;
  /** The row with id newestId as the table had it ('' when there is none). */
  let newestMarker = '';
  /** False until loaded, and after a failed read until the next good one. */
  let current = false;
  let closed = false;
  /** Bumped on every change; the answers made from an older version are not reused. */
  let version = 0;
  const answers = new Map<string, { version: number; ids: string; body: string; records: AlertRecord[] }>();

  async function reload(): Promise<void> {
    const since = now() - windowMs;
    const top = rowsOf(await db.execute(sql`select coalesce(max(id), 0) as top from alerts`)) as unknown as Array<{
      top: number | string;
    }>;
    const newest = Number(top[0]?.top ?? 0);
    const rows = rowsOf(
      await db.execute(sql`
        select id, ticker, alert_type, message, timestamp from alerts
        where (timestamp >= ${new Date(since)} and id <= ${newest}) or id = ${newest}
        order by timestamp, id`),
    );
    const newestRow = rows.find((row) => Number(row.id) === newest);
    alerts = rows.map(held).filter((alert) => alert.time >= since);
    floor = since;
    newestId = newest;
    newestMarker = newestRow ? markerOf(newestRow) : '';
    version++;
  }

  /** Reads the rows after newestId; reloads when the table's count of the window disagrees. */
  async function readNew(): Promise<void> {
    if (!current && alerts.length === 0 && newestId === 0) {
      await reload();
      return;
    }
    // Forget what fell out of the window first, so the count below covers the same range.
    const since = Math.max(floor, now() - windowMs);
    const cut = alerts.findIndex((alert) => alert.time >= since);
    if (cut !== 0) {
      alerts = cut === -1 ? [] : alerts.slice(cut);
      version++;
    }
    floor = since;
    const state = onlyRow(
      rowsOf(
        await db.execute(sql`
        with top as (select coalesce(max(id), 0) as id from alerts)
        select top.id as top,
               (select count(*) from alerts where timestamp >= ${new Date(floor)} and id <= top.id) as held,
               (select ticker || '|' || alert_type || '|' || (extract(epoch from timestamp) * 1000)::bigint || '|' || message
                from alerts where id = ${newestId}) as marker
        from top`),
      ) as unknown as Array<{ top: number | string; held: number | string; marker: string | null }>,
    );
    const top = Number(state.top);
    if (top < newestId || (state.marker ?? '') !== newestMarker) {
      // Ids went back, or the newest row known is gone or another: the table was emptied.
      await reload();
      return;
    }
    if (top > newestId) {
      const rows = rowsOf(
        await db.execute(sql`
          select id, ticker, alert_type, message, timestamp from alerts
          where id > ${newestId} and id <= ${top} and (timestamp >= ${new Date(floor)} or id = ${top})
          order by id`),
      );
      const last = rows.at(-1);
      newestMarker = last && Number(last.id) === top ? markerOf(last) : '';
      const added = rows
        .map(held)
        .filter((alert) => alert.time >= floor)
        .sort((a, b) => (before(a, b) ? -1 : 1));
      if (added.length > 0) {
        const held = alerts.at(-1);
        if (!held || before(held, added[0]!)) alerts.push(...added);
        else alerts = [...alerts, ...added].sort((a, b) => (before(a, b) ? -1 : 1));
        version++;
      }
      newestId = top;
    }
    if (Number(state.held) !== alerts.length) await reload();
  }

  // A read already under way may have started before the rows a caller waits for: a call
  // during one asks for one more.
  const sync = coalesced(
    async () => {
      try {
        await readNew();
        current = true;
      } catch (error) {
        current = false;
        if (!closed) options.onError?.(error);
      }
    },
    () => closed,
  );

  const stopListening = options.bus?.subscribeStored((id) => {
    if (id > newestId) void sync();
  });
  const stopSaves = onAlertsStored(db, async (saved) => {
    await sync();
    await options.bus?.publishStored(Math.max(...saved.map((row) => row.id))).catch((error: unknown) => {
      options.onError?.(error);
    });
  });
  const timer = setInterval(() => void sync(), options.resyncMs ?? RECENT_RESYNC_MS);
  timer.unref();
  const ready = sync();

  function answer(query: AlertQuery, at = new Date()): { body: string; records: AlertRecord[] } | null {
    if (!current) return null;
    const end = query.end_time ? parseAlertTimestamp(query.end_time).getTime() : at.getTime();
    const start = query.start_time
      ? parseAlertTimestamp(query.start_time).getTime()
      : at.getTime() - ALERT_LOG_DEFAULT_WINDOW_MS;
    if (start < floor) return null;
    const limit = query.max_count ?? ALERT_LOG_DEFAULT_MAX;
    const market = query.market ? new Set(tickersOfClass(query.market)) : null;
    const picked: HeldAlert[] = [];
    for (let index = upperBound(alerts, end) - 1; index >= 0 && picked.length < limit; index--) {
      const alert = alerts[index]!;
      if (alert.time < start) break;
      if (query.alert_type && alert.alertType !== query.alert_type) continue;
      if (query.symbol && alert.ticker !== query.symbol) continue;
      if (market && !market.has(alert.ticker)) continue;
      picked.push(alert);
    }
    // The same rows as a moment ago (nearly every request): the same body, made once.
    const key = `${query.alert_type ?? ''}|${query.symbol ?? ''}|${query.market ?? ''}|${limit}`;
    const ids = picked.length === 0 ? '' : `${picked[0]!.id}:${picked.at(-1)!.id}:${picked.length}`;
    const cached = answers.get(key);
    if (cached && cached.version === version && cached.ids === ids) return cached;
    const made = {
      version,
      ids,
      body: `{"alerts":[${picked.map((alert) => alert.json).join(',')}]}`,
      records: picked.map((alert) => alert.record),
    };
    if (answers.size >= 256) answers.clear();
    answers.set(key, made);
    return made;
  }

  return {
    answer,
    sync,
    ready,
    close() {
      closed = true;
      clearInterval(timer);
      stopListening?.();
      stopSaves();
      alerts = [];
      answers.clear();
      current = false;
    },
  };
}
