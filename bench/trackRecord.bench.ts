// The track record at scale (issue 20): resolve and score 1,000,000 forecasts.
// - Resolution: 1,000,000 1h forecasts (horizon 24) over 200 synthetic 24/7 markets of 6,000
//   hourly bars each (read grouped by market in due order, as the service reads them),
//   through the resolver's own code (forecasts/resolution.ts: exact horizon, gap and
//   completeness checks), streamed into the scorer. Peer: a naive resolver that only
//   looks the due bar up in a Map (no checks), in the same run.
// - Scoring: the streaming scorer (signals/forecastScore.ts) over the 1,000,000 outcomes in
//   columns, against a naive array-of-objects scorer (filter/map/reduce per decile and signal).
// The database side (the SQL GROUP BY of the live record) is not here: it returns at most 60
// rows whatever the table size, and its scan cost is Postgres's.
// Targets (fail the bench when missed): resolve + score 1M < 5 s with < 64 MB peak RSS growth;
// scoring 1M < 250 ms and at least 3x faster than the naive scorer.
import { ForecastScorer, reliabilityBin } from '../src/signals/forecastScore.ts';
import { resolveForecast, type BaseBar, type PendingForecast } from '../src/server/forecasts/resolution.ts';
import { trackPeakRss } from './procStatus.ts';
import { report } from './report.ts';

const FORECASTS = 1_000_000;
const MARKETS = 200;
const BARS = 6_000;
const HOUR = 3_600_000;
const HORIZON = 24;
const START = Date.UTC(2025, 0, 1);
const SIGNALS = ['watos1', 'watos2', 'watos3', 'watos4', 'watos5', 'watos6'];

let state = 7;
const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;

// The candle store: per market, hourly bars oldest first (a few holes, as real feeds have).
const markets: BaseBar[][] = [];
for (let market = 0; market < MARKETS; market += 1) {
  const bars: BaseBar[] = [];
  let price = 100;
  for (let index = 0; index < BARS; index += 1) {
    price *= 1 + (random() - 0.5) * 0.02;
    if (random() < 0.002) continue;
    bars.push({ time: START + index * HOUR, close: price, source: 'demo' });
  }
  markets.push(bars);
}

/** The i-th forecast, generated on the fly (as rows stream from a cursor). */
function forecastAt(index: number, into: PendingForecast & { market: number; stated: number; base: number }) {
  into.id = index;
  // As the resolver reads them: grouped by market, in due order (5,000 forecasts a market).
  const perMarket = FORECASTS / MARKETS;
  into.market = Math.floor(index / perMarket);
  const bar = 10 + Math.floor(((index % perMarket) * (BARS - HORIZON - 20)) / perMarket);
  into.barTime = START + (bar + 1) * HOUR;
  into.dueAt = into.barTime + HORIZON * HOUR;
  const bars = markets[into.market]!;
  // About the entry bar's close (holes shift the index a little): rises and falls both occur.
  into.entryClose = bars[Math.min(bar, bars.length - 1)]!.close;
  into.stated = ((index * 2654435761) % 1000) / 1000;
  into.base = 0.5;
  return into;
}

function gc() {
  (globalThis as { gc?: () => void }).gc?.();
}

// ---- ours: resolve and score, streaming -----------------------------------------------------

// Columns the scoring-alone part reads afterwards (allocated before memory is measured).
const outcomes = new Uint8Array(FORECASTS);
const statedColumn = new Float64Array(FORECASTS);
gc();
const memory = trackPeakRss(process.pid);
const scorer = new ForecastScorer();
const started = performance.now();
const scratch = {
  id: 0,
  market: 0,
  timeframe: '1h' as const,
  horizonBars: HORIZON,
  barTime: 0,
  dueAt: 0,
  entryClose: 0,
  source: 'demo' as const,
  calendar: 'crypto-24x7' as const,
  stated: 0,
  base: 0,
};
let resolved = 0;
let unresolvable = 0;
const now = START + (BARS + 48) * HOUR;
for (let index = 0; index < FORECASTS; index += 1) {
  const forecast = forecastAt(index, scratch);
  const resolution = resolveForecast(forecast, markets[forecast.market]!, now);
  if (resolution?.status === 'resolved') {
    resolved += 1;
    outcomes[index] = resolution.rose ? 1 : 2;
    statedColumn[index] = forecast.stated;
    scorer.add(SIGNALS[index % 6]!, forecast.stated, forecast.base, resolution.rose, index % 2 === 0);
  } else unresolvable += 1;
}
const report1 = scorer.report();
const pipelineMs = performance.now() - started;
const pipelineBytes = memory.stop();

// ---- peer: naive resolution (Map lookup of the due bar, no checks) ---------------------------

const lookups = markets.map((bars) => new Map(bars.map((bar) => [bar.time, bar.close])));
const naiveStarted = performance.now();
let naiveRose = 0;
for (let index = 0; index < FORECASTS; index += 1) {
  const forecast = forecastAt(index, scratch);
  const close = lookups[forecast.market]!.get(forecast.dueAt - HOUR);
  if (close !== undefined && close > forecast.entryClose) naiveRose += 1;
}
const naiveResolveMs = performance.now() - naiveStarted;

// ---- scoring alone: streaming columns against an array of objects ---------------------------

function streamingScore(): ReturnType<ForecastScorer['report']> {
  const own = new ForecastScorer();
  for (let index = 0; index < FORECASTS; index += 1) {
    const outcome = outcomes[index];
    if (outcome === 0) continue;
    own.add(SIGNALS[index % 6]!, statedColumn[index]!, 0.5, outcome === 1, index % 2 === 0);
  }
  return own.report();
}

interface Row {
  signal: string;
  stated: number;
  base: number;
  rose: boolean;
  bullish: boolean;
}
const rows: Row[] = [];
for (let index = 0; index < FORECASTS; index += 1) {
  if (outcomes[index] === 0) continue;
  rows.push({
    signal: SIGNALS[index % 6]!,
    stated: statedColumn[index]!,
    base: 0.5,
    rose: outcomes[index] === 1,
    bullish: index % 2 === 0,
  });
}

function naiveScore(all: Row[]) {
  const outcome = (row: Row) => (row.rose ? 1 : 0);
  const brierOf = (list: Row[]) => list.map((row) => (row.stated - outcome(row)) ** 2).reduce((a, b) => a + b, 0);
  const baseOf = (list: Row[]) => list.map((row) => (row.base - outcome(row)) ** 2).reduce((a, b) => a + b, 0);
  const reliability = Array.from({ length: 10 }, (_, bin) => {
    const inBin = all.filter((row) => reliabilityBin(row.stated) === bin);
    return {
      count: inBin.length,
      stated: inBin.reduce((sum, row) => sum + row.stated, 0) / inBin.length,
      realised: inBin.filter((row) => row.rose).length / inBin.length,
    };
  });
  const signals = SIGNALS.map((signal) => {
    const mine = all.filter((row) => row.signal === signal);
    return {
      signal,
      hitRate: mine.filter((row) => row.rose === row.bullish).length / mine.length,
      skill: 1 - brierOf(mine) / baseOf(mine),
    };
  });
  return { brier: brierOf(all) / all.length, skill: 1 - brierOf(all) / baseOf(all), reliability, signals };
}

function best(run: () => unknown, repeats = 5): number {
  let fastest = Infinity;
  for (let attempt = 0; attempt < repeats; attempt += 1) {
    const begun = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - begun);
  }
  return fastest;
}

const ours = streamingScore();
const theirs = naiveScore(rows);
// The two scorers must agree, or the timing means nothing.
if (Math.abs((ours.brier ?? NaN) - theirs.brier) > 1e-9 || Math.abs((ours.brierSkill ?? NaN) - theirs.skill) > 1e-9)
  throw new Error(`scorers disagree: ${ours.brier} vs ${theirs.brier}`);
gc();
const naiveMemory = trackPeakRss(process.pid);
const naiveMs = best(() => naiveScore(rows));
const naiveBytes = naiveMemory.stop();
const streamingMs = best(streamingScore);

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
console.log(
  `resolved ${resolved.toLocaleString('en-US')}, unresolvable (gaps) ${unresolvable.toLocaleString('en-US')}; ` +
    `Brier ${report1.brier?.toFixed(4)}, skill ${report1.brierSkill?.toFixed(4)}; naive resolver rises ${naiveRose}`,
);

report({
  figure: 'resolve + score 1M forecasts (ms)',
  target: '< 5,000 ms',
  measured: `${Math.round(pipelineMs).toLocaleString('en-US')} ms`,
  peer: `naive Map-lookup resolve (no gap checks) ${Math.round(naiveResolveMs).toLocaleString('en-US')} ms`,
  ratio: pipelineMs / naiveResolveMs,
  pass: pipelineMs < 5000,
});
report({
  figure: 'resolve + score 1M forecasts peak RSS growth',
  target: '< 64 MB',
  measured: mb(pipelineBytes),
  peer: `naive scorer over 1M objects ${mb(naiveBytes)}`,
  ratio: pipelineBytes / naiveBytes,
  pass: pipelineBytes < 64 * 1024 * 1024,
});
report({
  figure: 'score 1M resolved forecasts (ms)',
  target: '< 250 ms and >= 3x faster than naive',
  measured: `${streamingMs.toFixed(1)} ms`,
  peer: `naive array-of-objects ${naiveMs.toFixed(1)} ms`,
  ratio: streamingMs / naiveMs,
  pass: streamingMs < 250 && naiveMs / streamingMs >= 3,
});
