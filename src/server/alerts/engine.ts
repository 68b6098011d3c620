// The alert engine: keeps the candle store filled (backfilling 30 days of hourly and 2 days
// of one-minute bars, 4 for markets with sessions, then appending each bar as it closes) and runs the four generators on
// every new one-minute bar of every symbol of its universe (every class: crypto, stocks, ETFs,
// indices, futures), storing each alert once and fanning it out live. Exactly one instance
// runs it (a Postgres advisory lock); the others stand by and take over when the leader goes
// away. After an outage it resumes from the last stored bar: no gaps, and the alerts table's
// unique key means no repeats. Each slice's new bars also go to the users' alert rules
// (src/server/rules) before they are stored.
//
// Sessions: a provider gives bars only inside a symbol's trading sessions, so generators run
// only there, and a gap at the open stays a gap. The engine asks a provider for a symbol only
// when its calendar had a trading minute since the last stored bar: closed markets cost nothing.
//
// Scale (issue 15: 2,000 symbols and more): the newest stored bar times are read in one query
// when the engine starts leading and then tracked in memory; each symbol keeps its generators'
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
import type { DatabaseHandle, Leadership } from '../db/client.ts';
import {
  boundedConcurrency,
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

/** Advisory-lock key shared by every instance ("WATOS" in ASCII). */
export const ENGINE_LOCK_KEY = 0x5741544f;
const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * How often a standby tries to take the lock: a leader that stops or dies is replaced within
 * about this long (the leader itself keeps its once-a-minute schedule).
 */
const STANDBY_RETRY_MS = 3_000;

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
   * Work the leader does after each pass, once the new bars are stored (the track record
   * resolving due forecasts against them). Its failure is logged and does not fail the pass.
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

export function createAlertEngine(options: AlertEngineOptions) {
  const { database, provider, bus, log } = options;
  const db = database.db;
  const now = options.now ?? Date.now;
  const warmupBars = options.warmupBars ?? 400;
  const limit = boundedConcurrency(options.concurrency ?? 8);
  const sliceSize = options.sliceSize ?? 250;
  const standbyRetryMs = options.standbyRetryMs ?? STANDBY_RETRY_MS;
  const sourceOf = (productId: string): MarketSource =>
    'sourceOf' in provider ? provider.sourceOf(productId) : (options.source ?? provider.source);
  const universe = (): readonly string[] => {
    const products = options.products ?? DEFAULT_UNIVERSE;
    return typeof products === 'function' ? products() : products;
  };
  const tracked = new Map<string, Tracked>();
  let timer: NodeJS.Timeout | null = null;
  let leadership: Leadership | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  /** Reads the newest stored bar times of symbols not yet tracked, in one query. */
  async function track(productIds: readonly string[]): Promise<void> {
    const fresh = productIds.filter((productId) => !tracked.has(productId));
    if (fresh.length === 0) return;
    const lasts = await lastCandleTimes(db, fresh);
    for (const productId of fresh) {
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
  async function fetchProduct(productId: string): Promise<Fetched | null> {
    // A turn for the event loop first: the demo feed computes bars synchronously, and awaits
    // that resolve at once do not let requests in between symbols.
    await yieldToLoop();
    // A stop asked for mid-pass: symbols not yet fetched wait for the next run (or the next
    // leader), which resumes from their last stored bar.
    if (stopped) return null;
    const state = tracked.get(productId)!;
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
  async function passSlice(productIds: readonly string[]): Promise<number> {
    await track(productIds);
    const fetched = await Promise.all(
      productIds.map((productId) =>
        limit(async () => {
          try {
            return await fetchProduct(productId);
          } catch (error) {
            // An outage for one symbol must not stop the others; the next pass resumes it.
            log.warn({ err: error, productId }, 'alert engine could not update this symbol');
            return null;
          }
        }),
      ),
    );
    const done = fetched.filter((entry): entry is Fetched => entry !== null);
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
      const state = tracked.get(productId)!;
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

  /** One pass over every symbol of the universe. Safe to call directly (tests) or from the schedule. */
  async function tick(): Promise<number> {
    const products = universe();
    await options.rules?.sync();
    let created = 0;
    for (let start = 0; start < products.length && !stopped; start += sliceSize) {
      created += await passSlice(products.slice(start, start + sliceSize));
    }
    if (options.afterPass && !stopped) {
      try {
        await options.afterPass();
      } catch (error) {
        log.error({ err: error }, 'alert engine: after-pass work failed');
      }
    }
    return created;
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = (leadership ? leadTick(leadership) : tryLead())
        // A database outage must not end the process: log it and try again.
        .catch((error: unknown) => log.error({ err: error }, 'alert engine pass failed'))
        .finally(() => {
          running = null;
          // The leader runs two seconds after each minute closes, so the provider has the bar;
          // a standby tries for the lock again within seconds.
          schedule(leadership ? MINUTE - (now() % MINUTE) + 2000 : standbyRetryMs);
        });
    }, delayMs);
    timer.unref?.();
  }

  /** Called when the lock is gone: stop leading at once and compete for it again soon. */
  function stepDown(lost: Leadership) {
    if (leadership !== lost) return;
    leadership = null;
    log.warn({}, 'alert engine: lost the leadership lock');
    if (!running && timer && !stopped) {
      clearTimeout(timer);
      schedule(standbyRetryMs);
    }
  }

  async function leadTick(current: Leadership): Promise<void> {
    // A lock connection that died without a word must not leave two instances ticking.
    if (!(await current.held())) {
      stepDown(current);
      return;
    }
    await tick();
  }

  async function tryLead(): Promise<void> {
    let taken: Leadership | null = null;
    taken = await database.tryLeadership(ENGINE_LOCK_KEY, () => {
      if (taken) stepDown(taken);
    });
    if (!taken) return;
    if (stopped) {
      await taken();
      return;
    }
    leadership = taken;
    // Another instance may have stored bars while this one stood by.
    tracked.clear();
    log.info({ symbols: universe().length }, 'alert engine: this instance leads');
    const created = await tick();
    log.info({ created }, 'alert engine: backfill done');
  }

  return {
    tick,
    /** Whether this instance currently holds the lock and runs the engine. */
    isLeading(): boolean {
      return leadership !== null;
    },
    start() {
      stopped = false;
      schedule(0);
    },
    /**
     * Stops the schedule and releases the lock, so a standby takes over within seconds. A pass
     * under way ends after the symbols already fetched are stored, not after the whole universe
     * (a first backfill takes minutes; a shutdown must not wait for it).
     */
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      const held = leadership;
      leadership = null;
      await held?.();
    },
  };
}
