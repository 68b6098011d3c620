// The own chart's time axis and crosshair time, in UTC as lightweight-charts writes them by
// default ('2026', 'Nov', '27', '14:00'; "27 Nov '26 14:00"), but without the library's
// toLocaleString: a page's first Intl date format costs ICU's set-up, which made the chart's
// first drawing a long task on a phone (src/web/ui/dates.ts). The library's enum comes with the
// library itself, which loads on demand: only its type is imported here.
import type { Time, TickMarkType } from 'lightweight-charts';
import { shortMonth, twoDigits } from '../../ui/dates.ts';

const utcClock = (date: Date) => `${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}`;

/** A chart time (our bars' are UTC timestamps in seconds; the library allows days too) as a Date. */
function timeToDate(time: Time): Date {
  if (typeof time === 'number') return new Date(time * 1000);
  if (typeof time === 'string') return new Date(`${time}T00:00:00Z`);
  return new Date(Date.UTC(time.year, time.month - 1, time.day));
}

export function tickMarkText(lib: { TickMarkType: typeof TickMarkType }, time: Time, type: TickMarkType): string {
  const date = timeToDate(time);
  switch (type) {
    case lib.TickMarkType.Year:
      return String(date.getUTCFullYear());
    case lib.TickMarkType.Month:
      return shortMonth(date.getUTCMonth());
    case lib.TickMarkType.DayOfMonth:
      return String(date.getUTCDate());
    case lib.TickMarkType.Time:
      return utcClock(date);
    default:
      return `${utcClock(date)}:${twoDigits(date.getUTCSeconds())}`;
  }
}

export function crosshairTimeText(time: Time): string {
  const date = timeToDate(time);
  const year = twoDigits(date.getUTCFullYear() % 100);
  return `${twoDigits(date.getUTCDate())} ${shortMonth(date.getUTCMonth())} '${year} ${utcClock(date)}`;
}
