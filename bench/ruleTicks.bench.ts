// Rule evaluation per tick (issue 34): 100,000 active price rules over 500 symbols, a stream of
// ticks from seeded random walks (with spikes), through src/server/rules/evaluator.ts's
// evaluateTick. Each minute's bars close between the minutes (as the engine's pass would),
// outside the timed part. The mix: price levels near the price (70%), channels (12%),
// percentage moves over 1-60 minutes (13%), all with triggers once / once per bar / every time,
// and 5% once_per_bar_close price rules that ticks must leave alone.
//
// Peer, measured in the same run over the same ticks and bars: the reference that checks every
// rule of the symbol on every tick with the plain predicates (src/server/rules/tickReference.ts).
// Both must give identical firings. Target: at most 2 µs a tick (mean over the measured
// minutes), firings included.
import { createRuleEvaluator } from '../src/server/rules/evaluator.ts';
import { createTickReference } from '../src/server/rules/tickReference.ts';
import type { ActiveRule, FiringDraft } from '../src/server/rules/types.ts';
import type { RuleCondition, RuleTimeframe, RuleTrigger } from '../src/shared/schemas/alertRules.ts';
import type { LiveTick } from '../src/shared/schemas/live.ts';
import { writeBar, type CandleInput, type CandleSeries } from '../src/signals/candles.ts';
import { percentile, report } from './report.ts';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 500);
const RULES_PER_SYMBOL = 200;
const MINUTES = Number(process.env.BENCH_MINUTES ?? 20);
const WARMUP_MINUTES = 2;
const TICKS_PER_MINUTE = Number(process.env.BENCH_TICKS_PER_MINUTE ?? 60);
const HISTORY_MINUTES = 180;
const MINUTE = 60_000;
/** 2026-03-02 12:00 UTC. */
const START = Date.UTC(2026, 2, 2, 12);
const TARGET_NS = 2000;

let seed = 20260334;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

/** A growable bar store in columns (the candle store of one symbol). */
class Columns implements CandleSeries {
  length = 0;
  time = new Float64Array(HISTORY_MINUTES + MINUTES + 1);
  open = new Float64Array(HISTORY_MINUTES + MINUTES + 1);
  high = new Float64Array(HISTORY_MINUTES + MINUTES + 1);
  low = new Float64Array(HISTORY_MINUTES + MINUTES + 1);
  close = new Float64Array(HISTORY_MINUTES + MINUTES + 1);
  volume = new Float64Array(HISTORY_MINUTES + MINUTES + 1);
  push(bar: CandleInput): number {
    const at = this.length;
    writeBar(this, at, bar);
    this.length += 1;
    return at;
  }
}

interface Market {
  id: string;
  history: CandleInput[];
  /** The closed bar of each measured minute. */
  bars: CandleInput[];
}

const round = (price: number) => Number(price.toPrecision(7));

// The stream: each symbol's walk, its ticks spread over each minute, all symbols interleaved
// by time; the minute bars are the ticks' own aggregates.
const markets: Market[] = [];
const ticksByMinute: LiveTick[][] = Array.from({ length: MINUTES }, () => []);
for (let index = 0; index < SYMBOLS; index += 1) {
  const market: Market = { id: `SYM${index}-USD`, history: [], bars: [] };
  let price = 5 + random() * 50_000;
  for (let minute = HISTORY_MINUTES; minute >= 1; minute -= 1) {
    const open = price;
    price = round(price * (1 + (random() - 0.5) * 0.004));
    market.history.push({
      time: START - minute * MINUTE,
      open,
      high: Math.max(open, price),
      low: Math.min(open, price),
      close: price,
      volume: 10,
    });
  }
  for (let minute = 0; minute < MINUTES; minute += 1) {
    const open = price;
    let high = price;
    let low = price;
    for (let at = 0; at < TICKS_PER_MINUTE; at += 1) {
      // A spike now and then: through the levels near the price and back within seconds.
      const spike = random() < 0.002 ? (random() - 0.5) * 0.03 : 0;
      price = round(price * (1 + (random() - 0.5) * 0.0008 + spike));
      high = Math.max(high, price);
      low = Math.min(low, price);
      ticksByMinute[minute]!.push({
        symbol: market.id,
        price,
        time: START + minute * MINUTE + Math.floor(((at + random()) / TICKS_PER_MINUTE) * MINUTE),
        source: 'coinbase',
        delayMinutes: 0,
        bar: null,
      });
    }
    market.bars.push({ time: START + minute * MINUTE, open, high, low, close: price, volume: 10 });
  }
  markets.push(market);
}
for (const ticks of ticksByMinute) ticks.sort((a, b) => a.time - b.time);

const TRIGGERS: RuleTrigger[] = ['every_time', 'every_time', 'once_per_bar', 'once_per_bar', 'once'];
const TIMEFRAMES: RuleTimeframe[] = ['1m', '5m', '15m', '1h', '4h', '1D'];
let nextRuleId = 1;
const rules: ActiveRule[] = [];
for (const market of markets) {
  const price = market.history.at(-1)!.close;
  const near = (spread: number) => round(price * (1 + (random() - 0.5) * spread));
  for (let count = 0; count < RULES_PER_SYMBOL; count += 1) {
    const draw = random();
    let condition: RuleCondition;
    if (draw < 0.75)
      condition = { kind: 'price_cross', direction: pick(['above', 'below'] as const), level: near(0.04) };
    else if (draw < 0.87) {
      const [lower, upper] = [near(0.04), near(0.04)].sort((a, b) => a - b);
      condition = {
        kind: 'channel',
        direction: pick(['enters', 'exits'] as const),
        lower: lower!,
        upper: upper! * 1.001,
      };
    } else
      condition = {
        kind: 'percent_move',
        percent: pick([0.2, 0.5, 1, 2, -0.2, -0.5, -1, -2]),
        windowMinutes: pick([1, 5, 15, 60]),
      };
    rules.push({
      id: nextRuleId++,
      userId: `user-${Math.floor(random() * 5000)}`,
      name: `Rule ${nextRuleId}`,
      symbol: market.id,
      ticker: market.id.replace('-USD', ''),
      timeframe: pick(TIMEFRAMES),
      condition,
      trigger: random() < 0.05 ? 'once_per_bar_close' : pick(TRIGGERS),
      expiresAt: random() < 0.05 ? START + Math.floor(random() * MINUTES * MINUTE) : null,
      message: random() < 0.3 ? '{{ticker}} {{rule}} at {{price}} ({{time}})' : null,
    });
  }
}
const tickCount = ticksByMinute.reduce((sum, ticks) => sum + ticks.length, 0);
console.log(
  `${rules.length.toLocaleString('en-US')} rules over ${SYMBOLS} symbols, ${tickCount.toLocaleString('en-US')} ticks over ${MINUTES} minutes`,
);

const describeFiring = (firing: FiringDraft) =>
  `${firing.ruleId}|${firing.triggerKey}|${firing.barTime}|${firing.price}|${firing.message}|${firing.source}`;

interface Run {
  /** ns per tick of each measured minute. */
  perMinute: number[];
  totalNs: number;
  measuredTicks: number;
  firings: string[];
}

/** The stream through one side: `onTick` timed, `onBar` (the minute's bars closing) not. */
async function run(
  onTick: (tick: LiveTick) => FiringDraft[],
  onBar: (market: Market, bar: CandleInput) => Promise<FiringDraft[]> | FiringDraft[],
  afterTick: (firings: FiringDraft[]) => void,
): Promise<Run> {
  const result: Run = { perMinute: [], totalNs: 0, measuredTicks: 0, firings: [] };
  for (let minute = 0; minute < MINUTES; minute += 1) {
    const ticks = ticksByMinute[minute]!;
    const fired: FiringDraft[][] = [];
    globalThis.gc?.();
    const started = process.hrtime.bigint();
    for (const tick of ticks) {
      const firings = onTick(tick);
      if (firings.length > 0) {
        fired.push(firings);
        afterTick(firings);
      }
    }
    const elapsed = Number(process.hrtime.bigint() - started);
    if (minute >= WARMUP_MINUTES) {
      result.perMinute.push(elapsed / ticks.length);
      result.totalNs += elapsed;
      result.measuredTicks += ticks.length;
    }
    for (const list of fired) for (const firing of list) result.firings.push(describeFiring(firing));
    for (const market of markets)
      for (const firing of await onBar(market, market.bars[minute]!)) result.firings.push(describeFiring(firing));
  }
  return result;
}

// Ours: the indexed evaluator, its history read from the store as the app does.
const evaluator = createRuleEvaluator({
  history: (productId, granularity, limit) =>
    Promise.resolve(granularity === 60 ? markets.find((market) => market.id === productId)!.history.slice(-limit) : []),
});
evaluator.setRules(rules);
const preparing = performance.now();
await evaluator.prepareTicks();
console.log(
  `history of ${evaluator.tickSymbols().size} tick symbols read in ${(performance.now() - preparing).toFixed(0)} ms`,
);
const ours = await run(
  (tick) => evaluator.evaluateTick(tick),
  (market, bar) =>
    evaluator.evaluate({ productId: market.id, source: 'coinbase', minutes: [bar], hours: [], alerts: [] }),
  // The runtime retires a "once" rule once its firing is recorded.
  (firings) => {
    for (const firing of firings) if (firing.triggerKey === 0) evaluator.retire(firing.ruleId);
  },
);

// The peer: every rule of the symbol on every tick, over its own copy of the store.
const stores = new Map<string, { minutes: Columns; hours: Columns }>();
for (const market of markets) {
  const minutes = new Columns();
  for (const bar of market.history) minutes.push(bar);
  stores.set(market.id, { minutes, hours: new Columns() });
}
const reference = createTickReference(rules, (symbol) => stores.get(symbol));
const theirs = await run(
  (tick) => reference.tick(tick),
  (market, bar) => {
    const index = stores.get(market.id)!.minutes.push(bar);
    return reference.closedBar(market.id, index, 'coinbase');
  },
  () => undefined,
);

let mismatches = 0;
const length = Math.max(ours.firings.length, theirs.firings.length);
for (let index = 0; index < length; index += 1)
  if (ours.firings[index] !== theirs.firings[index]) {
    mismatches += 1;
    if (mismatches <= 3) console.error(`Mismatch at firing ${index}:`, ours.firings[index], theirs.firings[index]);
  }

const mean = ours.totalNs / ours.measuredTicks;
const peerMean = theirs.totalNs / theirs.measuredTicks;
const p95 = percentile(ours.perMinute, 0.95);
const peerP95 = percentile(theirs.perMinute, 0.95);
const firingsPerTick = ours.firings.length / tickCount;
report({
  figure: `rule evaluation per tick (${rules.length.toLocaleString('en-US')} rules, ${SYMBOLS} symbols)`,
  target: `<= ${TARGET_NS} ns`,
  measured: `${mean.toFixed(0)} ns mean (worst minute p95 ${p95.toFixed(0)} ns; ${firingsPerTick.toFixed(3)} firings a tick)`,
  peer: `every rule on every tick ${peerMean.toFixed(0)} ns (p95 ${peerP95.toFixed(0)} ns)`,
  ratio: mean / peerMean,
  pass: mean <= TARGET_NS,
});
report({
  figure: 'tick rule firings identical to every rule on every tick',
  target: 'identical',
  measured: `${ours.firings.length.toLocaleString('en-US')} firings, ${mismatches} differ`,
  peer: `${theirs.firings.length.toLocaleString('en-US')} firings`,
  ratio: null,
  pass: mismatches === 0 && ours.firings.length > 0,
});
