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

/** The number `count` digits of `text` from `from` spell, or -1 when one is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index++) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * The moment a UTC 'YYYY-MM-DD HH:MM:SS' names, in ms since the epoch; NaN when the text is not
 * of that shape or names no real moment (30 February, 24:00:00, a 60th second). Read digit by
 * digit: the alert log's filters are checked and read on every request, and parsing the text as
 * a date string cost more than the rest of the check.
 */
export function alertTimestampMs(text: string): number {
  if (
    text.length !== 19 ||
    text[4] !== '-' ||
    text[7] !== '-' ||
    text[10] !== ' ' ||
    text[13] !== ':' ||
    text[16] !== ':'
  )
    return Number.NaN;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return Number.NaN;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return Number.NaN;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC reads the years 0 to 99 as 1900 to 1999.
  return year < 100 ? new Date(ms).setUTCFullYear(year) : ms;
}

/** Parses the API's UTC 'YYYY-MM-DD HH:MM:SS' into a Date. */
export function parseAlertTimestamp(timestamp: string): Date {
  const ms = alertTimestampMs(timestamp);
  return new Date(Number.isNaN(ms) ? Date.parse(`${timestamp.replace(' ', 'T')}Z`) : ms);
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
