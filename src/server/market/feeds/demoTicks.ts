// The demo feed's ticks (issue 34, item 1): several a second per carried symbol while its market
// is open, deterministic, and such that each minute's ticks aggregate EXACTLY to the demo minute
// bar of demoSeries.ts (open = first tick, close = last, high and low = the extremes, sizes sum to
// the bar's volume). Charts built from ticks, price rules fired on ticks and the track record
// scored on minute bars therefore all see one market. This module owns the path inside a minute
// and the live feed that plays it out; the bars themselves stay demoSeries.ts's.
//
// The path of a minute is a pure function of (symbol, minute, tickMs): a hash of symbol and
// minute seeds a small PRNG that picks whether the high or the low comes first, where each
// extreme falls, and Brownian-bridge prices between the four anchors (open, first extreme,
// second extreme, close), reflected into [low, high] and rounded to the profile's tick size.
import { SYMBOL_TABLE, type MarketSymbol } from '../../../shared/symbolTable.ts';
import { symbolById } from '../../../shared/tickers.ts';
import type { FeedStats, FeedTick, TickFeed } from './types.ts';
import { demoProfile } from '../demoProfiles.ts';
import { DemoSeries, prng, seedOf } from '../demoSeries.ts';
import { intervalScheduler, listenerSet, SILENT_FEED_LOG, type FeedLog, type Scheduler } from './listeners.ts';
import type { CandleRow } from '../types.ts';

const MINUTE = 60_000;
const DEMO_TICK_MS = 250;

/** Demo series by row: the anchor walk is cached inside each, so keep one per row. */
const seriesByRow = new WeakMap<MarketSymbol, DemoSeries>();

function seriesOf(row: MarketSymbol): DemoSeries {
  let series = seriesByRow.get(row);
  if (!series) {
    series = new DemoSeries(demoProfile(row));
    seriesByRow.set(row, series);
  }
  return series;
}

function rowOf(symbol: string | MarketSymbol): MarketSymbol {
  if (typeof symbol !== 'string') return symbol;
  const row = symbolById(symbol);
  if (!row) throw new Error(`No demo data for ${symbol}`);
  return row;
}

function ticksPerMinute(tickMs: number): number {
  const count = MINUTE / tickMs;
  // Whole slots keep every tick inside its minute; four are needed for open, two extremes, close.
  if (!Number.isInteger(count) || count < 4) throw new Error(`tickMs must divide a minute into at least 4 ticks`);
  return count;
}

/** Sizes of `count` ticks that sum to `volume` exactly when added in order from 0 (see below). */
function tickSizes(volume: number, count: number, random: () => number): Float64Array {
  const weights = new Float64Array(count);
  let total = 0;
  for (let index = 0; index < count - 1; index += 1) {
    const draw = random();
    weights[index] = 0.05 + draw * draw;
    total += weights[index]!;
  }
  // The last tick takes the remainder: at most a third of the minute's volume (why: below).
  weights[count - 1] = Math.min(0.05 + random(), total / 2);
  total += weights[count - 1]!;
  const sizes = new Float64Array(count);
  if (Number.isInteger(volume)) {
    // Shares and contracts: whole sizes from rounded cumulative shares; integer sums are exact.
    let cumulative = 0;
    let previous = 0;
    for (let index = 0; index < count - 1; index += 1) {
      cumulative += weights[index]!;
      const through = Math.round((volume * cumulative) / total);
      sizes[index] = through - previous;
      previous = through;
    }
    sizes[count - 1] = volume - previous;
    return sizes;
  }
  // Coins: fractional sizes. The running sum of all but the last is at least half the volume, so
  // volume - partial is exact (Sterbenz) and partial + last gives back `volume` bit for bit.
  let partial = 0;
  for (let index = 0; index < count - 1; index += 1) {
    sizes[index] = (volume * weights[index]!) / total;
    partial += sizes[index]!;
  }
  sizes[count - 1] = volume - partial;
  return sizes;
}

/**
 * A bridge price brought inside [low, high]: reflected off the extreme it overshot, so the path
 * turns back there as a market does. Clamping it kept the price pinned to the bar's high or low
 * for up to a minute of ticks (crypto, on no tick grid, repeated the extreme exactly), and a
 * screen watching it saw no tick move for that long.
 */
function insideBar(price: number, low: number, high: number): number {
  const reflected = price > high ? 2 * high - price : price < low ? 2 * low - price : price;
  // An overshoot wider than the whole range would reflect past the other side: clamp that.
  return Math.min(high, Math.max(low, reflected));
}

/** The ticks of one bar (see the header), appended to `out`. */
function ticksOfBar(row: MarketSymbol, series: DemoSeries, bar: CandleRow, tickMs: number, out: FeedTick[]): void {
  const count = ticksPerMinute(tickMs);
  const random = prng(seedOf(`${row.id}@${bar.time}`));
  const prices = new Float64Array(count);
  // Up bars mostly dip first (open, low, high, close), down bars mostly the reverse.
  const lowFirst = random() < (bar.close >= bar.open ? 0.7 : 0.3);
  const first = 1 + Math.floor(random() * (count - 3));
  const second = first + 1 + Math.floor(random() * (count - 2 - first));
  const anchors: Array<[number, number]> = [
    [0, bar.open],
    [first, lowFirst ? bar.low : bar.high],
    [second, lowFirst ? bar.high : bar.low],
    [count - 1, bar.close],
  ];
  const range = bar.high - bar.low;
  for (let segment = 0; segment < 3; segment += 1) {
    const [from, fromPrice] = anchors[segment]!;
    const [to, toPrice] = anchors[segment + 1]!;
    const steps = to - from;
    // A random walk from 0, bent into a bridge that ends at 0, on the straight line between anchors.
    const walk = new Float64Array(steps + 1);
    for (let step = 1; step <= steps; step += 1) walk[step] = walk[step - 1]! + (random() + random() - 1);
    // Deviations from the line reach about a sixth of the bar's range mid-segment.
    const sigma = (range * 0.8) / Math.sqrt(steps);
    for (let step = 0; step <= steps; step += 1) {
      const share = step / steps;
      const price = fromPrice + (toPrice - fromPrice) * share + sigma * (walk[step]! - share * walk[steps]!);
      prices[from + step] = price;
    }
  }
  // The anchors exactly (the bridge's arithmetic can be an ulp off at a segment's end).
  for (const [index, price] of anchors) prices[index] = price;
  const sizes = tickSizes(bar.volume, count, random);
  for (let index = 0; index < count; index += 1) {
    // Anchors keep the bar's own values; the rest stay inside the bar and on the tick grid
    // (rounding is monotonic and low and high are on the grid, so clamping after is enough).
    const raw = prices[index]!;
    const isAnchor = index === 0 || index === first || index === second || index === count - 1;
    const price = isAnchor ? raw : series.roundPrice(insideBar(raw, bar.low, bar.high));
    out.push({
      symbol: row.id,
      price,
      time: bar.time + index * tickMs,
      size: sizes[index]!,
      source: 'demo',
      delayMinutes: 0,
    });
  }
}

/**
 * The demo ticks of the minute opening at `minuteStart` (epoch ms, a whole minute), oldest
 * first; none while the symbol's market is closed. Pure: the same on every call and instance.
 */
export function demoTicksOfMinute(
  symbol: string | MarketSymbol,
  minuteStart: number,
  tickMs: number = DEMO_TICK_MS,
): FeedTick[] {
  const out: FeedTick[] = [];
  demoTicksBetween(symbol, minuteStart, minuteStart + MINUTE, (tick) => out.push(tick), tickMs);
  return out;
}

/**
 * Every demo tick with time in [from, until), oldest first, to `emit`: a replay for tests and
 * benchmarks, building each session's bars once rather than once a minute.
 */
export function demoTicksBetween(
  symbol: string | MarketSymbol,
  from: number,
  until: number,
  emit: (tick: FeedTick) => void,
  tickMs: number = DEMO_TICK_MS,
): void {
  const row = rowOf(symbol);
  const series = seriesOf(row);
  const buffer: FeedTick[] = [];
  series.barsBetween(Math.floor(from / MINUTE) * MINUTE, until, (time, open, high, low, close, volume) => {
    buffer.length = 0;
    ticksOfBar(row, series, { time, open, high, low, close, volume }, tickMs, buffer);
    for (const tick of buffer) if (tick.time >= from && tick.time < until) emit(tick);
  });
}

export interface DemoTickFeedOptions {
  now?: () => number;
  /** Spacing of a symbol's ticks, ms; must divide a minute (default 250: four a second). */
  tickMs?: number;
  /** The timer that plays the ticks out (default setInterval every tickMs). */
  schedule?: Scheduler;
  /** The universe served (default the symbol table); benchmarks pass synthetic rows. */
  symbols?: readonly MarketSymbol[];
  /** Longest stretch replayed when the timer was held up; a longer one is reported as a gap. */
  maxCatchUpMs?: number;
  log?: FeedLog;
}

interface Carried {
  row: MarketSymbol;
  series: DemoSeries;
  /** Ticks with a time up to this one have been emitted. */
  through: number;
  /** The cached ticks of one minute, and the index of the first not yet emitted. */
  minute: number | null;
  ticks: FeedTick[];
  next: number;
}

/** The live demo feed: plays each carried symbol's ticks out as the clock passes them. */
export function createDemoTickFeed(options: DemoTickFeedOptions = {}): TickFeed {
  const now = options.now ?? Date.now;
  const tickMs = options.tickMs ?? DEMO_TICK_MS;
  ticksPerMinute(tickMs);
  const maxCatchUpMs = options.maxCatchUpMs ?? MINUTE;
  const log = options.log ?? SILENT_FEED_LOG;
  const universe = new Map((options.symbols ?? SYMBOL_TABLE).map((row) => [row.id, row]));
  const ticks = listenerSet<FeedTick>(log, 'demo tick');
  const gapListeners = listenerSet<readonly string[]>(log, 'demo gap');
  const carried = new Map<string, Carried>();
  const stats: FeedStats = { connected: true, reconnects: 0, gaps: 0, rejected: 0, lastTickAt: null };
  let closed = false;

  function ticksOf(entry: Carried, minute: number): FeedTick[] {
    if (entry.minute !== minute) {
      entry.ticks = [];
      entry.series.barsBetween(minute, minute + MINUTE, (time, open, high, low, close, volume) => {
        ticksOfBar(entry.row, entry.series, { time, open, high, low, close, volume }, tickMs, entry.ticks);
      });
      entry.minute = minute;
      entry.next = 0;
    }
    return entry.ticks;
  }

  function pump(): void {
    if (closed) return;
    const at = now();
    const skipped: string[] = [];
    for (const [id, entry] of carried) {
      if (at - entry.through > maxCatchUpMs) {
        // The process slept or stalled: ticks that old are history, for the REST refill.
        entry.through = at - maxCatchUpMs;
        skipped.push(id);
      }
      for (let minute = Math.floor(entry.through / MINUTE) * MINUTE; minute <= at; minute += MINUTE) {
        const list = ticksOf(entry, minute);
        while (entry.next < list.length && list[entry.next]!.time <= at) {
          const tick = list[entry.next]!;
          entry.next += 1;
          if (tick.time <= entry.through) continue;
          stats.lastTickAt = at;
          ticks.emit(tick);
        }
      }
      entry.through = at;
    }
    if (skipped.length > 0) {
      stats.gaps += 1;
      gapListeners.emit(skipped);
    }
  }

  const cancel = (options.schedule ?? intervalScheduler)(pump, tickMs);

  return {
    name: 'demo',
    setSymbols(symbols) {
      const wanted = new Set(symbols);
      for (const id of carried.keys()) if (!wanted.has(id)) carried.delete(id);
      for (const id of wanted) {
        if (carried.has(id)) continue;
        const row = universe.get(id);
        if (!row) {
          log.warn({ symbol: id }, 'the demo feed has no such symbol');
          continue;
        }
        // From now on: a newly carried symbol starts with the next tick, nothing replayed.
        carried.set(id, { row, series: seriesOf(row), through: now(), minute: null, ticks: [], next: 0 });
      }
    },
    onTick: ticks.add,
    onGap: gapListeners.add,
    stats: () => ({ ...stats, connected: !closed }),
    async close() {
      closed = true;
      cancel();
      carried.clear();
      ticks.clear();
      gapListeners.clear();
    },
  };
}
