// The alert log query of SPEC.md section 7 (GET /external-api/alert), validated the same way
// in the browser and on the server.
import { z } from 'zod';
import { ALERT_LOG_MAX_CAP, ALERT_TYPES } from '../constants.ts';
import { tickerOf } from '../tickers.ts';

const ALERT_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** True when the text names a real UTC moment (no 30 February rolled over into March). */
function isRealTime(value: string): boolean {
  const parsed = new Date(`${value.replace(' ', 'T')}Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.replace(' ', 'T');
}

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
      .regex(/^[A-Z0-9.-]*$/, 'symbol may only contain letters, digits, dots and dashes')
      .transform((value) => tickerOf(value) || undefined)
      .optional(),
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
