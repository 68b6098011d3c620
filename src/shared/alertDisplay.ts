// docs/SPEC.md section 4: how an alert from the API is shown in the alert log and panels. The
// display item's market is the ticker's asset class from the symbol table (issue 15: no longer
// always 'crypto'); null for a ticker the table does not know.
import type { AssetClass } from './symbolTable.ts';
import { assetClassOfTicker } from './tickers.ts';

export type AlertDisplayType = 'bullish' | 'bearish' | 'caution';

export interface AlertRecord {
  ticker: string;
  alert_type: string;
  message: string;
  /** UTC, 'YYYY-MM-DD HH:MM:SS'. */
  timestamp: string;
}

export interface AlertDisplayItem {
  symbol: string;
  market: AssetClass | null;
  type: AlertDisplayType;
  time: string;
  fullDate: string;
  content: string;
  alertType: string;
}

/** The generator name without its 'AlertGenerator' suffix (both spellings occur). */
function generatorOf(alertType: string): string {
  return alertType.replace(/AlertGenerator$/, '');
}

export function alertDisplayType(alertType: string, message: string): AlertDisplayType {
  switch (generatorOf(alertType)) {
    case 'VolatilitySpike':
      return 'caution';
    case 'MomentumShift':
      return message.includes('slowdown') ? 'caution' : 'bullish';
    case 'Breakout':
      return 'bullish';
    case 'TrendChange':
      return /bearish/i.test(message) ? 'bearish' : 'bullish';
    default:
      return 'caution';
  }
}

/**
 * The time an alert is shown with, in local time: the time alone for today's, with the weekday
 * for the last six days ('Fri 8:59:00 PM'), the full date before that. A list spanning days (the
 * watchlist panel looks back four) must not show Friday's alert as if it were today's.
 */
export function alertTimeLabel(timestamp: string, now: Date = new Date()): string {
  const date = parseAlertTimestamp(timestamp);
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  if (date.getTime() >= startOfToday) return date.toLocaleTimeString();
  if (date.getTime() >= startOfToday - 6 * 86_400_000)
    return `${date.toLocaleDateString(undefined, { weekday: 'short' })} ${date.toLocaleTimeString()}`;
  return date.toLocaleString();
}

/** Parses the API's UTC 'YYYY-MM-DD HH:MM:SS' into a Date. */
export function parseAlertTimestamp(timestamp: string): Date {
  return new Date(`${timestamp.replace(' ', 'T')}Z`);
}

export function toAlertDisplayItem(alert: AlertRecord): AlertDisplayItem {
  const date = parseAlertTimestamp(alert.timestamp);
  return {
    symbol: alert.ticker,
    market: assetClassOfTicker(alert.ticker),
    type: alertDisplayType(alert.alert_type, alert.message),
    time: date.toLocaleTimeString(),
    fullDate: date.toLocaleString(),
    content: alert.message,
    alertType: alert.alert_type,
  };
}

/** Formats a time as the alert API's UTC 'YYYY-MM-DD HH:MM:SS'. */
export function formatAlertTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
