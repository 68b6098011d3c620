// Shapes of the alert calls shared by server and browser: the alert log query and answer of
// docs/SPEC.md section 7 (GET /external-api/alert), the live stream's filters and events, and the
// test hook.
import { z } from 'zod';
import { ALERT_LOG_MAX_CAP, ALERT_TYPES } from '../constants.ts';
import { resolveSymbol } from '../symbols.ts';
import { ASSET_CLASSES } from '../symbolTable.ts';
import { tickerOf } from '../tickers.ts';
import { alertTimestampMs } from '../alertDisplay.ts';

/** A symbol as the alert filters take it: AAPL, BTC, BTC-USD, MES, MES1!, NASDAQ:AAPL. */
const SYMBOL_TEXT = /^[A-Z0-9.:!_-]*$/;

/** The plain ticker alerts are stored under, for any form the symbol table resolves ('BTC-USD' and 'BTC' give 'BTC'). */
function alertTicker(value: string): string {
  return resolveSymbol(value)?.ticker ?? tickerOf(value);
}

/** The alert log's market (asset class) filter: crypto, stock, etf, index, future, micro-future. */
const assetClassFilter = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.enum(ASSET_CLASSES, { error: `market must be one of ${ASSET_CLASSES.join(', ')}` }).optional(),
);

const ALERT_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** True when the text names a real UTC moment (no 30 February rolled over into March). */
const isRealTime = (value: string): boolean => !Number.isNaN(alertTimestampMs(value));

const utcTime = (name: string) =>
  z
    .string()
    .regex(ALERT_TIME, { message: `${name} must be UTC 'YYYY-MM-DD HH:MM:SS'`, abort: true })
    .refine(isRealTime, `${name} is not a real date and time`)
    .optional();

export const alertQuery = z
  .object({
    alert_type: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.enum(ALERT_TYPES, { error: `alert_type must be one of ${ALERT_TYPES.join(', ')}` }).optional(),
    ),
    symbol: z
      .string()
      .trim()
      .toUpperCase()
      .max(20, 'symbol is too long')
      .regex(SYMBOL_TEXT, 'symbol may only contain letters, digits, dots, dashes, colons and !')
      .transform((value) => alertTicker(value) || undefined)
      .optional(),
    market: assetClassFilter,
    max_count: z
      .string()
      .regex(/^\d+$/, 'max_count must be a positive whole number')
      .transform(Number)
      .refine((value) => value >= 1, 'max_count must be a positive whole number')
      .transform((value) => Math.min(value, ALERT_LOG_MAX_CAP))
      .optional(),
    start_time: utcTime('start_time'),
    end_time: utcTime('end_time'),
  })
  .refine(
    (query) => !query.start_time || !query.end_time || query.start_time <= query.end_time,
    'start_time must not be after end_time',
  );

export type AlertQuery = z.infer<typeof alertQuery>;

/** One alert as docs/SPEC.md shows it (timestamp in UTC, 'YYYY-MM-DD HH:MM:SS'). */
export const alertRecord = z.object({
  ticker: z.string(),
  alert_type: z.string(),
  message: z.string(),
  timestamp: z.string(),
});

/** GET /external-api/alert. */
export const alertLogResponse = z.object({ alerts: z.array(alertRecord) });

/** GET /api/alerts/stream query: the alert log's type and symbol filters. */
export const alertStreamQuery = z.object({
  alert_type: z.enum(ALERT_TYPES).optional(),
  symbol: z
    .string()
    .trim()
    .toUpperCase()
    .min(1)
    .max(20, 'symbol is too long')
    .regex(SYMBOL_TEXT, 'symbol may only contain letters, digits, dots, dashes, colons and !')
    .transform(alertTicker)
    .optional(),
  market: assetClassFilter,
  /** alerts (default): the market's alerts, filtered as above; rules: only this user's alert-rule firings (`rule` events). */
  kind: z.enum(['alerts', 'rules'], { error: "kind must be 'alerts' or 'rules'" }).default('alerts'),
});

/**
 * The data of the stream's `alert` event: the alert with its id (the event id) and source.
 * @public read through the live connection's on-demand import of this module (web/live).
 */
export const liveAlert = alertRecord.extend({ id: z.number(), source: z.string() });
export type LiveAlert = z.infer<typeof liveAlert>;

/**
 * The data of the stream's `end` event: why the server closed it.
 * @public read through the live connection's on-demand import of this module (web/live).
 */
export const alertStreamEnd = z.object({ reason: z.string() });

/** POST /api/test/alerts (TEST_HOOKS=true only). */
export const testAlertBody = z.object({
  ticker: z.string().regex(/^[A-Z0-9]{1,10}$/),
  alert_type: z.enum(ALERT_TYPES),
  message: z.string().min(1).max(300),
});
export const testAlertResponse = z.object({ alert: alertRecord.nullable() });
