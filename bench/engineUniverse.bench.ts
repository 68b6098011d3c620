// The alert engine over a universe of 2,000 symbols (issue 15, item 6): one pass over every
// symbol's newly closed one-minute bar, generators and store included, on the embedded
// database (PGlite). Figures: the pass's p50/p95 over a run of minutes, the cost per symbol,
// the first backfill, the memory the engine keeps per tracked symbol, and (for information) the
// time the alert generators alone take over the same symbols: the signals' share of a pass.
//
// Peer, measured in the same run over the same bars: the per-symbol round trips the engine did
// before (read the last stored bar time, store that symbol's bars, re-read its warm-up window,
// run the generators, save its alerts: five statements per symbol a minute). Target: a pass
// over 2,000 symbols p95 under 5 s (a twelfth of the minute it has), and at most 24 KB of
// memory per tracked symbol (its 400-bar warm-up window is 19.2 KB of float64 numbers).
//
// The bars come from a seeded random walk made here, identical for both engines, so the
// figures measure the engine and the store, not a market-data provider.
import { count, eq } from 'drizzle-orm';
import { createAlertBus } from '../src/server/alerts/bus.ts';
import { createAlertEngine } from '../src/server/alerts/engine.ts';
import { saveAlerts } from '../src/server/alerts/service.ts';
import { openDatabase, type DatabaseHandle } from '../src/server/db/client.ts';
import { candles } from '../src/server/db/schema.ts';
import {
  lastCandleTime,
  latestCandles,
  storeCandles,
  type CandleRow,
  type MarketDataProvider,
} from '../src/server/market/service.ts';
import { SYMBOL_TABLE } from '../src/shared/symbols.ts';
import { tickerOf } from '../src/shared/tickers.ts';
import { candleSeries } from '../src/signals/candles.ts';
import { runAlertGenerators } from '../src/signals/alertGenerators.ts';
import { percentile, report } from './report.ts';
import { createAllShards } from '../src/server/live/shards.ts';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 2_000);
const MINUTES = 15;
const WARMUP = 400;
const MINUTE = 60_000;
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

// Crypto rows trade every minute, so every symbol has a new bar in every pass (the worst
// case); the rest of the universe is made-up ids of the same kind.
const cryptoIds = SYMBOL_TABLE.filter((symbol) => symbol.assetClass === 'crypto').map((symbol) => symbol.id);
const universe = [...cryptoIds, ...Array.from({ length: SYMBOLS - cryptoIds.length }, (_, index) => `SYN${index}-USD`)];

/** A seeded walk per symbol: the same bars for the same (symbol, minute), whoever asks. */
function barAt(symbolIndex: number, time: number): CandleRow {
  const minute = time / MINUTE;
  let x = (Math.imul(symbolIndex + 1, 0x9e3779b1) ^ Math.imul(minute, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) >>> 0;
  const noise = (x / 4294967296 - 0.5) * 0.004;
  const level = 100 * (1 + 0.2 * Math.sin(minute / 240 + symbolIndex) + 0.05 * Math.sin(minute / 17 + symbolIndex * 3));
  const open = level * (1 - noise / 2);
  const close = level * (1 + noise / 2);
  const burst = x % 97 === 0 ? 8 : 1;
  return {
    time,
    open,
    close,
    high: Math.max(open, close) * 1.0008,
    low: Math.min(open, close) * 0.9992,
    volume: 1000 * burst * (1 + (x % 13) / 13),
  };
}

const indexOf = new Map(universe.map((id, index) => [id, index]));
const provider: MarketDataProvider = {
  source: 'demo',
  quotes: () => Promise.resolve(new Map()),
  candles: (productId, granularity, start, end) => {
    const size = granularity * 1000;
    const rows: CandleRow[] = [];
    for (let time = start.getTime(); time < end.getTime(); time += size)
      rows.push(barAt(indexOf.get(productId)!, time));
    return Promise.resolve(rows);
  },
};

async function freshDatabase(): Promise<DatabaseHandle> {
  const database = await openDatabase({});
  await database.migrate();
  return database;
}

/** JS heap plus array buffers (the warm-up windows are Float64Arrays, outside the JS heap). */
function memoryUsed(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

// --- ours: the engine ---------------------------------------------------------------------
let clock = Date.UTC(2026, 5, 1, 12, 0, 30);
const database = await freshDatabase();
const held: { engine: ReturnType<typeof createAlertEngine> | null } = {
  engine: createAlertEngine({
    database,
    shards: createAllShards(),
    provider,
    source: 'demo',
    bus: createAlertBus(),
    log: quietLog,
    products: universe,
    now: () => clock,
    backfillHourDays: 1,
    backfillMinuteDays: (WARMUP + 10) / 1440,
    warmupBars: WARMUP,
  }),
};
console.log(`Backfilling ${SYMBOLS.toLocaleString('en-US')} symbols (${WARMUP + 10} one-minute bars each)...`);
let started = performance.now();
await held.engine!.tick();
const backfillMs = performance.now() - started;
const ours: number[] = [];
let oursAlerts = 0;
for (let minute = 0; minute < MINUTES; minute += 1) {
  clock += MINUTE;
  started = performance.now();
  oursAlerts += await held.engine!.tick();
  ours.push(performance.now() - started);
}
// What the engine keeps: memory with the engine alive minus memory once it is dropped (the
// database, which keeps its own pages in WASM memory, stays open for both readings).
const withEngine = memoryUsed();
held.engine = null;
const perSymbolBytes = (withEngine - memoryUsed()) / SYMBOLS;
await database.close();

// --- the signals' share of a pass ---------------------------------------------------------
/**
 * The generators alone, as the engine runs them in a pass (each symbol's warm-up window plus
 * its new bar, scanned from the new bar), without the database or the provider: best of 5
 * passes over the universe, in ms. What the indicator kernels can add to or save from a pass.
 */
function generatorsPassMs(): number {
  const newBar = Math.floor(clock / MINUTE) * MINUTE - MINUTE;
  const inputs = universe.map((productId, symbolIndex) => ({
    ticker: tickerOf(productId),
    series: candleSeries(
      Array.from({ length: WARMUP + 1 }, (_, bar) => barAt(symbolIndex, newBar - (WARMUP - bar) * MINUTE)),
    ),
  }));
  let best = Infinity;
  let alerts = 0;
  for (let round = 0; round < 5; round += 1) {
    const begun = performance.now();
    for (const { ticker, series } of inputs) alerts += runAlertGenerators(series, ticker, MINUTE, WARMUP).length;
    best = Math.min(best, performance.now() - begun);
  }
  return alerts < 0 ? NaN : best;
}
const signalsMs = generatorsPassMs();

// --- peer: per-symbol round trips ------------------------------------------------------------
clock = Date.UTC(2026, 5, 1, 12, 0, 30);
const peerDatabase = await freshDatabase();
const db = peerDatabase.db;
async function peerPass(backfill: boolean): Promise<number> {
  let created = 0;
  for (const productId of universe) {
    const last = await lastCandleTime(db, productId, 60);
    const end = Math.floor(clock / MINUTE) * MINUTE;
    const from = last !== null ? last + MINUTE : end - (WARMUP + 10) * MINUTE;
    const fresh = await provider.candles(productId, 60, new Date(from), new Date(end));
    if (backfill) {
      const hours = await provider.candles(productId, 3600, new Date(end - 86_400_000), new Date(end));
      await storeCandles(db, productId, 3600, 'demo', hours);
    }
    await storeCandles(db, productId, 60, 'demo', fresh);
    const history = await latestCandles(db, productId, 60, WARMUP + fresh.length);
    const series = candleSeries(history);
    const ticker = tickerOf(productId);
    const generated = runAlertGenerators(series, ticker, MINUTE, series.length - fresh.length);
    const saved = await saveAlerts(
      db,
      generated.map((alert) => ({
        ticker,
        alertType: alert.alert_type,
        message: alert.message,
        timestamp: new Date(alert.time),
        source: 'demo',
      })),
    );
    created += saved.length;
  }
  return created;
}
started = performance.now();
await peerPass(true);
const peerBackfillMs = performance.now() - started;
const peer: number[] = [];
let peerAlerts = 0;
for (let minute = 0; minute < MINUTES; minute += 1) {
  clock += MINUTE;
  started = performance.now();
  peerAlerts += await peerPass(false);
  peer.push(performance.now() - started);
}
const [{ storedBars } = { storedBars: 0 }] = await db
  .select({ storedBars: count() })
  .from(candles)
  .where(eq(candles.granularity, 60));
await peerDatabase.close();

const p50 = percentile(ours, 0.5);
const p95 = percentile(ours, 0.95);
const peerP95 = percentile(peer, 0.95);
console.log(
  `\n${SYMBOLS.toLocaleString('en-US')} symbols, ${MINUTES} one-minute passes after a backfill (${storedBars} one-minute bars stored by the peer)`,
);
console.log('                                   backfill s   pass p50 ms   pass p95 ms   alerts');
console.log(
  `engine (batched, in-memory state)  ${(backfillMs / 1000).toFixed(1).padStart(10)}   ${p50.toFixed(0).padStart(11)}   ${p95.toFixed(0).padStart(11)}   ${oursAlerts}`,
);
console.log(
  `peer: per-symbol round trips       ${(peerBackfillMs / 1000).toFixed(1).padStart(10)}   ${percentile(peer, 0.5).toFixed(0).padStart(11)}   ${peerP95.toFixed(0).padStart(11)}   ${peerAlerts}`,
);
console.log(`cost per symbol and pass: ${((p95 * 1000) / SYMBOLS).toFixed(0)} µs at p95`);
console.log(`of which the alert generators alone (indicators included, best of 5): ${signalsMs.toFixed(1)} ms a pass`);
console.log(`memory per tracked symbol: ${(perSymbolBytes / 1024).toFixed(1)} KB`);
if (oursAlerts !== peerAlerts)
  console.log(`NOTE: the engines created different alert counts (${oursAlerts} vs ${peerAlerts})`);

report({
  figure: `engine pass over ${SYMBOLS} symbols p95`,
  target: '< 5 s',
  measured: `${p95.toFixed(0)} ms (${((p95 * 1000) / SYMBOLS).toFixed(0)} µs/symbol)`,
  peer: `per-symbol round trips ${peerP95.toFixed(0)} ms`,
  ratio: p95 / peerP95,
  pass: p95 < 5000 && oursAlerts === peerAlerts,
});
report({
  figure: `alert generators alone over ${SYMBOLS} symbols`,
  target: '- (information: the signals share of a pass)',
  measured: `${signalsMs.toFixed(1)} ms`,
  peer: `engine pass p50 ${p50.toFixed(0)} ms`,
  ratio: signalsMs / p50,
  pass: null,
});
report({
  figure: 'engine memory per tracked symbol',
  target: '<= 24 KB',
  measured: `${(perSymbolBytes / 1024).toFixed(1)} KB`,
  peer: '-',
  ratio: null,
  pass: perSymbolBytes <= 24 * 1024,
});
