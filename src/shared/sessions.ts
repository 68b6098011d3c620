// Trading-session calendars (issue 15, item 2): when a symbol trades, so that bars are built
// and generators run only inside sessions, and a gap at the open stays a gap.
//
// Pure: no I/O, no date library. Every time is epoch milliseconds; wall-clock times in New York
// go through Intl.DateTimeFormat (timeZone 'America/New_York'), so daylight saving is Intl's.
//
// - 'us-equities' (NYSE/Nasdaq): regular 09:30-16:00 ET, pre-market 04:00-09:30 and
//   post-market 16:00-20:00 flagged (not "open"). Holidays and early closes (13:00, post-market
//   to 17:00) are computed from the NYSE rules, so the calendar never runs out; one-off closures
//   (national days of mourning, storms) are a table of past dates.
// - 'cme-globex' (CME equity index, metals, energy): Sunday 18:00 ET to Friday 17:00 ET with the
//   daily 17:00-18:00 ET break. A session belongs to the trading day it ends on (the one opening
//   Monday 18:00 is Tuesday's). Closed for Christmas Day and New Year's Day (NYSE-observed dates);
//   the abbreviated holiday sessions and early halts around other US holidays are NOT modelled
//   (they differ by product and year): those days trade as ordinary sessions here.
// - 'crypto-24x7': always open; its "trading day" is the UTC date.

export const SESSION_CALENDAR_IDS = ['us-equities', 'cme-globex', 'crypto-24x7'] as const;
export type SessionCalendarId = (typeof SESSION_CALENDAR_IDS)[number];

/** 'regular': the main session; 'pre'/'post': US extended hours; 'break': Globex daily halt. */
type SessionPhase = 'regular' | 'pre' | 'post' | 'break' | 'closed';

export interface SessionState {
  phase: SessionPhase;
  /** Regular trading (us-equities), any trading phase (cme-globex), always (crypto-24x7). */
  open: boolean;
  /** The session this instant belongs to (us-equities: that day's regular session, also in pre/post). */
  sessionOpen?: number;
  sessionClose?: number;
}

export interface SessionBounds {
  /** Trading date the session belongs to, 'YYYY-MM-DD'. */
  tradingDay: string;
  /** Regular session open and close, epoch ms (close exclusive). */
  open: number;
  close: number;
  /** An exchange early close (us-equities 13:00 half days). */
  earlyClose: boolean;
  /** us-equities only: the extended-hours window (pre-market open, post-market close). */
  extendedOpen?: number;
  extendedClose?: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const NEW_YORK = 'America/New_York';

// ---------------------------------------------------------------------------------------------
// New York wall clock through Intl, cached per UTC hour (every US offset change falls on a UTC
// hour boundary, so the offset is constant within one).

let etFormatter: Intl.DateTimeFormat | undefined;
const offsetByHour = new Map<number, number>();
const CACHE_LIMIT = 8192;

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= CACHE_LIMIT) map.clear();
  map.set(key, value);
  return value;
}

/** New York's offset from UTC (local minus UTC, ms) at the instant timeMs. */
function nyOffset(timeMs: number): number {
  const hour = Math.floor(timeMs / HOUR);
  const cached = offsetByHour.get(hour);
  if (cached !== undefined) return cached;
  // New York changes its offset at most once a UTC day (at 02:00 local, in March and November):
  // a day that starts and ends on the same offset has it every hour, so Intl is asked about two
  // hours a day (one, the next day's start being cached) rather than each hour looked up.
  const dayStart = Math.floor(hour / 24) * 24;
  const startOffset = intlOffset(dayStart);
  if (startOffset === intlOffset(dayStart + 24)) {
    for (let at = dayStart + 1; at < dayStart + 24; at += 1) remember(offsetByHour, at, startOffset);
    return startOffset;
  }
  return intlOffset(hour);
}

/** New York's offset at the start of UTC hour `hour` (hours since the epoch), by Intl. */
function intlOffset(hour: number): number {
  const cached = offsetByHour.get(hour);
  if (cached !== undefined) return cached;
  etFormatter ??= new Intl.DateTimeFormat('en-US', {
    timeZone: NEW_YORK,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const at = hour * HOUR;
  const parts: Record<string, number> = {};
  for (const part of etFormatter.formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const field = (type: string): number => {
    const value = parts[type];
    if (value === undefined) throw new Error(`Intl.DateTimeFormat gave no ${type} for ${new Date(at).toISOString()}`);
    return value;
  };
  const local = Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour') % 24,
    field('minute'),
    field('second'),
  );
  return remember(offsetByHour, hour, local - at);
}

/** Days since 1970-01-01 of a civil date (UTC arithmetic, no zone). */
function dayNumber(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / DAY;
}

/** 0 = Sunday ... 6 = Saturday. */
function weekdayOf(dayNum: number): number {
  return (((dayNum + 4) % 7) + 7) % 7;
}

const isoDates = new Map<number, string>();

function isoDate(dayNum: number): string {
  return isoDates.get(dayNum) ?? remember(isoDates, dayNum, new Date(dayNum * DAY).toISOString().slice(0, 10));
}

function yearOf(dayNum: number): number {
  return new Date(dayNum * DAY).getUTCFullYear();
}

/** The New York civil day number and ms since its midnight at timeMs. */
function nyClock(timeMs: number): { dayNum: number; msOfDay: number } {
  const local = timeMs + nyOffset(timeMs);
  const dayNum = Math.floor(local / DAY);
  return { dayNum, msOfDay: local - dayNum * DAY };
}

/** Epoch ms of a New York wall-clock time on a civil day (times in the spring-forward gap are not used). */
function nyTime(dayNum: number, minutes: number): number {
  const guess = dayNum * DAY + minutes * MINUTE;
  const first = guess - nyOffset(guess);
  const second = guess - nyOffset(first);
  return second;
}

// ---------------------------------------------------------------------------------------------
// NYSE holidays and early closes, computed from the exchange's rules (NYSE Rule 7.2 and the
// published calendars): valid from 2022 (Juneteenth) on.

export interface ExchangeDate {
  date: string;
  name: string;
}

/** One-off full closures that no rule predicts (national days of mourning, storms). */
const NYSE_SPECIAL_CLOSURES: readonly ExchangeDate[] = [
  { date: '2012-10-29', name: 'Hurricane Sandy' },
  { date: '2012-10-30', name: 'Hurricane Sandy' },
  { date: '2018-12-05', name: 'National Day of Mourning (George H. W. Bush)' },
  { date: '2025-01-09', name: 'National Day of Mourning (Jimmy Carter)' },
];

/** Gregorian Easter Sunday (anonymous Gregorian computus) as a day number. */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return dayNumber(year, month, day);
}

/** The n-th (1-based) given weekday of a month. */
function nthWeekday(year: number, month: number, weekday: number, n: number): number {
  const first = dayNumber(year, month, 1);
  return first + ((weekday - weekdayOf(first) + 7) % 7) + (n - 1) * 7;
}

function lastWeekday(year: number, month: number, weekday: number): number {
  const last = dayNumber(year, month + 1, 1) - 1;
  return last - ((weekdayOf(last) - weekday + 7) % 7);
}

/** A fixed-date holiday moved off the weekend: Saturday to the Friday before, Sunday to the Monday after. */
function observed(dayNum: number): number {
  const weekday = weekdayOf(dayNum);
  return weekday === 6 ? dayNum - 1 : weekday === 0 ? dayNum + 1 : dayNum;
}

interface YearCalendar {
  holidays: Map<number, string>;
  earlyCloses: Map<number, string>;
}

const yearCache = new Map<number, YearCalendar>();

function nyseYear(year: number): YearCalendar {
  const cached = yearCache.get(year);
  if (cached) return cached;
  const holidays = new Map<number, string>();
  // New Year's Day: Sunday moves to Monday; on a Saturday it is not observed (the NYSE does not
  // close on Friday December 31, the end of an accounting period).
  const newYear = dayNumber(year, 1, 1);
  if (weekdayOf(newYear) !== 6) holidays.set(observed(newYear), "New Year's Day");
  holidays.set(nthWeekday(year, 1, 1, 3), 'Martin Luther King Jr. Day');
  holidays.set(nthWeekday(year, 2, 1, 3), "Washington's Birthday");
  holidays.set(easterSunday(year) - 2, 'Good Friday');
  holidays.set(lastWeekday(year, 5, 1), 'Memorial Day');
  if (year >= 2022) holidays.set(observed(dayNumber(year, 6, 19)), 'Juneteenth');
  holidays.set(observed(dayNumber(year, 7, 4)), 'Independence Day');
  holidays.set(nthWeekday(year, 9, 1, 1), 'Labor Day');
  const thanksgiving = nthWeekday(year, 11, 4, 4);
  holidays.set(thanksgiving, 'Thanksgiving Day');
  holidays.set(observed(dayNumber(year, 12, 25)), 'Christmas Day');
  for (const special of NYSE_SPECIAL_CLOSURES) {
    const [y, m, d] = special.date.split('-').map(Number);
    if (y === year) holidays.set(dayNumber(y, m!, d!), special.name);
  }

  // Early closes at 13:00: July 3 on a Monday to Thursday, the day after Thanksgiving, and
  // Christmas Eve on a Monday to Thursday (on a Friday it is the observed Christmas holiday).
  const earlyCloses = new Map<number, string>();
  const july3 = dayNumber(year, 7, 3);
  if (weekdayOf(july3) >= 1 && weekdayOf(july3) <= 4) {
    earlyCloses.set(july3, 'Independence Day eve');
  }
  earlyCloses.set(thanksgiving + 1, 'Day after Thanksgiving');
  const christmasEve = dayNumber(year, 12, 24);
  if (weekdayOf(christmasEve) >= 1 && weekdayOf(christmasEve) <= 4) {
    earlyCloses.set(christmasEve, 'Christmas Eve');
  }
  for (const day of holidays.keys()) earlyCloses.delete(day);

  return remember(yearCache, year, { holidays, earlyCloses });
}

function sortedDates(map: Map<number, string>): ExchangeDate[] {
  return [...map.entries()].sort((a, b) => a[0] - b[0]).map(([dayNum, name]) => ({ date: isoDate(dayNum), name }));
}

/** NYSE full-day closures (weekdays) of a year, in date order. */
export function nyseHolidays(year: number): ExchangeDate[] {
  return sortedDates(nyseYear(year).holidays);
}

/** NYSE 13:00 early closes of a year, in date order. */
export function nyseEarlyCloses(year: number): ExchangeDate[] {
  return sortedDates(nyseYear(year).earlyCloses);
}

// ---------------------------------------------------------------------------------------------
// US equities: one cached record per New York civil day.

interface EquityDay {
  trading: boolean;
  earlyClose: boolean;
  preOpen: number;
  open: number;
  close: number;
  postClose: number;
}

const equityDays = new Map<number, EquityDay>();

function equityDay(dayNum: number): EquityDay {
  const cached = equityDays.get(dayNum);
  if (cached) return cached;
  const weekday = weekdayOf(dayNum);
  const calendar = nyseYear(yearOf(dayNum));
  const trading = weekday !== 0 && weekday !== 6 && !calendar.holidays.has(dayNum);
  const earlyClose = trading && calendar.earlyCloses.has(dayNum);
  return remember(equityDays, dayNum, {
    trading,
    earlyClose,
    preOpen: nyTime(dayNum, 4 * 60),
    open: nyTime(dayNum, 9 * 60 + 30),
    close: nyTime(dayNum, earlyClose ? 13 * 60 : 16 * 60),
    postClose: nyTime(dayNum, earlyClose ? 17 * 60 : 20 * 60),
  });
}

function equityBounds(dayNum: number, day: EquityDay): SessionBounds {
  return {
    tradingDay: isoDate(dayNum),
    open: day.open,
    close: day.close,
    earlyClose: day.earlyClose,
    extendedOpen: day.preOpen,
    extendedClose: day.postClose,
  };
}

/** The first trading day on or after dayNum (at most a couple of weeks ahead). */
function nextEquityDay(dayNum: number): number {
  let day = dayNum;
  while (!equityDay(day).trading) day += 1;
  return day;
}

// ---------------------------------------------------------------------------------------------
// CME Globex: the session of trading day D runs 18:00 ET on D-1 to 17:00 ET on D (Monday's opens
// on Sunday). No session on weekends, Christmas Day or New Year's Day (NYSE-observed dates).

interface GlobexDay {
  trading: boolean;
  open: number;
  close: number;
}

const globexDays = new Map<number, GlobexDay>();

function globexClosedDay(dayNum: number): boolean {
  const name = nyseYear(yearOf(dayNum)).holidays.get(dayNum);
  return name === 'Christmas Day' || name === "New Year's Day";
}

function globexDay(dayNum: number): GlobexDay {
  const cached = globexDays.get(dayNum);
  if (cached) return cached;
  const weekday = weekdayOf(dayNum);
  return remember(globexDays, dayNum, {
    trading: weekday !== 0 && weekday !== 6 && !globexClosedDay(dayNum),
    open: nyTime(dayNum - 1, 18 * 60),
    close: nyTime(dayNum, 17 * 60),
  });
}

function globexBounds(dayNum: number, day: GlobexDay): SessionBounds {
  return { tradingDay: isoDate(dayNum), open: day.open, close: day.close, earlyClose: false };
}

/** The trading day of the Globex session containing or following timeMs. */
function globexDayAtOrAfter(timeMs: number): number {
  const { dayNum } = nyClock(timeMs);
  // The session ending on the same New York date, if it has not closed yet; else later ones.
  let day = dayNum;
  for (;;) {
    const session = globexDay(day);
    if (session.trading && timeMs < session.close) return day;
    day += 1;
  }
}

// ---------------------------------------------------------------------------------------------
// The public API.

const ALWAYS_OPEN: SessionState = { phase: 'regular', open: true };

function cryptoBounds(timeMs: number): SessionBounds {
  const dayNum = Math.floor(timeMs / DAY);
  return { tradingDay: isoDate(dayNum), open: dayNum * DAY, close: (dayNum + 1) * DAY, earlyClose: false };
}

/** The phase of the market at an instant. */
export function sessionAt(calendar: SessionCalendarId, timeMs: number): SessionState {
  if (calendar === 'crypto-24x7') {
    const bounds = cryptoBounds(timeMs);
    return { ...ALWAYS_OPEN, sessionOpen: bounds.open, sessionClose: bounds.close };
  }
  if (calendar === 'us-equities') {
    const { dayNum } = nyClock(timeMs);
    const day = equityDay(dayNum);
    if (!day.trading || timeMs < day.preOpen || timeMs >= day.postClose) {
      return { phase: 'closed', open: false };
    }
    const phase: SessionPhase = timeMs < day.open ? 'pre' : timeMs < day.close ? 'regular' : 'post';
    return { phase, open: phase === 'regular', sessionOpen: day.open, sessionClose: day.close };
  }
  const dayNum = globexDayAtOrAfter(timeMs);
  const session = globexDay(dayNum);
  if (timeMs >= session.open) {
    return { phase: 'regular', open: true, sessionOpen: session.open, sessionClose: session.close };
  }
  // Between sessions: the daily halt when one session closed at 17:00 and the next opens at
  // 18:00 the same evening; otherwise (weekend, holiday) closed.
  const previous = globexDay(dayNum - 1);
  const dailyBreak = previous.trading && session.open - previous.close === HOUR;
  return { phase: dailyBreak ? 'break' : 'closed', open: false };
}

export interface TradingMinuteOptions {
  /** us-equities: count pre-market and post-market minutes as trading minutes too. */
  extended?: boolean;
}

/** Whether the minute starting at (the minute containing) timeMs is a trading minute. */
export function isTradingMinute(
  calendar: SessionCalendarId,
  timeMs: number,
  options: TradingMinuteOptions = {},
): boolean {
  if (calendar === 'crypto-24x7') return true;
  const state = sessionAt(calendar, Math.floor(timeMs / MINUTE) * MINUTE);
  return state.open || (options.extended === true && (state.phase === 'pre' || state.phase === 'post'));
}

/**
 * The session containing timeMs or, outside one, the next session: its regular open and close.
 * us-equities also gives the extended-hours window; crypto-24x7 gives the UTC day.
 */
export function sessionBounds(calendar: SessionCalendarId, timeMs: number): SessionBounds {
  if (calendar === 'crypto-24x7') return cryptoBounds(timeMs);
  if (calendar === 'us-equities') {
    const { dayNum } = nyClock(timeMs);
    const today = equityDay(dayNum);
    if (today.trading && timeMs < today.close) return equityBounds(dayNum, today);
    const next = nextEquityDay(dayNum + 1);
    return equityBounds(next, equityDay(next));
  }
  const dayNum = globexDayAtOrAfter(timeMs);
  return globexBounds(dayNum, globexDay(dayNum));
}

/** The first instant at or after timeMs with regular trading: timeMs itself when open. */
export function nextOpen(calendar: SessionCalendarId, timeMs: number): number {
  if (calendar === 'crypto-24x7') return timeMs;
  const bounds = sessionBounds(calendar, timeMs);
  return Math.max(bounds.open, timeMs);
}

/**
 * The trading date ('YYYY-MM-DD') a bar at timeMs belongs to. us-equities: the New York date
 * while extended hours last (to 20:00, or 17:00 on a half day), else the next trading day.
 * cme-globex: the session ending at the next 17:00 ET close (the one opening at 18:00 belongs to
 * the next day; Sunday evening to Monday). crypto-24x7: the UTC date.
 */
export function tradingDay(calendar: SessionCalendarId, timeMs: number): string {
  if (calendar === 'crypto-24x7') return isoDate(Math.floor(timeMs / DAY));
  if (calendar === 'us-equities') {
    const { dayNum } = nyClock(timeMs);
    const today = equityDay(dayNum);
    if (today.trading && timeMs < today.postClose) return isoDate(dayNum);
    return isoDate(nextEquityDay(dayNum + 1));
  }
  return isoDate(globexDayAtOrAfter(timeMs));
}

// ---------------------------------------------------------------------------------------------
// The continuous `1!` contract of the CME equity index futures (ES, MES, NQ, MNQ, YM, MYM, RTY,
// M2K): quarterly March (H), June (M), September (U), December (Z) contracts expiring on the
// third Friday of the month (the preceding business day when the NYSE is closed that Friday).
// The front month follows CME's roll-date convention: eight calendar days before the third
// Friday (a Thursday), the next quarter becomes the front month for that whole trading day.

export interface QuarterlyContract {
  /** CME month code and two-digit year, e.g. 'Z26' (MESZ26). */
  code: string;
  monthCode: 'H' | 'M' | 'U' | 'Z';
  year: number;
  /** Last trading day, 'YYYY-MM-DD'. */
  expiry: string;
  /** First trading day on which the next quarter is the front month, 'YYYY-MM-DD'. */
  rollDate: string;
}

const QUARTER_CODES = { 3: 'H', 6: 'M', 9: 'U', 12: 'Z' } as const;

function quarterlyContract(year: number, month: 3 | 6 | 9 | 12): QuarterlyContract {
  const thirdFriday = nthWeekday(year, month, 5, 3);
  let expiry = thirdFriday;
  while (!equityDay(expiry).trading) expiry -= 1;
  return {
    code: `${QUARTER_CODES[month]}${String(year % 100).padStart(2, '0')}`,
    monthCode: QUARTER_CODES[month],
    year,
    expiry: isoDate(expiry),
    rollDate: isoDate(thirdFriday - 8),
  };
}

/** The equity index quarterly contract the continuous `1!` follows at timeMs (Globex trading day). */
export function equityIndexFrontContract(timeMs: number): QuarterlyContract {
  const day = tradingDay('cme-globex', timeMs);
  let year = Number(day.slice(0, 4));
  let month = (Math.ceil(Number(day.slice(5, 7)) / 3) * 3) as 3 | 6 | 9 | 12;
  for (;;) {
    const contract = quarterlyContract(year, month);
    if (day < contract.rollDate) return contract;
    if (month === 12) {
      year += 1;
      month = 3;
    } else {
      month = (month + 3) as 3 | 6 | 9 | 12;
    }
  }
}
