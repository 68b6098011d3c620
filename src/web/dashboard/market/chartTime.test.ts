// The own chart's axis and crosshair times: in UTC, as the library's defaults write them (its
// toLocaleString options, here asked of Intl directly), without Intl.
import { TickMarkType, type UTCTimestamp } from 'lightweight-charts';
import { describe, expect, it } from 'vitest';
import { crosshairTimeText, tickMarkText } from './chartTime.ts';

const lib = { TickMarkType };
const seconds = (ms: number) => (ms / 1000) as UTCTimestamp;
const utc = (options: Intl.DateTimeFormatOptions) => (date: Date) =>
  date.toLocaleString('en-US', { ...options, timeZone: 'UTC' });

describe('tickMarkText', () => {
  it("writes each kind of tick as the library's default does, in UTC", () => {
    for (let hour = 1; hour < 24; hour += 5) {
      const date = new Date(Date.UTC(2026, hour % 12, 1 + hour, hour, (hour * 13) % 60, (hour * 7) % 60));
      const time = seconds(date.getTime());
      expect(tickMarkText(lib, time, TickMarkType.Year)).toBe(utc({ year: 'numeric' })(date));
      expect(tickMarkText(lib, time, TickMarkType.Month)).toBe(utc({ month: 'short' })(date));
      expect(tickMarkText(lib, time, TickMarkType.DayOfMonth)).toBe(utc({ day: 'numeric' })(date));
      expect(tickMarkText(lib, time, TickMarkType.Time)).toBe(
        utc({ hour12: false, hour: '2-digit', minute: '2-digit' })(date),
      );
      expect(tickMarkText(lib, time, TickMarkType.TimeWithSeconds)).toBe(
        utc({ hour12: false, hour: '2-digit', minute: '2-digit', second: '2-digit' })(date),
      );
    }
    // Midnight is 00:00 (Intl's hour12: false can say 24:00).
    expect(tickMarkText(lib, seconds(Date.UTC(2026, 10, 27)), TickMarkType.Time)).toBe('00:00');
  });

  it('takes a business day or its text as that day in UTC', () => {
    expect(tickMarkText(lib, { year: 2026, month: 11, day: 27 }, TickMarkType.Month)).toBe('Nov');
    expect(tickMarkText(lib, '2026-11-27', TickMarkType.DayOfMonth)).toBe('27');
  });
});

describe('crosshairTimeText', () => {
  it("writes the day, month, two-digit year and time: 27 Nov '26 14:05", () => {
    expect(crosshairTimeText(seconds(Date.UTC(2026, 10, 27, 14, 5)))).toBe("27 Nov '26 14:05");
    expect(crosshairTimeText(seconds(Date.UTC(2009, 0, 3, 0, 0)))).toBe("03 Jan '09 00:00");
  });
});
