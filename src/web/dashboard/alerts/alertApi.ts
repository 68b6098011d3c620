// Browser side of the alert calls: the filtered log query (docs/SPEC.md's client rules for the
// filter form) and the same filters applied to the alerts of the tab's live connection.
import { ALERT_LOG_DEFAULT_MAX, ALERT_LOG_DEFAULT_WINDOW_MS, ALERT_LOG_MAX_CAP } from '../../../shared/constants.ts';
import { formatAlertTimestamp, type AlertRecord } from '../../../shared/alertDisplay.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { assetClassOfTicker, tickerOf } from '../../../shared/tickers.ts';
import { alertLogResponse } from '../../../shared/schemas/alerts.ts';
import { apiFetch } from '../../api/http.ts';

export interface AlertFilters {
  alertType: string;
  /** An asset class of the symbol table ('stock', 'micro-future'...), or '' for every market. */
  market: string;
  symbol: string;
  maxCount: string;
  /** datetime-local values (the trader's local time), or '' */
  startTime: string;
  endTime: string;
}

export const EMPTY_FILTERS: AlertFilters = {
  alertType: '',
  market: '',
  symbol: '',
  maxCount: String(ALERT_LOG_DEFAULT_MAX),
  startTime: '',
  endTime: '',
};

/** docs/SPEC.md: non-numeric or non-positive counts fall back to 10; at most 100. */
export function effectiveMaxCount(input: string): number {
  const value = Number.parseInt(input, 10);
  if (!Number.isFinite(value) || value <= 0) return ALERT_LOG_DEFAULT_MAX;
  return Math.min(value, ALERT_LOG_MAX_CAP);
}

/** One line telling the trader the typed max count was changed by effectiveMaxCount, or null. */
export function maxCountNotice(input: string): string | null {
  const effective = effectiveMaxCount(input);
  if (input.trim() === String(effective)) return null;
  const value = Number.parseInt(input, 10);
  if (Number.isFinite(value) && value > ALERT_LOG_MAX_CAP)
    return `Max count is at most ${ALERT_LOG_MAX_CAP}; showing ${effective}.`;
  if (!Number.isFinite(value) || value <= 0) return `Max count must be a positive number; showing ${effective}.`;
  return `Max count is a whole number; showing ${effective}.`;
}

/** The filters the server applies to the log query: alert type, market (asset class) and symbol. */
function streamParams(filters: AlertFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.alertType) params.set('alert_type', filters.alertType);
  if (filters.market) params.set('market', filters.market);
  if (filters.symbol.trim()) params.set('symbol', filters.symbol.trim().toUpperCase());
  return params;
}

/**
 * Whether a live alert belongs in the log under these filters: the tab's one live connection
 * carries every market alert, so the type, market and symbol filters apply here, as the server
 * applies them to the log query (a symbol in any form the table resolves: BTC-USD and BTC are
 * both the ticker BTC).
 */
export function alertMatchesFilters(
  filters: AlertFilters,
): (alert: Pick<AlertRecord, 'ticker' | 'alert_type'>) => boolean {
  const typed = filters.symbol.trim().toUpperCase();
  const ticker = typed ? (resolveSymbol(typed)?.ticker ?? tickerOf(typed)) : null;
  return (alert) =>
    (!filters.alertType || alert.alert_type === filters.alertType) &&
    (!ticker || alert.ticker === ticker) &&
    (!filters.market || assetClassOfTicker(alert.ticker) === filters.market);
}

/** The query string docs/SPEC.md describes: empty start is an hour ago, empty end is now (UTC). */
export function alertQueryString(filters: AlertFilters, now = new Date()): string {
  const start = filters.startTime ? new Date(filters.startTime) : new Date(now.getTime() - ALERT_LOG_DEFAULT_WINDOW_MS);
  const end = filters.endTime ? new Date(filters.endTime) : now;
  const params = streamParams(filters);
  params.set('max_count', String(effectiveMaxCount(filters.maxCount)));
  params.set('start_time', formatAlertTimestamp(start));
  params.set('end_time', formatAlertTimestamp(end));
  return params.toString();
}

/** A Date or a datetime-local value as the trader's local 'YYYY-MM-DD HH:MM'. */
function localMinute(value: Date | string): string {
  if (typeof value === 'string') return value.replace('T', ' ').slice(0, 16);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())} ${pad(value.getHours())}:${pad(value.getMinutes())}`;
}

/** The window the log covers, in words: empty start is an hour before now, empty end is now. */
export function alertWindowLabel(filters: AlertFilters, now = new Date()): string {
  if (!filters.startTime && !filters.endTime) return 'Showing the last hour';
  const start = filters.startTime || new Date(now.getTime() - ALERT_LOG_DEFAULT_WINDOW_MS);
  return `Showing ${localMinute(start)} to ${filters.endTime ? localMinute(filters.endTime) : 'now'}`;
}

export async function fetchAlerts(query: string): Promise<AlertRecord[]> {
  return (await apiFetch(`/external-api/alert?${query}`, alertLogResponse)).alerts;
}
