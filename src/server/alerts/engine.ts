// The alert engine: keeps the candle store filled (backfilling 30 days of hourly and 2 days
// of one-minute bars, then appending each bar as it closes) and runs the four generators on
// every new one-minute bar of every asset, storing each alert once and fanning it out live.
// Exactly one instance runs it (a Postgres advisory lock); the others stand by and take over
// when the leader goes away. After an outage it resumes from the last stored bar: no gaps,
// and the alerts table's unique key means no repeats.
import type { FastifyBaseLogger } from 'fastify';
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import { tickerOf } from '../../shared/tickers.ts';
import { candleSeries } from '../../signals/candles.ts';
import { runAlertGenerators } from '../../signals/alertGenerators.ts';
import type { DatabaseHandle, Leadership } from '../db/client.ts';
import {
  boundedConcurrency,
  lastCandleTime,
  latestCandles,
  storeCandles,
  type CandleRow,
  type Granularity,
  type MarketDataProvider,
  type MarketSource,
} from '../market/service.ts';
import type { AlertBus } from './bus.ts';
import { saveAlerts, toLiveAlert } from './service.ts';

/** Advisory-lock key shared by every instance ("WATOS" in ASCII). */
export const ENGINE_LOCK_KEY = 0x5741544f;
const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * How often a standby tries to take the lock: a leader that stops or dies is replaced within
 * about this long (the leader itself keeps its once-a-minute schedule).
 */
export const STANDBY_RETRY_MS = 3_000;

export interface AlertEngineOptions {
  database: DatabaseHandle;
  provider: MarketDataProvider;
  source: MarketSource;
  bus: AlertBus;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  products?: readonly string[];
  now?: () => number;
  backfillHourDays?: number;
  backfillMinuteDays?: number;
  /** Bars of history the generators see before the new ones (their warm-up). */
  warmupBars?: number;
  standbyRetryMs?: number;
}

export function createAlertEngine(options: AlertEngineOptions) {
  const { database, provider, bus, log } = options;
  const db = database.db;
  const products = options.products ?? CRYPTO_SYMBOLS;
  const now = options.now ?? Date.now;
  const warmupBars = options.warmupBars ?? 400;
  const limit = boundedConcurrency(4);
  const standbyRetryMs = options.standbyRetryMs ?? STANDBY_RETRY_MS;
  let timer: NodeJS.Timeout | null = null;
  let leadership: Leadership | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  /** Stores the bars closed since the last stored one; returns the new bars. */
  async function sync(productId: string, granularity: Granularity, backfillDays: number): Promise<CandleRow[]> {
    const size = granularity * 1000;
    const last = await lastCandleTime(db, productId, granularity);
    const earliest = Math.floor((now() - backfillDays * DAY) / size) * size;
    const from = last !== null ? Math.max(last + size, earliest) : earliest;
    const end = Math.floor(now() / size) * size;
    if (from >= end) return [];
    const rows = await provider.candles(productId, granularity, new Date(from), new Date(end));
    await storeCandles(db, productId, granularity, options.source, rows);
    return rows;
  }

  async function processProduct(productId: string): Promise<number> {
    await sync(productId, 3600, options.backfillHourDays ?? 30);
    const fresh = await sync(productId, 60, options.backfillMinuteDays ?? 2);
    if (fresh.length === 0) return 0;
    const history = await latestCandles(db, productId, 60, warmupBars + fresh.length);
    const series = candleSeries(history);
    const firstNew = series.length - fresh.length;
    const ticker = tickerOf(productId);
    const generated = runAlertGenerators(series, ticker, MINUTE, Math.max(firstNew, 0));
    const saved = await saveAlerts(
      db,
      generated.map((alert) => ({
        ticker,
        alertType: alert.alert_type,
        message: alert.message,
        timestamp: new Date(alert.time),
        source: options.source,
      })),
    );
    // Only bars that just closed are news; a backfill fills the log without a burst of pushes.
    const liveSince = now() - 5 * MINUTE;
    await bus.publish(saved.filter((row) => row.timestamp.getTime() >= liveSince).map(toLiveAlert));
    return saved.length;
  }

  /** One pass over every product. Safe to call directly (tests) or from the schedule. */
  async function tick(): Promise<number> {
    const counts = await Promise.all(
      products.map((productId) =>
        limit(async () => {
          try {
            return await processProduct(productId);
          } catch (error) {
            // An outage for one asset must not stop the others; the next tick resumes it.
            log.warn({ err: error, productId }, 'alert engine could not update this asset');
            return 0;
          }
        }),
      ),
    );
    return counts.reduce((sum, count) => sum + count, 0);
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
    log.info({ source: options.source }, 'alert engine: this instance leads');
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
    /** Stops the schedule and releases the lock, so a standby takes over within seconds. */
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

export type AlertEngine = ReturnType<typeof createAlertEngine>;
