// The alert store: saving the engine's alerts once each (ticker, generator, bar) and the
// filtered newest-first query behind GET /external-api/alert.
import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { alerts } from '../db/schema.ts';
import { ALERT_LOG_DEFAULT_MAX, ALERT_LOG_DEFAULT_WINDOW_MS } from '../../shared/constants.ts';
import { formatAlertTimestamp, parseAlertTimestamp, type AlertRecord } from '../../shared/alertDisplay.ts';
import type { AlertQuery } from '../../shared/schemas/alerts.ts';

export interface NewAlert {
  ticker: string;
  alertType: string;
  message: string;
  timestamp: Date;
  source: string;
}

/** Inserts alerts, skipping ones already stored; returns the ones that were new. */
export async function saveAlerts(db: Database, batch: NewAlert[]): Promise<Array<NewAlert & { id: number }>> {
  if (batch.length === 0) return [];
  return db
    .insert(alerts)
    .values(batch)
    .onConflictDoNothing({ target: [alerts.ticker, alerts.alertType, alerts.timestamp] })
    .returning({
      id: alerts.id,
      ticker: alerts.ticker,
      alertType: alerts.alertType,
      message: alerts.message,
      timestamp: alerts.timestamp,
      source: alerts.source,
    });
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

export async function queryAlerts(db: Database, query: AlertQuery, now = new Date()): Promise<AlertRecord[]> {
  const end = query.end_time ? parseAlertTimestamp(query.end_time) : now;
  const start = query.start_time
    ? parseAlertTimestamp(query.start_time)
    : new Date(now.getTime() - ALERT_LOG_DEFAULT_WINDOW_MS);
  const conditions: SQL[] = [gte(alerts.timestamp, start), lte(alerts.timestamp, end)];
  if (query.alert_type) conditions.push(eq(alerts.alertType, query.alert_type));
  if (query.symbol) conditions.push(eq(alerts.ticker, query.symbol));
  const rows = await db
    .select({
      ticker: alerts.ticker,
      alertType: alerts.alertType,
      message: alerts.message,
      timestamp: alerts.timestamp,
    })
    .from(alerts)
    .where(and(...conditions))
    .orderBy(desc(alerts.timestamp), desc(alerts.id))
    .limit(query.max_count ?? ALERT_LOG_DEFAULT_MAX);
  return rows.map(toAlertRecord);
}
