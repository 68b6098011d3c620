// shortDate writes a day as en-US's medium date does ('Nov 30, 2026'), timeOfDay a time as
// en-US's two-digit hour and minute do ('02:35 PM'), both in the local time zone, without Intl.
import { describe, expect, it } from 'vitest';
import { shortDate, shortMonth, shortWeekday, timeOfDay } from './dates.ts';

describe('shortDate', () => {
  it('matches en-US toLocaleDateString with a short month, day and year, in the local time zone', () => {
    const options = { year: 'numeric', month: 'short', day: 'numeric' } as const;
    // Every month, the first and last hours of a day, and a leap day.
    const days = Array.from({ length: 12 }, (_, month) => new Date(2026, month, 1 + month * 2, 0, 0, 1)).concat(
      new Date(2026, 11, 31, 23, 59, 59),
      new Date(2028, 1, 29, 12),
    );
    for (const day of days) expect(shortDate(day)).toBe(day.toLocaleDateString('en-US', options));
    // An ISO text is read as the instant it names, then shown in local time.
    const iso = '2026-11-30T12:00:00.000Z';
    expect(shortDate(iso)).toBe(new Date(iso).toLocaleDateString('en-US', options));
  });

  it('says so for a text that is no date', () => {
    expect(shortDate('not a date')).toBe('Invalid Date');
  });
});

describe('timeOfDay, shortWeekday and shortMonth', () => {
  it('write the local time, weekday and month as en-US writes them', () => {
    for (let hour = 0; hour < 24; hour += 1) {
      const date = new Date(2026, 10, 23 + (hour % 7), hour, (hour * 7) % 60);
      expect(timeOfDay(date)).toBe(date.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' }));
      expect(shortWeekday(date)).toBe(date.toLocaleDateString('en-US', { weekday: 'short' }));
    }
    expect(timeOfDay(new Date(2026, 0, 1, 0, 5))).toBe('12:05 AM');
    expect(timeOfDay(new Date(2026, 0, 1, 12, 5))).toBe('12:05 PM');
    for (let month = 0; month < 12; month += 1)
      expect(shortMonth(month)).toBe(new Date(2026, month, 1).toLocaleDateString('en-US', { month: 'short' }));
  });
});
