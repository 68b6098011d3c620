// The alert engine: keeps the candle store filled (backfilling 30 days of hourly and 2 days
// of one-minute bars, 4 for markets with sessions, then appending each bar as it closes) and runs the four generators on
// every new one-minute bar of every symbol of its universe (every class: crypto, stocks, ETFs,
// indices, futures), storing each alert once and fanning it out live. Each slice's new bars
// also go to the users' alert rules (src/server/rules) before they are stored.
//
// Instances share the work by shards (live/shards.ts, issue 34): an instance runs the engine
// only for the symbols of the shards it holds, the same ones whose feeds, ticks and tick rules
// its live path carries; an instance holding no shard waits. A shard gained (at start, from a
// dead or departing instance) gets a pass at once, its symbols' stored bar times read fresh;
// a shard lost is forgotten at once. Global work after a pass (the track record) runs on the
// holder of shard 0 only. After an outage or a handover the engine resumes from the last
// stored bar: no gaps, and the alerts table's unique key means no repeats; a symbol briefly
// worked by two instances during a handover costs only duplicate, idempotent writes.
//
// Sessions: a provider gives bars only inside a symbol's trading sessions, so generators run
// only there, and a gap at the open stays a gap. The engine asks a provider for a symbol only
// when its calendar had a trading minute since the last stored bar: closed markets cost nothing.
//
// Scale (issue 15: 2,000 symbols and more): the newest stored bar times are read in one query
// when the engine takes a symbol on and then tracked in memory; each symbol keeps its generators'
// warm-up window (the last `warmupBars` one-minute bars) in memory instead of re-reading it
// every minute; new bars and alerts are written in batches of many symbols. A pass works
// through the universe in slices of `sliceSize` symbols, so a first backfill holds at most one
// slice's bars in memory.
import type { FastifyBaseLogger } from 'fastify';
import { SYMBOL_TABLE } from '../../shared/symbols.ts';
import { nextOpen } from '../../shared/sessions.ts';
import { symbolById, tickerOf } from '../../shared/tickers.ts';
import { candleSeries, joinSeries, type CandleSeries } from '../../signals/candles.ts';
import { runAlertGenerators } from '../../signals/alertGenerators.ts';
import pLimit from 'p-limit';
import type { DatabaseHandle } from '../db/client.ts';
import {
  lastCandleTimes,
  latestCandles,
  storeCandleBatch,
  type CandleBatch,
  type CandleRow,
  type Granularity,
  type MarketDataProvider,
  type MarketRouter,
  type MarketSource,
} from '../market/service.ts';
import type { AlertBus } from './bus.ts';
import { saveAlerts, toLiveAlert, type NewAlert, type SymbolUpdate } from './service.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * How often an instance holding no shard looks at its shards again. A belt only: it also reacts
 * to every change of its shards at once (ShardLeases.onChange).
 */
const STANDBY_RETRY_MS = 3_000;
/**
 * The shard whose holder does the global work after a pass (afterPass). Exactly one instance
 * holds a shard at a time, every shard is held while any instance is up, and the holder passes
 * every minute like the others: so that work runs once a minute, on one instance.
 */
const GLOBAL_WORK_SHARD = 0;

/**
 * What the engine reads of the instance's shard leases (live/shards.ts ShardLeases, described
 * here so that alerts need not depend on live, which depends on alerts).
 */
interface EngineShards {
  /** The shards this instance holds now. */
  held(): ReadonlySet<number>;
  /** Whether this instance carries the symbol now. */
  owns(symbol: string): boolean;
  /** Called after every change of the held set; answers the unsubscribe. */
  onChange(listener: (held: ReadonlySet<number>) => void): () => void;
}

/** The default universe: every symbol of the table (so every symbol any trader can watch). */
const DEFAULT_UNIVERSE: readonly string[] = SYMBOL_TABLE.map((symbol) => symbol.id);

export interface AlertEngineOptions {
  database: DatabaseHandle;
  /** Where bars come from; a MarketRouter also says which source answers for each symbol. */
  provider: MarketDataProvider | MarketRouter;
  /** The source stored with the bars when the provider is not a router. */
  source?: MarketSource;
  bus: AlertBus;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Canonical ids to follow (default DEFAULT_UNIVERSE), or a function read at every pass. */
  products?: readonly string[] | (() => readonly string[]);
  now?: () => number;
  backfillHourDays?: number;
  backfillMinuteDays?: number;
  /**
   * One-minute backfill of a market with sessions (stocks, futures), default the larger of 4
   * and backfillMinuteDays: a Monday morning or the day after a long weekend still gets the last
   * sessions' bars and alerts, where 2 days would reach only the closed weekend.
   */
  sessionMinuteBackfillDays?: number;
  /** Bars of history the generators see before the new ones (their warm-up). */
  warmupBars?: number;
  /**
   * The shards this instance holds: a pass covers only their symbols. main.ts hands the engine
   * and the live path the same object, so one instance carries a symbol's feeds, ticks, bars,
   * alerts and rules; createAllShards() (every shard) for the embedded database or one instance.
   * The engine only reads it: whoever created it closes it.
   */
  shards: EngineShards;
  standbyRetryMs?: number;
  /** Provider calls in flight at once. */
  concurrency?: number;
  /** Symbols handled together in one write of bars and one of alerts. */
  sliceSize?: number;
  /**
   * The users' alert rules (issue 16): synced before each pass, and handed each slice's new bars
   * and alerts before the bars are stored, so a pass re-run after a crash or failover
   * re-evaluates the same bars (its firings are idempotent) rather than skipping them.
   */
  rules?: { sync(): Promise<void>; onPass(updates: readonly SymbolUpdate[]): Promise<unknown> };
  /**
   * Global work after each pass, once the new bars are stored (the track record resolving due
   * forecasts against them), run only by the holder of GLOBAL_WORK_SHARD. It must tolerate bars
   * of other instances' symbols not stored yet (the track record waits for them). Its failure is
   * logged and does not fail the pass.
   */
  afterPass?: () => Promise<unknown>;
}

/** What the engine keeps per symbol between passes. */
interface Tracked {
  /** Open time of the newest stored bar of each size, or null when none is stored. */
  last: Record<Granularity, number | null>;
  /**
   * The newest stored one-minute bars, oldest first (the generators' warm-up), as one compact
   * series (48 bytes a bar: 19 KB for 400 bars); null until read.
   */
  window: CandleSeries | null;
}

/** One symbol's work in a pass, before anything is written. */
interface Fetched {
  productId: string;
  source: MarketSource;
  hours: CandleRow[];
  minutes: CandleRow[];
  /** The warm-up history before `minutes`. */
  history: CandleSeries | null;
}

/** Symbols whose generators run between two turns of the event loop during a pass. */
const GENERATOR_YIELD_EVERY = 2;

/** Lets pending I/O (requests) run before the pass goes on: a backfill never holds the server. */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sortedShards(shards: Iterable<number>): number[] {
  return [...shards].sort((a, b) => a - b);
}

export function createAlertEngine(options: AlertEngineOptions) {
  const { database, provider, bus, log, shards } = options;
  const db = database.db;
  const now = options.now ?? Date.now;
  const warmupBars = options.warmupBars ?? 400;
  const limit = pLimit(options.concurrency ?? 8);
  const sliceSize = options.sliceSize ?? 250;
  const standbyRetryMs = options.standbyRetryMs ?? STANDBY_RETRY_MS;
  const sourceOf = (productId: string): MarketSource =>
    'sourceOf' in provider ? provider.sourceOf(productId) : (options.source ?? provider.source);
  const universe = (): readonly string[] => {
    const products = options.products ?? DEFAULT_UNIVERSE;
    return typeof products === 'function' ? products() : products;
  };
  const owned = (productId: string) => shards.owns(productId);
  const tracked = new Map<string, Tracked>();
  /** Shards held at the start of the last pass and not lost since: no backfill due for them. */
  let covered: ReadonlySet<number> = new Set();
  /** Of those, the ones whose pass has ended: what the engine carries in full. */
  let passed: ReadonlySet<number> = new Set();
  /** The shard set last logged, so each change is said once. */
  let announced: readonly number[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;
  /** Between start() and stop(): the schedule runs and shard changes are acted on. */
  let started = false;

  /**
   * Forgets the symbols this instance no longer carries: another instance stores their bars from
   * now on, so if this one gains them back it must read their last bar times and warm-up anew.
   */
  function forgetUnowned(): void {
    for (const productId of tracked.keys()) if (!owned(productId)) tracked.delete(productId);
  }

  /** Reads the newest stored bar times of symbols not yet tracked, in one query. */
  async function track(productIds: readonly string[]): Promise<void> {
    const fresh = productIds.filter((productId) => !tracked.has(productId));
    if (fresh.length === 0) return;
    const lasts = await lastCandleTimes(db, fresh);
    for (const productId of fresh) {
      // Lost while the query ran: not ours to remember.
      if (!owned(productId)) continue;
      const last = lasts.get(productId);
      tracked.set(productId, { last: { 60: last?.[60] ?? null, 3600: last?.[3600] ?? null }, window: null });
    }
  }

  /** The window [from, end) of bars of one size that closed since the last stored one, or null. */
  function due(productId: string, state: Tracked, granularity: Granularity, backfillDays: number) {
    const calendar = symbolById(productId)?.calendar ?? 'crypto-24x7';
    const size = granularity * 1000;
    const earliest = Math.floor((now() - backfillDays * DAY) / size) * size;
    const last = state.last[granularity];
    const from = last !== null ? Math.max(last + size, earliest) : earliest;
    const end = Math.floor(now() / size) * size;
    if (from >= end) return null;
    // A market closed the whole time has no bar to give: do not ask.
    if (nextOpen(calendar, from) >= end) return null;
    return { from, end };
  }

  /** Asks the provider for one symbol's closed bars since the last stored ones. */
  async function fetchProduct(productId: string, state: Tracked): Promise<Fetched | null> {
    // A turn for the event loop first: the demo feed computes bars synchronously, and awaits
    // that resolve at once do not let requests in between symbols.
    await yieldToLoop();
    // A stop asked for mid-pass, or the symbol's shard lost: symbols not yet fetched wait for
    // the next run (or the shard's next holder), which resumes from their last stored bar.
    if (stopped || !owned(productId)) return null;
    const hourWindow = due(productId, state, 3600, options.backfillHourDays ?? 30);
    const minuteDays = options.backfillMinuteDays ?? 2;
    const sessions = (symbolById(productId)?.calendar ?? 'crypto-24x7') !== 'crypto-24x7';
    const minuteWindow = due(
      productId,
      state,
      60,
      sessions ? (options.sessionMinuteBackfillDays ?? Math.max(4, minuteDays)) : minuteDays,
    );
    if (!hourWindow && !minuteWindow) return null;
    const [hours, minutes] = await Promise.all([
      hourWindow ? provider.candles(productId, 3600, new Date(hourWindow.from), new Date(hourWindow.end)) : [],
      minuteWindow ? provider.candles(productId, 60, new Date(minuteWindow.from), new Date(minuteWindow.end)) : [],
    ]);
    const source = sourceOf(productId);
    // The warm-up is what was stored before these bars: read once, then kept in memory.
    if (state.window === null && minutes.length > 0)
      state.window = joinSeries([candleSeries(await latestCandles(db, productId, 60, warmupBars))]);
    return { productId, source, hours, minutes, history: state.window };
  }

  /** Runs the generators over one symbol's new bars (after its warm-up). */
  function alertsOf(fetched: Fetched): NewAlert[] {
    if (fetched.minutes.length === 0) return [];
    const history = fetched.history ?? joinSeries([]);
    const series = joinSeries([history, candleSeries(fetched.minutes)]);
    const ticker = tickerOf(fetched.productId);
    return runAlertGenerators(series, ticker, MINUTE, history.length).map((alert) => ({
      ticker,
      alertType: alert.alert_type,
      message: alert.message,
      timestamp: new Date(alert.time),
      source: fetched.source,
    }));
  }

  /** One slice of the universe: fetch, write the bars, run the generators, write the alerts. */
  async function passSlice(slice: readonly string[]): Promise<number> {
    const productIds = slice.filter(owned);
    if (productIds.length === 0) return 0;
    await track(productIds);
    // Each symbol's state object for this slice: if the shard goes meanwhile, the entry leaves
    // `tracked` and whatever this slice still does to the object is dropped with it.
    const states = new Map<string, Tracked>();
    for (const productId of productIds) {
      const state = tracked.get(productId);
      if (state) states.set(productId, state);
    }
    const fetched = await Promise.all(
      [...states].map(([productId, state]) =>
        limit(async () => {
          try {
            return await fetchProduct(productId, state);
          } catch (error) {
            // An outage for one symbol must not stop the others; the next pass resumes it.
            log.warn({ err: error, productId }, 'alert engine could not update this symbol');
            return null;
          }
        }),
      ),
    );
    // A shard lost while fetching belongs to another instance now: leave its symbols to it
    // (writing them would only repeat its idempotent work).
    const done = fetched.filter((entry): entry is Fetched => entry !== null && owned(entry.productId));
    const batches: CandleBatch[] = done.flatMap(({ productId, source, hours, minutes }) => [
      { productId, granularity: 3600 as const, source, rows: hours },
      { productId, granularity: 60 as const, source, rows: minutes },
    ]);
    const perSymbol: NewAlert[][] = [];
    for (const entry of done) {
      perSymbol.push(alertsOf(entry));
      if (perSymbol.length % GENERATOR_YIELD_EVERY === 0) await yieldToLoop();
      // Stopped before anything of this slice was written: the next run redoes it whole.
      if (stopped) return 0;
    }
    if (stopped) return 0;
    const saved = await saveAlerts(db, perSymbol.flat());
    // Rules see the new bars and every alert they produced (not only the newly saved ones: a
    // re-run must re-evaluate the same input). Then the bars are stored: the progress marker.
    await options.rules?.onPass(
      done.map((fetched, index) => ({
        productId: fetched.productId,
        source: fetched.source,
        minutes: fetched.minutes,
        hours: fetched.hours,
        alerts: perSymbol[index]!.map((alert) => ({
          alertType: alert.alertType,
          time: alert.timestamp.getTime(),
          message: alert.message,
        })),
      })),
    );
    // A stop may cut the write short between statements (see storeCandleBatch): the state then
    // stays where the stored bars say, and the next run resumes from there.
    const stored = await storeCandleBatch(db, batches, () => stopped);
    // Only now that the bars are stored does the in-memory state move on.
    for (const { productId, hours, minutes, history } of stored ? done : []) {
      const state = states.get(productId)!;
      if (hours.length > 0) state.last[3600] = hours.at(-1)!.time;
      if (minutes.length > 0) {
        state.last[60] = minutes.at(-1)!.time;
        state.window = joinSeries([history ?? joinSeries([]), candleSeries(minutes)], warmupBars);
      }
    }
    // Only bars that just closed are news; a backfill fills the log without a burst of pushes.
    const liveSince = now() - 5 * MINUTE;
    await bus.publish(saved.filter((row) => row.timestamp.getTime() >= liveSince).map(toLiveAlert));
    return saved.length;
  }

  /**
   * One pass over the symbols of the shards held now (the whole universe with every shard). Safe
   * to call directly (tests) or from the schedule.
   */
  async function tick(): Promise<number> {
    forgetUnowned();
    const products = universe().filter(owned);
    await options.rules?.sync();
    let created = 0;
    for (let start = 0; start < products.length && !stopped; start += sliceSize) {
      created += await passSlice(products.slice(start, start + sliceSize));
    }
    // Checked after the pass: the shard's holder now, whose own bars are stored; bars of other
    // instances' symbols may still come, and the track record waits for them.
    if (options.afterPass && !stopped && shards.held().has(GLOBAL_WORK_SHARD)) {
      try {
        await options.afterPass();
      } catch (error) {
        log.error({ err: error }, 'alert engine: after-pass work failed');
      }
    }
    return created;
  }

  /** Says which shards the engine carries whenever that changes (benchmarks and operators read it). */
  function announce(held: ReadonlySet<number>): void {
    const list = sortedShards(held);
    if (list.length === announced.length && list.every((shard, index) => shard === announced[index])) return;
    announced = list;
    if (list.length === 0) log.info({ shards: list }, 'alert engine: this instance carries no shards');
    else log.info({ shards: list, count: list.length }, 'alert engine: this instance carries shards');
  }

  const gained = (held: ReadonlySet<number>) => [...held].filter((shard) => !covered.has(shard));

  /** Until the next run: soon for shards not yet backfilled, two seconds past the next minute otherwise. */
  function nextDelay(): number {
    const held = shards.held();
    if (held.size === 0) return standbyRetryMs;
    if (gained(held).length > 0) return 0;
    // Two seconds after the minute closes, so the provider has the bar.
    return MINUTE - (now() % MINUTE) + 2000;
  }

  /** A scheduled run: nothing without shards; a pass otherwise, saying when it backfilled new shards. */
  async function run(): Promise<void> {
    const held = new Set(shards.held());
    if (held.size === 0) {
      covered = held;
      passed = held;
      return;
    }
    const fresh = gained(held);
    covered = held;
    const created = await tick();
    passed = new Set([...held].filter((shard) => covered.has(shard)));
    if (fresh.length > 0) log.info({ created, shards: sortedShards(fresh) }, 'alert engine: backfill done');
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      running = run()
        // A database outage must not end the process: log it and try again.
        .catch((error: unknown) => log.error({ err: error }, 'alert engine pass failed'))
        .finally(() => {
          running = null;
          schedule(nextDelay());
        });
    }, delayMs);
    timer.unref?.();
  }

  function onShardsChange(held: ReadonlySet<number>): void {
    forgetUnowned();
    // A shard lost, even if regained before the next pass, counts as new again: its symbols'
    // bars were another instance's to store meanwhile.
    covered = new Set([...covered].filter((shard) => held.has(shard)));
    passed = new Set([...passed].filter((shard) => held.has(shard)));
    if (!started) return;
    announce(held);
    // Shards gained start their backfill now; during a pass, its end looks (nextDelay).
    if (!running && gained(held).length > 0) schedule(0);
  }
  // For the engine's whole life, so even passes run by hand (tests) forget what was lost.
  shards.onChange(onShardsChange);

  return {
    tick,
    /** The shards held whose symbols a pass has gone over since they were gained (tests, operators). */
    carried(): ReadonlySet<number> {
      return passed;
    },
    start() {
      stopped = false;
      started = true;
      announce(shards.held());
      schedule(0);
    },
    /**
     * Stops the schedule. A pass under way ends after the symbols already fetched are stored, not
     * after every symbol (a first backfill takes minutes; a shutdown must not wait for it). The
     * shards stay held until their creator closes them, after this: no other instance takes a
     * symbol while this one may still be writing it.
     */
    async stop() {
      stopped = true;
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => undefined);
      covered = new Set();
      passed = new Set();
      // Stopped, it carries nothing, whatever its shards still hold until their creator closes them.
      announce(new Set());
    },
  };
}
