// The deterministic demo feed (MARKET_DATA=demo, or auto while an upstream is unreachable) for
// every asset class of the symbol table: crypto around the clock, stocks, ETFs and indices in the
// NYSE regular session, futures in CME Globex sessions, with gaps at the open, realistic levels,
// tick sizes, volatility regimes and volume profiles, so every alert generator fires over time on
// every class. This module owns the provider: which symbols it serves, the windows of bars it
// keeps in memory, quotes and candles. The path of one symbol is demoSeries.ts; its character
// (level, volatility, volume, spread) is demoProfiles.ts. Always labelled "Demo data" where shown.
import { SYMBOL_TABLE, type MarketSymbol } from '../../shared/symbolTable.ts';
import type { CandleSeries } from '../../signals/candles.ts';
import { demoProfile } from './demoProfiles.ts';
import { DEMO_EPOCH, DemoSeries } from './demoSeries.ts';
import type { CandleRow, Granularity, MarketDataProvider, QuoteResult } from './types.ts';

export { DEMO_EPOCH } from './demoSeries.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const TABLE_BY_ID = new Map<string, MarketSymbol>(SYMBOL_TABLE.map((symbol) => [symbol.id, symbol]));

/**
 * A cursor over one symbol's bars from the epoch, one trading minute at a time (closed minutes
 * are skipped): for benchmarks and tests that want a long history without a feed.
 */
export class DemoAsset {
  private readonly series: DemoSeries;
  private buffer: CandleRow[] = [];
  private position = 0;
  /** Open time of the next bar to return (or a time before it, while closed). */
  nextTime = DEMO_EPOCH;

  constructor(
    readonly productId: string,
    symbols: readonly MarketSymbol[] = SYMBOL_TABLE,
  ) {
    const symbol = symbols === SYMBOL_TABLE ? TABLE_BY_ID.get(productId) : symbols.find((row) => row.id === productId);
    if (!symbol) throw new Error(`No demo data for ${productId}`);
    this.series = new DemoSeries(demoProfile(symbol));
  }

  /** The next one-minute bar. */
  next(): CandleRow {
    if (this.position >= this.buffer.length) {
      const session = this.series.sessionAfter(this.nextTime);
      this.buffer = [];
      this.position = 0;
      this.series.barsBetween(
        Math.max(this.nextTime, session.open),
        session.close,
        (time, open, high, low, close, volume) => this.buffer.push({ time, open, high, low, close, volume }),
      );
    }
    const bar = this.buffer[this.position];
    if (!bar)
      throw new Error(`The demo series has no bars in the session after ${new Date(this.nextTime).toISOString()}`);
    this.position += 1;
    this.nextTime = bar.time + MINUTE;
    return bar;
  }

  /** Skips a bar nobody needs (kept for callers that replay old history). */
  skip(): void {
    this.next();
  }
}

/** Bars as columns (the signals' CandleSeries layout): what a worker hands back without a bar object each. */
export type DemoColumns = CandleSeries;

/**
 * The bars of [start, end) a demo feed at `now` answers (`candles`) when its window reaches back
 * to `start`, drawn straight into columns: the series folds the minutes into bars itself. For
 * long histories (a setup study's two years), in a worker. Throws for a product not in `symbols`.
 */
export function demoCandleColumns(
  productId: string,
  granularity: Granularity,
  start: number,
  end: number,
  now: number,
  symbols: readonly MarketSymbol[] = SYMBOL_TABLE,
): DemoColumns {
  const symbol = symbols === SYMBOL_TABLE ? TABLE_BY_ID.get(productId) : symbols.find((row) => row.id === productId);
  if (!symbol) throw new Error(`No demo data for ${productId}`);
  const series = new DemoSeries(demoProfile(symbol));
  const size = granularity * 1000;
  // The feed answers closed bars only, each opening in [start, end).
  const from = Math.ceil(start / size) * size;
  const until = Math.min(Math.ceil(end / size) * size, Math.floor(now / size) * size);
  // At most one bar a bucket: the columns never grow, and are cut to length at the end (a
  // worker's answer is copied whole, buffer and all).
  const capacity = Math.max(0, Math.ceil((until - from) / size));
  const time = new Float64Array(capacity);
  const open = new Float64Array(capacity);
  const high = new Float64Array(capacity);
  const low = new Float64Array(capacity);
  const close = new Float64Array(capacity);
  const volume = new Float64Array(capacity);
  let length = 0;
  series.barsBetween(
    from,
    until,
    (barTime, barOpen, barHigh, barLow, barClose, barVolume) => {
      time[length] = barTime;
      open[length] = barOpen;
      high[length] = barHigh;
      low[length] = barLow;
      close[length] = barClose;
      volume[length] = barVolume;
      length += 1;
    },
    size,
  );
  return {
    length,
    time: time.slice(0, length),
    open: open.slice(0, length),
    high: high.slice(0, length),
    low: low.slice(0, length),
    close: close.slice(0, length),
    volume: volume.slice(0, length),
  };
}

/** Columns back into bar objects. */
export function rowsOfColumns(columns: DemoColumns): CandleRow[] {
  const rows = new Array<CandleRow>(columns.length);
  for (let index = 0; index < columns.length; index += 1) {
    rows[index] = {
      time: columns.time[index]!,
      open: columns.open[index]!,
      high: columns.high[index]!,
      low: columns.low[index]!,
      close: columns.close[index]!,
      volume: columns.volume[index]!,
    };
  }
  return rows;
}

/** Adds a bar to `bars`, merging it into the last bar when it falls in its bucket. */
export function appendToBucket(bars: CandleRow[], bar: CandleRow, sizeMs: number): void {
  const bucket = Math.floor(bar.time / sizeMs) * sizeMs;
  const last = bars.at(-1);
  if (last && last.time === bucket) {
    last.high = Math.max(last.high, bar.high);
    last.low = Math.min(last.low, bar.low);
    last.close = bar.close;
    last.volume += bar.volume;
  } else {
    bars.push({ ...bar, time: bucket });
  }
}

/** Aggregates one-minute bars into bars of `granularity` seconds (aligned to UTC). */
export function aggregate(minutes: CandleRow[], granularity: Granularity): CandleRow[] {
  if (granularity === 60) return minutes;
  const result: CandleRow[] = [];
  for (const bar of minutes) appendToBucket(result, bar, granularity * 1000);
  return result;
}

export interface DemoFeedOptions {
  now?: () => number;
  /**
   * How many days of one-minute bars to keep in memory per symbol: default 3 for a 24/7 market,
   * 5 for one with sessions (the alert engine backfills 4 days of those, over a weekend).
   */
  keepMinuteDays?: number;
  /** How many days of hourly bars to keep in memory per symbol. */
  keepHourDays?: number;
  /** The universe served, keyed by canonical id (default: the symbol table); benchmarks pass synthetic rows. */
  symbols?: readonly MarketSymbol[];
}

/**
 * What the feed keeps for one symbol it was asked about. Each window is filled lazily, the first
 * time its granularity is asked for, then only advanced. Memory with the defaults (minutes: 3
 * days of a 24/7 market, 5 of one with sessions; hours: 60 days; a bar object with six numbers
 * is about 110 bytes in V8): a stock about 2,000 minute and 300 hour bars, some 250 KB; a crypto
 * 4,320 minute and 1,440 hour bars, some 630 KB; a future up to 6,900 minute and 1,380 hour
 * bars, some 910 KB; plus the anchor walk, about 6 KB a year since the epoch. A symbol only
 * quoted keeps no bars at all.
 */
interface Tracked {
  series: DemoSeries;
  /** How far back the minute window reaches, in ms. */
  keepMinutesMs: number;
  minutes: CandleRow[];
  /** Bars before this open time are in `minutes` (or were trimmed); null until first asked. */
  minutesUntil: number | null;
  hours: CandleRow[];
  hoursUntil: number | null;
}

export type DemoFeed = MarketDataProvider & { minuteBars(productId: string): CandleRow[] };

/**
 * The demo provider. First use of a symbol costs O(the window asked for): a quote builds one
 * session, the minute window its days, the hour window its days; never the time since the epoch
 * beyond the anchor walk's few operations a session.
 */
export function createDemoFeed(options: DemoFeedOptions = {}): DemoFeed {
  const now = options.now ?? Date.now;
  const keepHourDays = options.keepHourDays ?? 60;
  const universe =
    options.symbols === undefined
      ? TABLE_BY_ID
      : new Map<string, MarketSymbol>(options.symbols.map((symbol) => [symbol.id, symbol]));
  const tracked = new Map<string, Tracked>();

  function track(productId: string): Tracked | null {
    const existing = tracked.get(productId);
    if (existing) return existing;
    const symbol = universe.get(productId);
    if (!symbol) return null;
    const entry: Tracked = {
      series: new DemoSeries(demoProfile(symbol)),
      keepMinutesMs: (options.keepMinuteDays ?? (symbol.calendar === 'crypto-24x7' ? 3 : 5)) * DAY,
      minutes: [],
      minutesUntil: null,
      hours: [],
      hoursUntil: null,
    };
    tracked.set(productId, entry);
    return entry;
  }

  /** Brings the windows asked for (and those already filled) up to the current minute, in one pass. */
  function advance(entry: Tracked, wantMinutes: boolean, wantHours: boolean): void {
    const until = Math.floor(now() / MINUTE) * MINUTE;
    const minutesActive = wantMinutes || entry.minutesUntil !== null;
    const hoursActive = wantHours || entry.hoursUntil !== null;
    const minutesFrom = Math.max(entry.minutesUntil ?? -Infinity, until - entry.keepMinutesMs);
    // Hourly bars start on an hour boundary so the first one is complete.
    const hoursFrom = Math.max(entry.hoursUntil ?? -Infinity, Math.floor((until - keepHourDays * DAY) / HOUR) * HOUR);
    const from = Math.min(minutesActive ? minutesFrom : Infinity, hoursActive ? hoursFrom : Infinity);
    if (from >= until) return;
    const { minutes, hours } = entry;
    let minutesFromHere = from;
    if (hoursActive && entry.hoursUntil === null) {
      // The hour window's first fill (60 days for a chart, two years for a study): the series
      // folds whole hours itself, no minute handed over, up to the current hour or the first
      // hour the minute window needs. The rest comes minute by minute below, so the hour still
      // open is summed in order as later minutes are added to it.
      const foldUntil = Math.min(
        Math.floor(until / HOUR) * HOUR,
        minutesActive ? Math.floor(minutesFrom / HOUR) * HOUR : Infinity,
      );
      if (foldUntil > hoursFrom) {
        entry.series.barsBetween(
          hoursFrom,
          foldUntil,
          (time, open, high, low, close, volume) => hours.push({ time, open, high, low, close, volume }),
          HOUR,
        );
        minutesFromHere = foldUntil;
      }
    }
    entry.series.barsBetween(minutesFromHere, until, (time, open, high, low, close, volume) => {
      if (minutesActive && time >= minutesFrom) minutes.push({ time, open, high, low, close, volume });
      if (hoursActive && time >= hoursFrom) {
        // appendToBucket inlined: months of minutes fold into hours without a bar object each.
        const bucket = Math.floor(time / HOUR) * HOUR;
        const last = hours.length > 0 ? hours[hours.length - 1] : undefined;
        if (last && last.time === bucket) {
          if (high > last.high) last.high = high;
          if (low < last.low) last.low = low;
          last.close = close;
          last.volume += volume;
        } else {
          hours.push({ time: bucket, open, high, low, close, volume });
        }
      }
    });
    if (minutesActive) {
      entry.minutesUntil = until;
      const keepFrom = until - entry.keepMinutesMs;
      // Trim in batches: a splice every minute would copy the whole window every minute.
      if (minutes.length > 0 && minutes[0]!.time < keepFrom - DAY / 2) {
        const firstKept = minutes.findIndex((bar) => bar.time >= keepFrom);
        minutes.splice(0, firstKept < 0 ? minutes.length : firstKept);
      }
    }
    if (hoursActive) {
      entry.hoursUntil = until;
      if (hours.length > keepHourDays * 24 * 1.5) {
        const keepFrom = until - keepHourDays * DAY;
        const firstKept = hours.findIndex((bar) => bar.time >= keepFrom);
        hours.splice(0, firstKept < 0 ? hours.length : firstKept);
      }
    }
  }

  /** The last closed one-minute bar: from the minute window when it is kept, else from its session alone. */
  function lastBar(entry: Tracked): CandleRow | undefined {
    if (entry.minutesUntil !== null) {
      advance(entry, true, false);
      if (entry.minutes.length > 0) return entry.minutes[entry.minutes.length - 1];
    }
    const until = Math.floor(now() / MINUTE) * MINUTE;
    const lastOpen = entry.series.lastMinuteBefore(until);
    if (lastOpen === null) return undefined;
    let bar: CandleRow | undefined;
    entry.series.barsBetween(lastOpen, lastOpen + MINUTE, (time, open, high, low, close, volume) => {
      bar = { time, open, high, low, close, volume };
    });
    return bar;
  }

  return {
    source: 'demo',
    minuteBars(productId) {
      const entry = track(productId);
      if (!entry) return [];
      advance(entry, true, false);
      return entry.minutes;
    },
    async quotes(productIds) {
      const results = new Map<string, QuoteResult>();
      for (const productId of productIds) {
        const entry = track(productId);
        if (!entry) {
          results.set(productId, { ok: false, error: `No demo data for ${productId}` });
          continue;
        }
        const last = lastBar(entry);
        if (!last) {
          results.set(productId, { ok: false, error: 'Demo history is empty' });
          continue;
        }
        const spot = last.close;
        const { profile } = entry.series;
        let buy: number;
        let sell: number;
        if (profile.tickSize > 0) {
          // The last trade sits at the bid or inside the spread; both sides are on the tick grid.
          const below = Math.floor(profile.spreadTicks / 2);
          sell = entry.series.roundPrice(spot - below * profile.tickSize);
          buy = entry.series.roundPrice(sell + profile.spreadTicks * profile.tickSize);
        } else {
          buy = spot * (1 + profile.halfSpread);
          sell = spot * (1 - profile.halfSpread);
        }
        results.set(productId, { ok: true, quote: { productId, spot, buy, sell, at: new Date(last.time + MINUTE) } });
      }
      return results;
    },
    async candles(productId, granularity, start, end) {
      const entry = track(productId);
      if (!entry) return [];
      advance(entry, granularity === 60, granularity === 3600);
      const source = granularity === 60 ? entry.minutes : entry.hours;
      const closedBefore = Math.floor(now() / (granularity * 1000)) * granularity * 1000;
      return source
        .filter((bar) => bar.time >= start.getTime() && bar.time < end.getTime() && bar.time < closedBefore)
        .map((bar) => ({ ...bar }));
    },
  };
}
