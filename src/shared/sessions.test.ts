import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  equityIndexFrontContract,
  isTradingMinute,
  nextOpen,
  nyseEarlyCloses,
  nyseHolidays,
  sessionAt,
  sessionBounds,
  tradingDay,
  type SessionCalendarId,
} from './sessions.ts';

const t = (iso: string): number => Date.parse(iso);
const MS = 1;

/** New York wall clock of an instant, 'YYYY-MM-DD HH:MM' (an independent Intl check). */
const nyFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

function nyWall(timeMs: number): string {
  const parts = nyFormat.formatToParts(timeMs);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

const dates = (list: { date: string }[]) => list.map((entry) => entry.date);

describe('us-equities: regular, pre and post market', () => {
  // Monday 2026-11-23, New York on EST (UTC-5).
  it('opens at 09:30:00 and closes at 16:00:00 exactly', () => {
    expect(sessionAt('us-equities', t('2026-11-23T14:30:00Z') - MS).phase).toBe('pre');
    const open = sessionAt('us-equities', t('2026-11-23T14:30:00Z'));
    expect(open).toEqual({
      phase: 'regular',
      open: true,
      sessionOpen: t('2026-11-23T14:30:00Z'),
      sessionClose: t('2026-11-23T21:00:00Z'),
    });
    expect(sessionAt('us-equities', t('2026-11-23T21:00:00Z') - MS).open).toBe(true);
    const close = sessionAt('us-equities', t('2026-11-23T21:00:00Z'));
    expect(close.phase).toBe('post');
    expect(close.open).toBe(false);
  });

  it('flags pre-market 04:00-09:30 and post-market 16:00-20:00, closed outside', () => {
    expect(sessionAt('us-equities', t('2026-11-23T09:00:00Z') - MS).phase).toBe('closed');
    expect(sessionAt('us-equities', t('2026-11-23T09:00:00Z')).phase).toBe('pre');
    expect(sessionAt('us-equities', t('2026-11-23T09:00:00Z')).open).toBe(false);
    expect(sessionAt('us-equities', t('2026-11-24T01:00:00Z') - MS).phase).toBe('post');
    expect(sessionAt('us-equities', t('2026-11-24T01:00:00Z')).phase).toBe('closed');
  });

  it('uses the summer offset in summer (09:30 EDT is 13:30Z)', () => {
    expect(sessionAt('us-equities', t('2026-06-15T13:30:00Z')).open).toBe(true);
    expect(sessionAt('us-equities', t('2026-06-15T13:29:59Z')).phase).toBe('pre');
    expect(sessionAt('us-equities', t('2026-06-15T20:00:00Z')).phase).toBe('post');
  });

  it('is closed all weekend, extended hours included', () => {
    for (const iso of ['2026-11-21T09:30:00Z', '2026-11-21T15:00:00Z', '2026-11-22T15:00:00Z']) {
      expect(sessionAt('us-equities', t(iso))).toEqual({ phase: 'closed', open: false });
      expect(isTradingMinute('us-equities', t(iso), { extended: true })).toBe(false);
    }
  });

  it('isTradingMinute floors to the minute and counts extended hours only when asked', () => {
    expect(isTradingMinute('us-equities', t('2026-11-23T14:30:59Z'))).toBe(true);
    expect(isTradingMinute('us-equities', t('2026-11-23T14:29:59Z'))).toBe(false);
    expect(isTradingMinute('us-equities', t('2026-11-23T14:29:59Z'), { extended: true })).toBe(true);
    expect(isTradingMinute('us-equities', t('2026-11-23T20:59:59Z'))).toBe(true);
    expect(isTradingMinute('us-equities', t('2026-11-23T21:00:00Z'))).toBe(false);
  });
});

describe('NYSE holidays and early closes, computed from the rules', () => {
  it('gives the published 2025 calendar (with the Carter day of mourning)', () => {
    expect(dates(nyseHolidays(2025))).toEqual([
      '2025-01-01',
      '2025-01-09',
      '2025-01-20',
      '2025-02-17',
      '2025-04-18',
      '2025-05-26',
      '2025-06-19',
      '2025-07-04',
      '2025-09-01',
      '2025-11-27',
      '2025-12-25',
    ]);
    expect(dates(nyseEarlyCloses(2025))).toEqual(['2025-07-03', '2025-11-28', '2025-12-24']);
  });

  it('gives the published 2026 calendar', () => {
    expect(nyseHolidays(2026)).toEqual([
      { date: '2026-01-01', name: "New Year's Day" },
      { date: '2026-01-19', name: 'Martin Luther King Jr. Day' },
      { date: '2026-02-16', name: "Washington's Birthday" },
      { date: '2026-04-03', name: 'Good Friday' },
      { date: '2026-05-25', name: 'Memorial Day' },
      { date: '2026-06-19', name: 'Juneteenth' },
      { date: '2026-07-03', name: 'Independence Day' },
      { date: '2026-09-07', name: 'Labor Day' },
      { date: '2026-11-26', name: 'Thanksgiving Day' },
      { date: '2026-12-25', name: 'Christmas Day' },
    ]);
    expect(dates(nyseEarlyCloses(2026))).toEqual(['2026-11-27', '2026-12-24']);
  });

  it('gives the published 2027 calendar (observed Juneteenth, July 4 and Christmas)', () => {
    expect(dates(nyseHolidays(2027))).toEqual([
      '2027-01-01',
      '2027-01-18',
      '2027-02-15',
      '2027-03-26',
      '2027-05-31',
      '2027-06-18',
      '2027-07-05',
      '2027-09-06',
      '2027-11-25',
      '2027-12-24',
    ]);
    expect(dates(nyseEarlyCloses(2027))).toEqual(['2027-11-26']);
  });

  it('does not observe a Saturday New Year on the Friday before (2022, 2028)', () => {
    expect(dates(nyseHolidays(2022))).not.toContain('2021-12-31');
    expect(dates(nyseHolidays(2022))[0]).toBe('2022-01-17');
    expect(sessionAt('us-equities', t('2027-12-31T15:00:00Z')).open).toBe(true);
    expect(dates(nyseHolidays(2028))[0]).toBe('2028-01-17');
    // A Sunday New Year moves to Monday (2023-01-02); a Sunday Christmas too (2022-12-26).
    expect(dates(nyseHolidays(2023))[0]).toBe('2023-01-02');
    expect(dates(nyseHolidays(2022))).toContain('2022-12-26');
  });

  it('closes every 2026 holiday all day, and the next session is the next trading day', () => {
    for (const { date } of nyseHolidays(2026)) {
      for (const hour of ['09', '15', '18', '23']) {
        const at = t(`${date}T${hour}:00:00Z`);
        expect(sessionAt('us-equities', at), `${date} ${hour}Z`).toEqual({
          phase: 'closed',
          open: false,
        });
        expect(isTradingMinute('us-equities', at, { extended: true })).toBe(false);
      }
      const next = sessionBounds('us-equities', t(`${date}T15:00:00Z`));
      expect(next.tradingDay > date).toBe(true);
      expect(sessionAt('us-equities', next.open).open).toBe(true);
    }
    // Good Friday 2026: Thursday's post-market to Monday's open.
    expect(nextOpen('us-equities', t('2026-04-02T22:00:00Z'))).toBe(t('2026-04-06T13:30:00Z'));
    expect(tradingDay('us-equities', t('2026-04-03T15:00:00Z'))).toBe('2026-04-06');
  });

  it('closes the half days at 13:00 with post-market to 17:00', () => {
    for (const day of ['2026-11-27', '2026-12-24']) {
      const bounds = sessionBounds('us-equities', t(`${day}T15:00:00Z`));
      expect(bounds).toEqual({
        tradingDay: day,
        open: t(`${day}T14:30:00Z`),
        close: t(`${day}T18:00:00Z`),
        earlyClose: true,
        extendedOpen: t(`${day}T09:00:00Z`),
        extendedClose: t(`${day}T22:00:00Z`),
      });
      expect(nyWall(bounds.close)).toBe(`${day} 13:00`);
      expect(sessionAt('us-equities', t(`${day}T18:00:00Z`) - MS).phase).toBe('regular');
      expect(sessionAt('us-equities', t(`${day}T18:00:00Z`)).phase).toBe('post');
      expect(sessionAt('us-equities', t(`${day}T22:00:00Z`)).phase).toBe('closed');
    }
    expect(sessionBounds('us-equities', t('2026-11-23T15:00:00Z')).earlyClose).toBe(false);
  });

  it('never runs out: every year from this one on has its holidays, all on weekdays', () => {
    const thisYear = new Date().getUTCFullYear();
    for (let year = thisYear; year <= thisYear + 10; year += 1) {
      const holidays = nyseHolidays(year);
      expect(holidays.length).toBeGreaterThanOrEqual(9);
      for (const { date } of holidays) {
        const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
        expect(weekday, date).toBeGreaterThanOrEqual(1);
        expect(weekday, date).toBeLessThanOrEqual(5);
      }
      const goodFriday = holidays.find((holiday) => holiday.name === 'Good Friday');
      expect(new Date(`${goodFriday?.date}T12:00:00Z`).getUTCDay()).toBe(5);
      expect(nyseEarlyCloses(year).some((day) => day.name === 'Day after Thanksgiving')).toBe(true);
    }
  });
});

describe('DST change days', () => {
  it('maps 09:30 ET to 14:30Z before and 13:30Z after the spring change (2026-03-08)', () => {
    expect(sessionBounds('us-equities', t('2026-03-06T12:00:00Z')).open).toBe(t('2026-03-06T14:30:00Z'));
    // Sunday the 8th itself is closed; the next session is Monday's, on summer time.
    expect(sessionAt('us-equities', t('2026-03-08T14:30:00Z')).phase).toBe('closed');
    expect(sessionBounds('us-equities', t('2026-03-08T12:00:00Z')).open).toBe(t('2026-03-09T13:30:00Z'));
    expect(sessionAt('us-equities', t('2026-03-09T13:30:00Z')).open).toBe(true);
    expect(sessionAt('us-equities', t('2026-03-09T13:29:00Z')).phase).toBe('pre');
  });

  it('maps 09:30 ET to 13:30Z before and 14:30Z after the autumn change (2026-11-01)', () => {
    expect(sessionBounds('us-equities', t('2026-10-30T12:00:00Z')).open).toBe(t('2026-10-30T13:30:00Z'));
    expect(sessionBounds('us-equities', t('2026-11-01T12:00:00Z')).open).toBe(t('2026-11-02T14:30:00Z'));
    expect(sessionAt('us-equities', t('2026-11-02T13:30:00Z')).phase).toBe('pre');
    expect(sessionAt('us-equities', t('2026-11-02T14:30:00Z')).open).toBe(true);
  });

  it('opens Globex at 18:00 ET on the change Sundays (22:00Z in spring, 23:00Z in autumn)', () => {
    expect(sessionAt('cme-globex', t('2026-03-08T22:00:00Z') - MS).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2026-03-08T22:00:00Z')).open).toBe(true);
    expect(sessionAt('cme-globex', t('2026-11-01T23:00:00Z') - MS).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2026-11-01T23:00:00Z')).open).toBe(true);
    expect(tradingDay('cme-globex', t('2026-11-01T23:00:00Z'))).toBe('2026-11-02');
  });
});

describe('cme-globex', () => {
  it('opens Sunday 18:00 ET for Monday and closes Friday 17:00 ET', () => {
    // Week of 2026-11-23 (EST): Sunday 23:00Z to Friday 22:00Z.
    expect(sessionAt('cme-globex', t('2026-11-22T22:59:59Z')).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2026-11-22T23:00:00Z'))).toEqual({
      phase: 'regular',
      open: true,
      sessionOpen: t('2026-11-22T23:00:00Z'),
      sessionClose: t('2026-11-23T22:00:00Z'),
    });
    expect(tradingDay('cme-globex', t('2026-11-22T23:00:00Z'))).toBe('2026-11-23');
    expect(sessionAt('cme-globex', t('2026-11-27T22:00:00Z') - MS).open).toBe(true);
    expect(sessionAt('cme-globex', t('2026-11-27T22:00:00Z')).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2026-11-28T15:00:00Z')).phase).toBe('closed');
    expect(nextOpen('cme-globex', t('2026-11-27T22:00:00Z'))).toBe(t('2026-11-29T23:00:00Z'));
  });

  it('halts 17:00-18:00 ET Monday to Thursday; the evening session is the next trading day', () => {
    for (const day of ['23', '24', '25', '26']) {
      expect(sessionAt('cme-globex', t(`2026-11-${day}T21:59:59Z`)).open).toBe(true);
      expect(sessionAt('cme-globex', t(`2026-11-${day}T22:00:00Z`))).toEqual({
        phase: 'break',
        open: false,
      });
      expect(sessionAt('cme-globex', t(`2026-11-${day}T22:59:59Z`)).phase).toBe('break');
      expect(sessionAt('cme-globex', t(`2026-11-${day}T23:00:00Z`)).phase).toBe('regular');
    }
    expect(tradingDay('cme-globex', t('2026-11-23T21:59:00Z'))).toBe('2026-11-23');
    expect(tradingDay('cme-globex', t('2026-11-23T23:00:00Z'))).toBe('2026-11-24');
    expect(nextOpen('cme-globex', t('2026-11-23T22:30:00Z'))).toBe(t('2026-11-23T23:00:00Z'));
    expect(sessionBounds('cme-globex', t('2026-11-24T03:00:00Z'))).toEqual({
      tradingDay: '2026-11-24',
      open: t('2026-11-23T23:00:00Z'),
      close: t('2026-11-24T22:00:00Z'),
      earlyClose: false,
    });
  });

  it('trades through the equity pre-market and after the NYSE close', () => {
    expect(isTradingMinute('cme-globex', t('2026-11-23T12:00:00Z'))).toBe(true);
    expect(isTradingMinute('cme-globex', t('2026-11-24T02:00:00Z'))).toBe(true);
  });

  it('is closed on Christmas Day and New Year Day, and reopens after them', () => {
    // Christmas 2026 is a Friday: Thursday's session ends 17:00 ET, the next opens Sunday 18:00.
    expect(sessionAt('cme-globex', t('2026-12-24T21:59:00Z')).open).toBe(true);
    expect(sessionAt('cme-globex', t('2026-12-24T22:30:00Z')).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2026-12-25T15:00:00Z')).phase).toBe('closed');
    expect(nextOpen('cme-globex', t('2026-12-24T22:00:00Z'))).toBe(t('2026-12-27T23:00:00Z'));
    // New Year 2027 is a Friday too.
    expect(sessionAt('cme-globex', t('2026-12-31T22:30:00Z')).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2027-01-01T15:00:00Z')).phase).toBe('closed');
    expect(sessionBounds('cme-globex', t('2027-01-01T15:00:00Z')).tradingDay).toBe('2027-01-04');
    // Christmas 2028 is a Monday: closed from Friday 17:00 to Monday 18:00, then Tuesday's session.
    expect(sessionAt('cme-globex', t('2028-12-24T23:30:00Z')).phase).toBe('closed');
    expect(nextOpen('cme-globex', t('2028-12-22T22:00:00Z'))).toBe(t('2028-12-25T23:00:00Z'));
    expect(tradingDay('cme-globex', t('2028-12-25T23:00:00Z'))).toBe('2028-12-26');
    // Christmas 2029 is a Tuesday: Monday's halt runs on to Tuesday 18:00 (closed, not a break).
    expect(sessionAt('cme-globex', t('2029-12-24T22:30:00Z')).phase).toBe('closed');
    expect(sessionAt('cme-globex', t('2029-12-25T15:00:00Z')).phase).toBe('closed');
    expect(nextOpen('cme-globex', t('2029-12-24T22:30:00Z'))).toBe(t('2029-12-25T23:00:00Z'));
    expect(sessionAt('cme-globex', t('2029-12-26T22:30:00Z')).phase).toBe('break');
  });

  it('trades the other NYSE holidays as ordinary sessions (early halts not modelled)', () => {
    expect(sessionAt('cme-globex', t('2026-01-19T15:00:00Z')).open).toBe(true);
    expect(sessionAt('cme-globex', t('2026-11-26T15:00:00Z')).open).toBe(true);
  });
});

describe('crypto-24x7', () => {
  it('is always open; its trading day is the UTC date', () => {
    for (const iso of ['2026-11-21T15:00:00Z', '2026-12-25T00:00:00Z', '2026-03-08T07:00:00Z']) {
      expect(sessionAt('crypto-24x7', t(iso)).open).toBe(true);
      expect(isTradingMinute('crypto-24x7', t(iso))).toBe(true);
      expect(nextOpen('crypto-24x7', t(iso))).toBe(t(iso));
    }
    expect(tradingDay('crypto-24x7', t('2026-11-23T23:59:59Z'))).toBe('2026-11-23');
    expect(sessionBounds('crypto-24x7', t('2026-11-23T12:00:00Z'))).toEqual({
      tradingDay: '2026-11-23',
      open: t('2026-11-23T00:00:00Z'),
      close: t('2026-11-24T00:00:00Z'),
      earlyClose: false,
    });
  });
});

describe('nextOpen, sessionBounds and tradingDay for us-equities', () => {
  it('gives the next regular open, or the time itself when open', () => {
    expect(nextOpen('us-equities', t('2026-11-23T15:00:00Z'))).toBe(t('2026-11-23T15:00:00Z'));
    expect(nextOpen('us-equities', t('2026-11-23T10:00:00Z'))).toBe(t('2026-11-23T14:30:00Z'));
    expect(nextOpen('us-equities', t('2026-11-23T21:00:00Z'))).toBe(t('2026-11-24T14:30:00Z'));
    expect(nextOpen('us-equities', t('2026-11-21T15:00:00Z'))).toBe(t('2026-11-23T14:30:00Z'));
    // Wednesday before Thanksgiving: next is Friday's half day.
    expect(nextOpen('us-equities', t('2026-11-25T21:00:00Z'))).toBe(t('2026-11-27T14:30:00Z'));
  });

  it('puts extended-hours bars on their own date and closed time on the next trading day', () => {
    expect(tradingDay('us-equities', t('2026-11-23T09:00:00Z'))).toBe('2026-11-23');
    expect(tradingDay('us-equities', t('2026-11-24T00:59:00Z'))).toBe('2026-11-23');
    expect(tradingDay('us-equities', t('2026-11-24T01:00:00Z'))).toBe('2026-11-24');
    expect(tradingDay('us-equities', t('2026-11-28T02:00:00Z'))).toBe('2026-11-30');
    expect(tradingDay('us-equities', t('2026-11-21T15:00:00Z'))).toBe('2026-11-23');
  });
});

describe('properties over 2022-2035', () => {
  const calendars: SessionCalendarId[] = ['us-equities', 'cme-globex', 'crypto-24x7'];
  const instant = fc.integer({ min: Date.UTC(2022, 0, 1), max: Date.UTC(2035, 11, 31) });

  it('the session containing or following an instant agrees with sessionAt and nextOpen', () => {
    fc.assert(
      fc.property(fc.constantFrom(...calendars), instant, (calendar, at) => {
        const bounds = sessionBounds(calendar, at);
        const state = sessionAt(calendar, at);
        expect(bounds.open).toBeLessThan(bounds.close);
        expect(at).toBeLessThan(bounds.close);
        expect(state.open).toBe(at >= bounds.open);
        if (state.open) {
          expect(state.sessionOpen).toBe(bounds.open);
          expect(state.sessionClose).toBe(bounds.close);
          expect(tradingDay(calendar, at)).toBe(bounds.tradingDay);
        }
        const next = nextOpen(calendar, at);
        expect(next).toBeGreaterThanOrEqual(at);
        expect(sessionAt(calendar, next).open).toBe(true);
        expect(sessionAt(calendar, bounds.close).open && calendar !== 'crypto-24x7').toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('opens and closes at the New York wall-clock times, DST or not', () => {
    fc.assert(
      fc.property(instant, (at) => {
        const equities = sessionBounds('us-equities', at);
        expect(nyWall(equities.open)).toBe(`${equities.tradingDay} 09:30`);
        expect(nyWall(equities.close)).toBe(`${equities.tradingDay} ${equities.earlyClose ? '13:00' : '16:00'}`);
        expect(nyWall(equities.extendedOpen ?? 0)).toBe(`${equities.tradingDay} 04:00`);
        const globex = sessionBounds('cme-globex', at);
        expect(nyWall(globex.open).slice(11)).toBe('18:00');
        expect(nyWall(globex.close)).toBe(`${globex.tradingDay} 17:00`);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('equityIndexFrontContract (the continuous 1! of ES, MES, NQ, MNQ, YM, MYM, RTY, M2K)', () => {
  it('follows the quarter until its roll date, eight days before the third Friday', () => {
    expect(equityIndexFrontContract(t('2026-11-23T15:00:00Z'))).toEqual({
      code: 'Z26',
      monthCode: 'Z',
      year: 2026,
      expiry: '2026-12-18',
      rollDate: '2026-12-10',
    });
    // Wednesday 2026-12-09 during the day: still December; its evening session (trading day
    // Thursday the 10th, the roll date) already follows March 2027.
    expect(equityIndexFrontContract(t('2026-12-09T20:00:00Z')).code).toBe('Z26');
    expect(equityIndexFrontContract(t('2026-12-09T23:00:00Z')).code).toBe('H27');
    expect(equityIndexFrontContract(t('2026-12-31T15:00:00Z'))).toEqual({
      code: 'H27',
      monthCode: 'H',
      year: 2027,
      expiry: '2027-03-19',
      rollDate: '2027-03-11',
    });
  });

  it('moves the expiry to the business day before when the third Friday is an NYSE holiday', () => {
    // June 2026: the third Friday is Juneteenth (2026-06-19).
    const june = equityIndexFrontContract(t('2026-05-01T15:00:00Z'));
    expect(june).toMatchObject({ code: 'M26', expiry: '2026-06-18', rollDate: '2026-06-11' });
    expect(equityIndexFrontContract(t('2026-06-11T15:00:00Z')).code).toBe('U26');
  });

  it('always names a contract whose roll date is still ahead and which expires after it', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2022, 0, 1), max: Date.UTC(2035, 11, 31) }), (at) => {
        const contract = equityIndexFrontContract(at);
        const day = tradingDay('cme-globex', at);
        expect(day < contract.rollDate).toBe(true);
        expect(contract.rollDate < contract.expiry).toBe(true);
        expect(new Date(`${contract.rollDate}T12:00:00Z`).getUTCDay()).toBe(4);
        // At most one quarter ahead: the roll date is within about 3 months and a week.
        expect(Date.parse(contract.rollDate) - Date.parse(day)).toBeLessThan(100 * 86_400_000);
      }),
      { numRuns: 500 },
    );
  });
});
