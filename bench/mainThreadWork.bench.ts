// The server's other CPU work on the event loop (issue 33), measured on the backtest's terms:
// main-thread time of one call (wall time of an in-memory call: the demo feed and the
// in-memory histories do no I/O, so the whole call holds the loop). Each is run cold (fresh
// caches: what the first request pays) and warm, median and worst of a few calls:
// - market analysis's candle series (analysis/service.ts history(): the demo feed's bars,
//   aggregated into the timeframe and turned into columns), 1m (2 days of minutes) and 1h (60 days of hours);
// - scoring the live record (signals/forecastScore.ts: the SQL's at most 60 groups merged and
//   reported; the SQL itself runs in PostgreSQL, or in PGlite on this thread when embedded);
// - rule evaluation's first history read (rules/evaluator.ts: a symbol's first update reads 4
//   days of minutes and 60 days of hours and builds its bars; RSI, EMA and WATOS-odds rules);
// - chart bucketing over the longest range (market/chartBars.ts: 1000 daily bars from hours
//   with SMA, EMA, Bollinger and RSI; 1000 15m bars from minutes).
// Peer, in the same run: the walk-forward a 1m backtest runs (now in the worker pool), on the
// main thread. Informational: a figure over 50 ms a call is flagged, not failed.
import { createMarketAnalysis } from '../src/server/analysis/service.ts';
import { reportedWalkForward } from '../src/server/forecasts/backtestWorker.ts';
import { chartBars } from '../src/server/market/chartBars.ts';
import {
  createDemoFeed,
  createMarketRouter,
  createYahooProvider,
  type StoredCandle,
} from '../src/server/market/service.ts';
import { createRuleEvaluator } from '../src/server/rules/evaluator.ts';
import type { ActiveRule } from '../src/server/rules/types.ts';
import type { RuleCondition, RuleTimeframe } from '../src/shared/schemas/alertRules.ts';
import { ForecastScorer } from '../src/signals/forecastScore.ts';
import { percentile, report } from './report.ts';

const FLAG_MS = 50;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 2, 12, 30);

async function timed(runs: number, call: () => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

function analysis() {
  const demo = createDemoFeed({ now: () => NOW });
  const market = createMarketRouter({
    mode: 'demo',
    // Demo mode asks the demo feed alone.
    coinbase: demo,
    yahoo: createYahooProvider({}),
    demo,
  });
  return createMarketAnalysis({ market, now: () => NOW });
}

const figures: { name: string; times: number[] }[] = [];
const measure = async (name: string, runs: number, call: () => unknown) =>
  figures.push({ name, times: await timed(runs, call) });

// ---- the analyst's candle series ------------------------------------------------------------
const symbols = ['BTC', 'ETH', 'SOL', 'DOGE', 'XRP'];
let next = 0;
await measure('candle series 1m, cold (demo feed, 2 days)', 5, () => analysis().history(symbols[next++ % 5]!, '1m'));
const warmAnalysis = analysis();
await warmAnalysis.history('BTC', '1m');
await measure('candle series 1m, warm (cached bars)', 10, () => warmAnalysis.history('BTC', '1m'));
await measure('candle series 1h, cold (demo feed, 60 days)', 5, () => analysis().history(symbols[next++ % 5]!, '1h'));
await warmAnalysis.history('BTC', '1h');
await measure('candle series 1h, warm (cached bars)', 10, () => warmAnalysis.history('BTC', '1h'));

// ---- scoring ---------------------------------------------------------------------------------
const signals = ['watos1', 'watos2', 'watos3', 'watos4', 'watos5', 'watos6'];
await measure('scoring the live record (60 groups)', 20, () => {
  const scorer = new ForecastScorer();
  for (const signal of signals)
    for (let bin = 0; bin < 10; bin += 1)
      scorer.addSums(signal, bin, { count: 1000, stated: 550, rises: 520, hits: 510, brier: 240, baseBrier: 250 });
  return scorer.report();
});

// ---- rule evaluation's first history read ----------------------------------------------------
const demo = createDemoFeed({ now: () => NOW });
const minuteRows = await demo.candles('ETH-USD', 60, new Date(NOW - 4 * 24 * HOUR), new Date(NOW - MINUTE));
const hourRows = await demo.candles('ETH-USD', 3600, new Date(NOW - 60 * 24 * HOUR), new Date(NOW - HOUR));
const lastMinute = minuteRows.at(-1)!;
const rule = (id: number, condition: RuleCondition, timeframe: RuleTimeframe): ActiveRule => ({
  id,
  userId: 'bench',
  name: `Rule ${id}`,
  symbol: 'ETH-USD',
  ticker: 'ETH',
  timeframe,
  condition,
  trigger: 'every_time',
  expiresAt: null,
  message: null,
});
const rules = [
  rule(1, { kind: 'rsi', direction: 'above', level: 70, period: 14 }, '1m'),
  rule(2, { kind: 'ema_cross', direction: 'above', fast: 12, slow: 26 }, '4h'),
  rule(3, { kind: 'watos_odds', outcome: 'rise', threshold: 55 }, '1h'),
];
const update = (at: number) => ({
  productId: 'ETH-USD',
  source: 'demo',
  minutes: [{ ...lastMinute, time: at }],
  hours: [],
  alerts: [],
});
await measure('rule evaluation, first update (history read)', 5, async () => {
  const evaluator = createRuleEvaluator({
    history: async (_id, granularity, limit) => (granularity === 60 ? minuteRows : hourRows).slice(-limit),
  });
  evaluator.setRules(rules);
  await evaluator.evaluate(update(NOW));
});
const warmEvaluator = createRuleEvaluator({
  history: async (_id, granularity, limit) => (granularity === 60 ? minuteRows : hourRows).slice(-limit),
});
warmEvaluator.setRules(rules);
await warmEvaluator.evaluate(update(NOW));
let minute = 1;
await measure('rule evaluation, later update', 10, () => warmEvaluator.evaluate(update(NOW + minute++ * MINUTE)));

// ---- chart bucketing ---------------------------------------------------------------------------
const longHours = await demo.candles('ETH-USD', 3600, new Date(NOW - 1100 * 24 * HOUR), new Date(NOW));
const longMinutes = await demo.candles('ETH-USD', 60, new Date(NOW - 11 * 24 * HOUR), new Date(NOW));
const stored = (rows: typeof longHours): StoredCandle[] => rows.map((row) => ({ ...row, source: 'demo' }));
const hourStore = stored(longHours);
const minuteStore = stored(longMinutes);
const overlays = ['sma20', 'ema20', 'bb20'] as const;
await measure('chart 1D x 1000 from hours (+ overlays, RSI)', 10, () =>
  chartBars(async (_granularity, limit) => hourStore.slice(-limit), '1D', 1000, [...overlays], 14),
);
await measure('chart 15m x 1000 from minutes (+ overlays, RSI)', 10, () =>
  chartBars(async (_granularity, limit) => minuteStore.slice(-limit), '15m', 1000, [...overlays], 14),
);

// ---- the peer: a 1m backtest's walk on the main thread ------------------------------------------
const backtestBars = (await analysis().history('BTC', '1m')).series;
const peerTimes = await timed(3, () => reportedWalkForward({ series: backtestBars, horizon: 60 }));
const peerMs = percentile(peerTimes, 0.5);

console.log(`\n${'main-thread time per call'.padEnd(50)} runs   median      max`);
for (const { name, times } of figures) {
  const median = percentile(times, 0.5);
  const worst = Math.max(...times);
  console.log(
    `${name.padEnd(50)} ${String(times.length).padStart(4)} ${median.toFixed(2).padStart(8)} ${worst.toFixed(2).padStart(8)} ms${worst > FLAG_MS ? '  > 50 ms' : ''}`,
  );
  report({
    figure: `${name}: main-thread ms a call`,
    target: `flag > ${FLAG_MS} ms`,
    measured: `median ${median.toFixed(2)} ms, max ${worst.toFixed(2)} ms`,
    peer: `1m backtest walk on the main thread ${peerMs.toFixed(0)} ms`,
    ratio: median / peerMs,
    pass: null,
  });
}
console.log(
  `${'peer: 1m backtest walk (1500 bars), main thread'.padEnd(50)} ${String(peerTimes.length).padStart(4)} ${peerMs.toFixed(2).padStart(8)} ${Math.max(
    ...peerTimes,
  )
    .toFixed(2)
    .padStart(8)} ms`,
);
