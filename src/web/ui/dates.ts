// Days and times as the app writes them, in the browser's time zone: a day 'Nov 30, 2026' (the
// plan's end in the top bar, a file's upload day), a time of day '02:35 PM' (as en-US writes it,
// like the alert cards beside the watchlist), a weekday 'Mon'. Written out here rather than with toLocaleDateString: the
// first Intl date format a page makes costs 11 to 25 ms on a desktop (ICU's set-up of dates and
// time zones; about four times that on a phone), and the dashboard's first screen paid it in its
// top bar, its watchlist and its chart's axis (docs/performance.md). The app's texts are English.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** '07' for 7: a clock's or a day's two digits. */
export const twoDigits = (value: number) => String(value).padStart(2, '0');

/** 'Jan' to 'Dec' for a month index 0 to 11. */
export function shortMonth(monthIndex: number): string {
  const month = MONTHS[monthIndex];
  if (month === undefined) throw new RangeError(`month index ${monthIndex} is not 0 to 11`);
  return month;
}

/** '02:35 PM': the local hour (01 to 12), minute and half of the day. */
export function timeOfDay(date: Date): string {
  const hours = date.getHours();
  return `${twoDigits(hours % 12 || 12)}:${twoDigits(date.getMinutes())} ${hours < 12 ? 'AM' : 'PM'}`;
}

/** 'Mon': the local weekday. */
export function shortWeekday(date: Date): string {
  return WEEKDAYS[date.getDay()]!;
}

export function shortDate(value: string | Date): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return 'Invalid Date';
  return `${MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()}`;
}
