// One symbol's deterministic demo price path (issue 15, item 4): which minutes have bars and
// what each bar is. Sessions come from src/shared/sessions.ts (never re-implemented here).
//
// Why two levels: replaying every minute since the epoch costs O(time since DEMO_EPOCH) on
// first use, far too slow for thousands of symbols. Instead:
// - a coarse anchor walk, one step per session of the symbol's calendar, gives each session's
//   opening and closing level (gap from the previous close scaled with the time closed,
//   volatility regime, multi-day trend, weak pull back to the profile's level). Each step hashes
//   (symbol, session) for its randomness, so it is a few dozen arithmetic operations a session;
// - the minutes of one session are a random walk seeded by (symbol, session) and bent into a
//   Brownian bridge from that session's open anchor to its close anchor, so it is continuous
//   within the session and any session can be generated alone, in O(its minutes).
// A minute's bar therefore depends only on (symbol, minute): the same whatever `now` was when
// the feed was first asked, on every instance and after every restart.
import { sessionBounds, type SessionCalendarId } from '../../shared/sessions.ts';
import type { DemoProfile } from './demoProfiles.ts';

/**
 * The demo history starts here: no session opens before it. Two years before the product's
 * first use (late 2026), so a setup study's two years of hours are all demo bars; each symbol's
 * anchor walk grows by about 250 sessions a year from here (a few KB).
 */
export const DEMO_EPOCH = Date.UTC(2024, 0, 1);

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A bar as plain numbers, so aggregating months of minutes allocates nothing. */
export type BarSink = (time: number, open: number, high: number, low: number, close: number, volume: number) => void;

// ---------------------------------------------------------------------------------------------
// Sessions since the epoch, one list per calendar shared by every symbol on it (about 250 a year:
// 16 bytes a session).

interface SessionList {
  opens: number[];
  closes: number[];
}

const sessionLists = new Map<SessionCalendarId, SessionList>();

/** The calendar's sessions from the epoch, extended until one closes after `until`. */
function sessionsThrough(calendar: SessionCalendarId, until: number): SessionList {
  let list = sessionLists.get(calendar);
  if (!list) {
    list = { opens: [], closes: [] };
    sessionLists.set(calendar, list);
  }
  for (;;) {
    const lastClose = list.closes.length > 0 ? list.closes[list.closes.length - 1]! : DEMO_EPOCH;
    if (list.closes.length > 0 && lastClose > until) return list;
    // Crypto's "sessions" are UTC days: the walk runs straight through midnight.
    const bounds =
      calendar === 'crypto-24x7' ? { open: lastClose, close: lastClose + DAY } : sessionBounds(calendar, lastClose);
    list.opens.push(bounds.open);
    list.closes.push(bounds.close);
  }
}

/** Index of the first session closing after `time` (the one containing it, or the next). */
function sessionIndexAfter(list: SessionList, time: number): number {
  let low = 0;
  let high = list.closes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list.closes[middle]! > time) high = middle;
    else low = middle + 1;
  }
  return low;
}

// ---------------------------------------------------------------------------------------------
// Intraday shapes, by minute of the session: volatility and volume are U-shaped for US equities
// (busy open, closing auction), and for Globex high in the US cash session, thin overnight.

/** Length of a full session, minutes: the shapes are normalised over it. */
const TYPICAL_MINUTES: Record<SessionCalendarId, number> = {
  'us-equities': 390,
  'cme-globex': 1380,
  'crypto-24x7': 1440,
};

/** Minute of the New York day of a Globex session's minute (sessions open at 18:00 ET). */
function globexClock(minute: number): number {
  return (18 * 60 + minute) % 1440;
}

const CASH_OPEN = 9 * 60 + 30;
const CASH_CLOSE = 16 * 60;

function volatilityShape(calendar: SessionCalendarId, minute: number, minutes: number): number {
  if (calendar === 'us-equities') return 1 + Math.exp(-minute / 20) + 0.3 * Math.exp(-(minutes - 1 - minute) / 30);
  if (calendar === 'cme-globex') {
    const clock = globexClock(minute);
    if (clock >= CASH_OPEN && clock < CASH_CLOSE) return 1 + 0.8 * Math.exp(-(clock - CASH_OPEN) / 20);
    // European hours and the 08:30 ET data releases are livelier than the Asian night.
    return clock >= 3 * 60 && clock < CASH_OPEN ? 0.6 : 0.4;
  }
  return 1;
}

function volumeShape(calendar: SessionCalendarId, minute: number, minutes: number): number {
  if (calendar === 'us-equities') return 1 + 2 * Math.exp(-minute / 15) + 1.5 * Math.exp(-(minutes - 1 - minute) / 10);
  if (calendar === 'cme-globex') {
    const clock = globexClock(minute);
    if (clock >= CASH_OPEN && clock < CASH_CLOSE) return 1 + 1.5 * Math.exp(-(clock - CASH_OPEN) / 15);
    return clock >= 3 * 60 && clock < CASH_OPEN ? 0.25 : 0.1;
  }
  // Crypto: a mild daily cycle (busier in US and European hours).
  return 1 + 0.3 * Math.sin((2 * Math.PI * (minute - 360)) / 1440);
}

interface ShapeNorms {
  /** Square root of the summed squared volatility shape: per-minute sigma = daily sigma * shape / this. */
  volatility: number;
  /** Summed volume shape: per-minute volume = session volume * shape / this. */
  volume: number;
}

const shapeNorms = new Map<SessionCalendarId, ShapeNorms>();

interface SessionShape {
  volatility: Float64Array;
  volume: Float64Array;
}

/** The shapes of a session of `minutes` minutes: a handful of lengths occur (full days, half days). */
const sessionShapes = new Map<string, SessionShape>();

function shapeOf(calendar: SessionCalendarId, minutes: number): SessionShape {
  const key = `${calendar}:${minutes}`;
  const cached = sessionShapes.get(key);
  if (cached) return cached;
  const shape = { volatility: new Float64Array(minutes), volume: new Float64Array(minutes) };
  for (let minute = 0; minute < minutes; minute += 1) {
    shape.volatility[minute] = volatilityShape(calendar, minute, minutes);
    shape.volume[minute] = volumeShape(calendar, minute, minutes);
  }
  sessionShapes.set(key, shape);
  return shape;
}

function normsOf(calendar: SessionCalendarId): ShapeNorms {
  const cached = shapeNorms.get(calendar);
  if (cached) return cached;
  const minutes = TYPICAL_MINUTES[calendar];
  let variance = 0;
  let volume = 0;
  for (let minute = 0; minute < minutes; minute += 1) {
    variance += volatilityShape(calendar, minute, minutes) ** 2;
    volume += volumeShape(calendar, minute, minutes);
  }
  const norms = { volatility: Math.sqrt(variance), volume };
  shapeNorms.set(calendar, norms);
  return norms;
}

// ---------------------------------------------------------------------------------------------
// Randomness: stateless hashes for the anchor walk and the per-bar details, a small seeded PRNG
// for the minute walk of one session.

function hash32(seed: number, index: number, salt: number): number {
  let x = (seed ^ Math.imul(index, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A uniform in [0, 1) for (seed, index, salt). */
function hashUniform(seed: number, index: number, salt: number): number {
  return hash32(seed, index, salt) / 4294967296;
}

/** A standard normal for (seed, index, salt), by Box-Muller over two hashed uniforms. */
function hashGaussian(seed: number, index: number, salt: number): number {
  const u = Math.max(hashUniform(seed, index, salt), 1e-12);
  const v = hashUniform(seed, index, salt + 1);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** mulberry32: small, fast, seedable (also the demo ticks' path inside a minute). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the text: a symbol's (or a minute's) seed. */
export function seedOf(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  return hash >>> 0;
}

// ---------------------------------------------------------------------------------------------
// The minute walk of one session is drawn into scratch arrays shared by every series: a draw is
// synchronous, so years of sessions allocate nothing. A draw that starts while another is still
// emitting its bars (an emit callback asking for bars) gets arrays of its own.

interface SessionScratch {
  /** Log price, then price, of each point: point m is minute m's open and minute m - 1's close. */
  prices: Float64Array;
  /** The per-minute sigma of the log price. */
  sigma: Float64Array;
}

const sharedScratch: SessionScratch = { prices: new Float64Array(1441), sigma: new Float64Array(1440) };
let sharedScratchBusy = false;

function takeScratch(): SessionScratch {
  if (sharedScratchBusy) return { prices: new Float64Array(1441), sigma: new Float64Array(1440) };
  sharedScratchBusy = true;
  return sharedScratch;
}

function releaseScratch(scratch: SessionScratch): void {
  if (scratch === sharedScratch) sharedScratchBusy = false;
}

/**
 * The minute walk's uniforms: prng's mulberry32, its state a field of one object reused for
 * every session (not a closure's variable, so drawing allocates nothing).
 */
class WalkRandom {
  private state = 0;

  start(seed: number): void {
    this.state = seed >>> 0;
  }

  uniform(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

const walkRandom = new WalkRandom();

// ---------------------------------------------------------------------------------------------
// The path.

/** Daily volatility multipliers of the calm, normal and stormy regimes. */
const REGIME_MULTIPLIERS = [0.6, 1, 1.9] as const;
/**
 * Regimes (mean square multiplier about 1.2) and multi-day trends (about 0.25 of a day's variance)
 * add to the variance: scaled back so the realised yearly volatility is the profile's.
 */
const REGIME_VARIANCE_SCALE = 1 / Math.sqrt(1.45);
/** Overnight and weekend gaps: this fraction of the volatility the closed time would have had if traded. */
const GAP_SCALE = 0.25;
/** Sessions per year of each calendar, to turn yearly volatility into daily. */
const SESSIONS_PER_YEAR: Record<SessionCalendarId, number> = {
  'us-equities': 252,
  'cme-globex': 252,
  'crypto-24x7': 365,
};

/**
 * One symbol's path. Memory: the anchor walk keeps three numbers a session (about 6 KB a year of
 * sessions since the epoch); a session's minute path is drawn on demand into shared scratch arrays.
 */
export class DemoSeries {
  readonly calendar: SessionCalendarId;
  private readonly seed: number;
  private readonly logLevel: number;
  private readonly sigmaDay: number;
  private readonly reversion: number;
  private readonly norms: ShapeNorms;
  /** Multiplier of the price grid (1 / tickSize, an integer), 0 for no rounding. */
  private readonly gridScale: number;
  private readonly wholeVolume: boolean;
  /** Log open and close level, and volatility multiplier, of each session so far. */
  private readonly anchorOpens: number[] = [];
  private readonly anchorCloses: number[] = [];
  private readonly anchorMultipliers: number[] = [];
  private regime = 1;
  private trend = 0;

  constructor(readonly profile: DemoProfile) {
    this.calendar = profile.calendar;
    this.seed = seedOf(profile.pathKey);
    this.logLevel = Math.log(profile.level);
    this.sigmaDay = (profile.annualVolatility * REGIME_VARIANCE_SCALE) / Math.sqrt(SESSIONS_PER_YEAR[profile.calendar]);
    this.reversion = 1 - Math.pow(2, -1 / profile.halfLifeSessions);
    this.norms = normsOf(profile.calendar);
    this.gridScale = profile.tickSize > 0 ? Math.round(1 / profile.tickSize) : 0;
    this.wholeVolume = profile.assetClass !== 'crypto';
  }

  /** Rounds a price to the row's tick: n / scale is the double nearest the decimal (no 0.30000000000000004). */
  roundPrice(price: number): number {
    return this.gridScale > 0 ? Math.round(price * this.gridScale) / this.gridScale : price;
  }

  /** Extends the anchor walk through session `index`. */
  private anchorsThrough(index: number, sessions: SessionList): void {
    const typical = TYPICAL_MINUTES[this.calendar];
    for (let k = this.anchorOpens.length; k <= index; k += 1) {
      const seed = this.seed;
      // Regimes last several sessions; a trend persists for a few and fades.
      if (k === 0 || hashUniform(seed, k, 1) < 0.25) {
        const roll = hashUniform(seed, k, 2);
        this.regime = roll < 0.3 ? 0 : roll < 0.85 ? 1 : 2;
      }
      const multiplier = REGIME_MULTIPLIERS[this.regime]!;
      this.trend = 0.7 * this.trend + 0.15 * this.sigmaDay * hashGaussian(seed, k, 3);
      const previousClose = k === 0 ? this.logLevel : this.anchorCloses[k - 1]!;
      // The move while closed shows as a gap at the open, growing with the time closed; crypto
      // never closes and Globex only for its daily hour, so they gap little or not at all.
      const closedMinutes = k === 0 ? 0 : (sessions.opens[k]! - sessions.closes[k - 1]!) / MINUTE;
      const gap =
        closedMinutes > 0
          ? GAP_SCALE * this.sigmaDay * multiplier * Math.sqrt(closedMinutes / typical) * hashGaussian(seed, k, 5)
          : 0;
      const open = previousClose + gap;
      const minutes = (sessions.closes[k]! - sessions.opens[k]!) / MINUTE;
      const move =
        this.trend +
        this.reversion * (this.logLevel - open) +
        this.sigmaDay * multiplier * Math.sqrt(minutes / typical) * hashGaussian(seed, k, 7);
      this.anchorOpens.push(open);
      this.anchorCloses.push(open + move);
      this.anchorMultipliers.push(multiplier);
    }
  }

  /** Draws session `index`'s minute walk into `scratch`: its price points and per-minute sigma. */
  private sessionPath(index: number, sessions: SessionList, scratch: SessionScratch): void {
    this.anchorsThrough(index, sessions);
    const minutes = (sessions.closes[index]! - sessions.opens[index]!) / MINUTE;
    const shape = shapeOf(this.calendar, minutes).volatility;
    if (scratch.sigma.length < minutes) {
      scratch.prices = new Float64Array(minutes + 1);
      scratch.sigma = new Float64Array(minutes);
    }
    const { prices: path, sigma } = scratch;
    const random = walkRandom;
    random.start(hash32(this.seed, index, 11));
    const base = (this.sigmaDay * this.anchorMultipliers[index]!) / this.norms.volatility;
    let storm = 0;
    let stormMultiplier = 1;
    let drift = 0;
    let driftLeft = 0;
    let spare = Number.NaN;
    path[0] = 0;
    for (let minute = 0; minute < minutes; minute += 1) {
      // Intraday trends (drift in units of the minute's sigma) last about an hour; storms of
      // tens of minutes and single shock bars are what the volatility and momentum alerts catch.
      if (driftLeft <= 0) {
        drift = (random.uniform() - 0.5) * 0.24;
        driftLeft = Math.ceil(-Math.log(Math.max(random.uniform(), 1e-9)) * 60);
      }
      driftLeft -= 1;
      if (storm <= 0 && random.uniform() < 1 / 300) {
        storm = 5 + Math.ceil(-Math.log(Math.max(random.uniform(), 1e-9)) * 25);
        stormMultiplier = 2 + random.uniform() * 1.5;
      }
      const shock = random.uniform() < 0.0015 ? 3 + random.uniform() * 3 : 1;
      const s = base * shape[minute]! * (storm > 0 ? stormMultiplier : 1) * shock;
      storm -= 1;
      sigma[minute] = s;
      // Box-Muller gives normals in pairs; keeping the spare halves the logarithms and roots.
      let normal = spare;
      if (Number.isNaN(normal)) {
        const radius = Math.sqrt(-2 * Math.log(Math.max(random.uniform(), 1e-12)));
        const angle = 2 * Math.PI * random.uniform();
        spare = radius * Math.sin(angle);
        normal = radius * Math.cos(angle);
      } else {
        spare = Number.NaN;
      }
      path[minute + 1] = path[minute]! + s * (drift + normal);
    }
    // Brownian bridge: spread the difference to the anchors evenly, so the path starts at the
    // session's open anchor and ends at its close anchor without a visible step. Prices are
    // computed once a point (each is one bar's close and the next bar's open).
    const open = this.anchorOpens[index]!;
    const correction = (path[minutes]! - (this.anchorCloses[index]! - open)) / minutes;
    for (let point = 0; point <= minutes; point += 1) path[point] = Math.exp(open + path[point]! - point * correction);
  }

  /**
   * Emits the bars whose open time is in [from, until), oldest first: one a trading minute,
   * none while the market is closed. Costs O(the minutes of the sessions touched).
   *
   * With `bucketMs` (a multiple of a minute), the minutes are folded into bars of that size
   * aligned to UTC, exactly the bars aggregating the minute bars gives (appendToBucket): open
   * of the first minute, highest high, lowest low, close of the last, volumes summed in order.
   * Prices are rounded to the tick once a bucket rather than once a minute, which is the same
   * number as rounding is monotonic. A bucket is emitted once its last minute is drawn, or at
   * `until` when the window ends inside it.
   */
  barsBetween(from: number, until: number, emit: BarSink, bucketMs: number = MINUTE): void {
    if (until <= from) return;
    const sessions = sessionsThrough(this.calendar, until);
    const volumeBase = this.profile.dailyVolume / this.norms.volume;
    const scratch = takeScratch();
    // The bucket being folded (open time NaN while none), its prices not yet rounded.
    let bucket = Number.NaN;
    let bucketOpen = 0;
    let bucketHigh = 0;
    let bucketLow = 0;
    let bucketClose = 0;
    let bucketVolume = 0;
    try {
      for (let index = sessionIndexAfter(sessions, from); index < sessions.opens.length; index += 1) {
        const sessionOpen = sessions.opens[index]!;
        if (sessionOpen >= until) break;
        const minutes = (sessions.closes[index]! - sessionOpen) / MINUTE;
        const first = Math.max(0, Math.ceil((from - sessionOpen) / MINUTE));
        const last = Math.min(minutes, Math.ceil((until - sessionOpen) / MINUTE));
        if (first >= last) continue;
        this.sessionPath(index, sessions, scratch);
        const { prices, sigma } = scratch;
        const volumeShapes = shapeOf(this.calendar, minutes).volume;
        const volumeScale = volumeBase * Math.pow(this.anchorMultipliers[index]!, 0.7);
        // Bar details hash (session, minute), so emitting part of a session gives the same bars;
        // one 32-bit hash gives the four wick draws (a byte each), another the volume draws.
        const detailSeed = hash32(this.seed, index, 13);
        for (let minute = first; minute < last; minute += 1) {
          const s = sigma[minute]!;
          const open = prices[minute]!;
          const close = prices[minute + 1]!;
          const wicks = hash32(detailSeed, minute, 1);
          const wickUp = (((wicks & 0xff) + 0.5) / 256) * ((((wicks >>> 8) & 0xff) + 0.5) / 256) * s * 1.5;
          const wickDown = ((((wicks >>> 16) & 0xff) + 0.5) / 256) * (((wicks >>> 24) + 0.5) / 256) * s * 1.5;
          const high = (open > close ? open : close) * (1 + wickUp);
          const low = (open < close ? open : close) * (1 - wickDown);
          // Volume follows the intraday profile and the regime, and swells with big moves and bursts.
          const draws = hash32(detailSeed, minute, 2);
          const surprise = Math.abs(close - open) / (open * s);
          const burst = (draws & 0xffff) < 131 ? 3 + ((draws >>> 16) & 0xff) / 51 : 1;
          const rawVolume =
            volumeScale * volumeShapes[minute]! * (0.6 + (0.8 * (draws >>> 24)) / 256) * (0.7 + 0.5 * surprise) * burst;
          const volume = this.wholeVolume ? Math.max(1, Math.round(rawVolume)) : rawVolume;
          // Monotonic rounding (when the bucket is emitted) keeps high >= open, close >= low, and the open
          // equal to the previous close within the session.
          const time = sessionOpen + minute * MINUTE;
          const start = Math.floor(time / bucketMs) * bucketMs;
          if (start !== bucket) {
            if (!Number.isNaN(bucket))
              this.emitRounded(emit, bucket, bucketOpen, bucketHigh, bucketLow, bucketClose, bucketVolume);
            bucket = start;
            bucketOpen = open;
            bucketHigh = high;
            bucketLow = low;
            bucketVolume = volume;
          } else {
            if (high > bucketHigh) bucketHigh = high;
            if (low < bucketLow) bucketLow = low;
            bucketVolume += volume;
          }
          bucketClose = close;
          if (time + MINUTE >= start + bucketMs) {
            this.emitRounded(emit, bucket, bucketOpen, bucketHigh, bucketLow, bucketClose, bucketVolume);
            bucket = Number.NaN;
          }
        }
      }
      if (!Number.isNaN(bucket))
        this.emitRounded(emit, bucket, bucketOpen, bucketHigh, bucketLow, bucketClose, bucketVolume);
    } finally {
      releaseScratch(scratch);
    }
  }

  /** Emits a bar of raw prices rounded to the tick. */
  private emitRounded(
    emit: BarSink,
    time: number,
    open: number,
    high: number,
    low: number,
    close: number,
    volume: number,
  ): void {
    emit(time, this.roundPrice(open), this.roundPrice(high), this.roundPrice(low), this.roundPrice(close), volume);
  }

  /** The open time of the last trading minute that starts before `time`, or null before the first session. */
  lastMinuteBefore(time: number): number | null {
    const sessions = sessionsThrough(this.calendar, time);
    let index = sessionIndexAfter(sessions, time - MINUTE);
    if (index >= sessions.opens.length || sessions.opens[index]! > time - MINUTE) index -= 1;
    if (index < 0) return null;
    const lastOpen = Math.min(sessions.closes[index]! - MINUTE, Math.floor((time - MINUTE) / MINUTE) * MINUTE);
    return lastOpen >= sessions.opens[index]! ? lastOpen : null;
  }

  /** The open time of the first session at or after `time` (to step through history session by session). */
  sessionAfter(time: number): { open: number; close: number } {
    const sessions = sessionsThrough(this.calendar, time);
    const index = sessionIndexAfter(sessions, time);
    return { open: sessions.opens[index]!, close: sessions.closes[index]! };
  }
}
