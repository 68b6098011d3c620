// Indicator speed, for information, with one target. Per indicator over 1,000,000 bars: ours
// (the no-allocation API, a caller-supplied output) against the JavaScript peers
// (@ixjb94/indicators, trading-signals, technicalindicators; the two slow ones on a 100,000-bar
// slice) and against native C kernels built from source at bench time (Tulip Indicators and
// TA-Lib, gcc -O2: bench/c/), each side in processes of its own over the same bars file.
// Target: faster than the fastest JavaScript peer, with the same last value as the C kernels.
// The ratio to C is printed, not a target: the kernels are plain loops written to be read
// (docs/decisions/0014-readable-indicator-kernels.md), and what decides their speed is the
// alert engine's pass over 2,000 symbols (bench/engineUniverse.bench.ts).
// VolumeZ and Swings have no peer library: they are printed beside a plain single-pass loop
// timed in alternation with them (a running sum, SMA(20) over the closes: not their
// computation, the cost of one simple pass over the bars). Over 500 bars (the dashboard's case,
// the allocating API callers use) ours are printed beside @ixjb94/indicators on the same
// windows.
// Every time is the best of several runs after untimed warm-up calls; the C peers and ours are
// timed in alternating rounds so that both see the same quiet and busy spells of a shared
// machine.
import { IndicatorsSync } from '@ixjb94/indicators';
import * as technical from 'technicalindicators';
import {
  ATR as TsAtr,
  BollingerBands as TsBollinger,
  EMA as TsEma,
  ROC as TsRoc,
  RSI as TsRsi,
  SMA as TsSma,
} from 'trading-signals';
import { atr, bollinger, ema, roc, rsi, sma, swingPoints, volumeZScore } from '../src/signals/indicators.ts';
import { buildCPeers } from './c/peers.ts';
import { report } from './report.ts';

const BARS = 1_000_000;
const SLOW_BARS = 100_000;
const SMALL_BARS = 500;
/** Rounds of (C peers, ours); each keeps its best time over all rounds. */
const ROUNDS = 5;
const REPEATS = 5;

/**
 * A random walk in log price with a little noise for high and low: realistic bars (no drift
 * to zero or infinity over a million of them). mulberry32 keeps every bit deterministic.
 */
function series(length: number) {
  let state = 42;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const close = new Float64Array(length);
  const high = new Float64Array(length);
  const low = new Float64Array(length);
  let price = 100;
  for (let index = 0; index < length; index += 1) {
    price *= Math.exp((random() - 0.5) * 0.02);
    close[index] = price;
    high[index] = price * (1 + random() * 0.01);
    low[index] = price * (1 - random() * 0.01);
  }
  return { close, high, low };
}

let sink = 0;
/** Best of `repeats` runs, in nanoseconds per bar. */
function measure(bars: number, run: () => unknown, repeats = REPEATS): number {
  let best = Infinity;
  for (let attempt = 0; attempt < repeats; attempt += 1) {
    const started = process.hrtime.bigint();
    const result = run();
    const elapsed = Number(process.hrtime.bigint() - started);
    sink += Array.isArray(result) || ArrayBuffer.isView(result) ? (result as ArrayLike<number>).length : 1;
    best = Math.min(best, elapsed / bars);
  }
  return best;
}

const data = series(BARS);
const arrays = { close: Array.from(data.close), high: Array.from(data.high), low: Array.from(data.low) };
const slow = {
  close: arrays.close.slice(0, SLOW_BARS),
  high: arrays.high.slice(0, SLOW_BARS),
  low: arrays.low.slice(0, SLOW_BARS),
};
const ixjb = new IndicatorsSync();
const out = new Float64Array(BARS);

function streaming<T>(make: () => { update(input: T, replace: boolean): unknown }, inputs: T[]) {
  const indicator = make();
  for (const input of inputs) indicator.update(input, false);
  return inputs.length;
}

const candles = slow.close.map((close, index) => ({ high: slow.high[index], low: slow.low[index], close }));

/** 500-bar windows spread over the series, so a small-input run does not replay one window. */
const WINDOWS = 64;
const windows = Array.from({ length: WINDOWS }, (_, window) => {
  const from = window * Math.floor((BARS - SMALL_BARS) / WINDOWS);
  const close = data.close.slice(from, from + SMALL_BARS);
  const high = data.high.slice(from, from + SMALL_BARS);
  const low = data.low.slice(from, from + SMALL_BARS);
  return { close, high, low, arrays: { close: Array.from(close), high: Array.from(high), low: Array.from(low) } };
});
type Window = (typeof windows)[number];

interface Row {
  name: string;
  /** The C kernels' name in bench/c/harness.h output. */
  kernel: string;
  /** Tulip's ROC is a ratio, not percent: its last value times this is ours. */
  tulipScale?: number;
  ixjb: () => number;
  tradingSignals: () => number;
  technical: () => number;
  /** The allocating call on one 500-bar window, ours and @ixjb94/indicators'. */
  small: (window: Window) => unknown;
  smallPeer: (window: Window) => unknown;
}

const rows: Row[] = [
  {
    name: 'SMA(20)',
    kernel: 'SMA',
    ixjb: () => measure(BARS, () => ixjb.sma(arrays.close, 20)),
    tradingSignals: () => measure(SLOW_BARS, () => streaming(() => new TsSma(20), slow.close), 2),
    technical: () => measure(SLOW_BARS, () => technical.SMA.calculate({ period: 20, values: slow.close }), 2),
    small: (window) => sma(window.close, 20),
    smallPeer: (window) => ixjb.sma(window.arrays.close, 20),
  },
  {
    name: 'EMA(20)',
    kernel: 'EMA',
    ixjb: () => measure(BARS, () => ixjb.ema(arrays.close, 20)),
    tradingSignals: () => measure(SLOW_BARS, () => streaming(() => new TsEma(20), slow.close), 2),
    technical: () => measure(SLOW_BARS, () => technical.EMA.calculate({ period: 20, values: slow.close }), 2),
    small: (window) => ema(window.close, 20),
    smallPeer: (window) => ixjb.ema(window.arrays.close, 20),
  },
  {
    name: 'RSI(14)',
    kernel: 'RSI',
    ixjb: () => measure(BARS, () => ixjb.rsi(arrays.close, 14)),
    tradingSignals: () => measure(SLOW_BARS, () => streaming(() => new TsRsi(14), slow.close), 2),
    technical: () => measure(SLOW_BARS, () => technical.RSI.calculate({ period: 14, values: slow.close }), 2),
    small: (window) => rsi(window.close, 14),
    smallPeer: (window) => ixjb.rsi(window.arrays.close, 14),
  },
  {
    name: 'ATR(14)',
    kernel: 'ATR',
    ixjb: () => measure(BARS, () => ixjb.atr(arrays.high, arrays.low, arrays.close, 14)),
    tradingSignals: () => measure(SLOW_BARS, () => streaming(() => new TsAtr(14), candles), 2),
    technical: () =>
      measure(
        SLOW_BARS,
        () => technical.ATR.calculate({ period: 14, high: slow.high, low: slow.low, close: slow.close }),
        2,
      ),
    small: (window) => atr(window.high, window.low, window.close, 14),
    smallPeer: (window) => ixjb.atr(window.arrays.high, window.arrays.low, window.arrays.close, 14),
  },
  {
    name: 'Bollinger(20,2)',
    kernel: 'Bollinger',
    ixjb: () => measure(BARS, () => ixjb.bbands(arrays.close, 20, 2)),
    tradingSignals: () => measure(SLOW_BARS, () => streaming(() => new TsBollinger(20, 2), slow.close), 2),
    technical: () =>
      measure(SLOW_BARS, () => technical.BollingerBands.calculate({ period: 20, stdDev: 2, values: slow.close }), 2),
    small: (window) => bollinger(window.close, 20, 2),
    smallPeer: (window) => ixjb.bbands(window.arrays.close, 20, 2),
  },
  {
    name: 'ROC(10)',
    kernel: 'ROC',
    tulipScale: 100,
    ixjb: () => measure(BARS, () => ixjb.roc(arrays.close, 10)),
    tradingSignals: () => measure(SLOW_BARS, () => streaming(() => new TsRoc(10), slow.close), 2),
    technical: () => measure(SLOW_BARS, () => technical.ROC.calculate({ period: 10, values: slow.close }), 2),
    small: (window) => roc(window.close, 10),
    smallPeer: (window) => ixjb.roc(window.arrays.close, 10),
  },
];

// VolumeZ and Swings: no peer implements these two, so they are printed beside a plain loop.
// Timed first, before this process starts any other (npm, gcc, the peers): afterwards loops
// over big arrays ran slower in it, ours more than the plain loop.
/** The plain-loop baseline: one pass, a running sum, a store per bar. */
function plainLoop(values: Float64Array, period: number, target: Float64Array) {
  let sum = 0;
  for (let index = 0; index < values.length; index += 1) {
    sum += values[index]!;
    if (index >= period) sum -= values[index - period]!;
    target[index] = sum / period;
  }
  return target;
}
// The loop and each indicator are timed in alternating rounds, the best reading of each kept:
// the loop's speed drifts with the machine over a run, and both sides get the same number of
// readings in the same spells.
const timeLoop = () => measure(BARS, () => plainLoop(data.close, 20, out), 5);
timeLoop(); // compiles the loop before any reading counts
const OWN_ROUNDS = 3;
const volume = data.high.map((high, index) => (high - data.low[index]!) * 1000);
const swings = new Int8Array(BARS);
const ownOnly = [
  { name: 'VolumeZ(20)', ours: () => measure(BARS, () => volumeZScore(volume, 20, out)) },
  { name: 'Swings(3)', ours: () => measure(BARS, () => swingPoints(data.high, data.low, 3, swings)) },
];
const ownTimes = ownOnly.map((row) => {
  let loop = Infinity;
  let ours = Infinity;
  for (let round = 0; round < OWN_ROUNDS; round += 1) {
    loop = Math.min(loop, timeLoop());
    ours = Math.min(ours, row.ours());
  }
  return { name: row.name, ours, loop };
});

// --- C peers: built once, then timed in rounds alternating with ours.
const started = Date.now();
const cPeers = buildCPeers(data.close, data.high, data.low);
console.log(
  `C peers: ${cPeers.peers.map((peer) => peer.name).join(', ') || 'none'} (${cPeers.compiler}, -O2), built in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
);
for (const failure of cPeers.failures) console.log(`C peer not built: ${failure}`);

const best = (a: number | undefined, b: number) => (a === undefined ? b : Math.min(a, b));
const cTimes = new Map<string, Map<string, number>>(); // peer -> kernel -> best ns/bar
const cLast = new Map<string, Map<string, number>>();
// Ours run in a process of their own too (bench/c/ours.ts over the same bars file): timed in
// this process, after it had started a peer process, our loops ran up to half slower.
for (let round = 0; round < ROUNDS; round += 1) {
  for (const peer of [cPeers.ours, ...cPeers.peers]) {
    const times = cTimes.get(peer.name) ?? new Map<string, number>();
    const lasts = cLast.get(peer.name) ?? new Map<string, number>();
    for (const [kernel, result] of peer.run(REPEATS)) {
      times.set(kernel, best(times.get(kernel), result.nsPerBar));
      lasts.set(kernel, result.last);
    }
    cTimes.set(peer.name, times);
    cLast.set(peer.name, lasts);
  }
}
cPeers.cleanup();

// --- 500 bars: ours and @ixjb94/indicators in alternation, best sample of each.
const SMALL_CALLS = 400;
const SMALL_SAMPLES = 25;
function smallSample(call: (window: Window) => unknown): number {
  const begun = process.hrtime.bigint();
  for (let index = 0; index < SMALL_CALLS; index += 1) {
    sink += (call(windows[index % WINDOWS]!) as { length?: number }).length ?? 1;
  }
  return Number(process.hrtime.bigint() - begun) / (SMALL_CALLS * SMALL_BARS);
}
const smallTimes = new Map<string, { ours: number; peer: number }>();
for (const row of rows) {
  let ours = Infinity;
  let peer = Infinity;
  for (let sample = 0; sample < SMALL_SAMPLES; sample += 1) {
    ours = Math.min(ours, smallSample(row.small));
    peer = Math.min(peer, smallSample(row.smallPeer));
  }
  smallTimes.set(row.name, { ours, peer });
}
const swingsSmall = (() => {
  let ours = Infinity;
  for (let sample = 0; sample < SMALL_SAMPLES; sample += 1)
    ours = Math.min(
      ours,
      smallSample((window) => swingPoints(window.high, window.low, 3)),
    );
  return ours;
})();

console.log(
  `\nIndicators over ${BARS.toLocaleString('en-US')} bars (slow JS peers: ${SLOW_BARS.toLocaleString('en-US')}), best of ${ROUNDS} x ${REPEATS} runs, ns/bar; 500 bars: allocating call, best of ${SMALL_SAMPLES} samples of ${SMALL_CALLS} calls, ns/bar.`,
);
const peerNames = cPeers.peers.map((peer) => peer.name);
console.log(
  `indicator        ours  ${peerNames.map((name) => name.split(' (')[0]!.padStart(17)).join(' ')}  ours/C  @ixjb94  trading-signals  technicalindicators  500: ours  @ixjb94  target`,
);
let met = 0;
for (const row of rows) {
  const ours = cTimes.get(cPeers.ours.name)?.get(row.kernel) ?? NaN;
  const ourLast = cLast.get(cPeers.ours.name)?.get(row.kernel) ?? NaN;
  const cells: string[] = [];
  let fastestC: { name: string; time: number } | undefined;
  const disagreements: string[] = [];
  for (const name of peerNames) {
    const time = cTimes.get(name)?.get(row.kernel) ?? NaN;
    cells.push(time.toFixed(2).padStart(17));
    if (!fastestC || time < fastestC.time) fastestC = { name, time };
    // Same computation: the last value agrees (the seeds differ, a million bars earlier).
    const scale = name.startsWith('Tulip') ? (row.tulipScale ?? 1) : 1;
    const theirs = (cLast.get(name)?.get(row.kernel) ?? NaN) * scale;
    if (!(Math.abs(theirs - ourLast) <= 1e-9 * Math.abs(ourLast)))
      disagreements.push(`${name}: ${theirs} vs ${ourLast}`);
  }
  const fastest = row.ixjb();
  const tradingSignals = row.tradingSignals();
  const technicalTime = row.technical();
  const jsPeers: Array<[string, number]> = [
    ['@ixjb94/indicators', fastest],
    ['trading-signals', tradingSignals],
    ['technicalindicators', technicalTime],
  ];
  const [jsName, fastestJs] = jsPeers.reduce((best, peer) => (peer[1] < best[1] ? peer : best));
  const cRatio = fastestC ? ours / fastestC.time : NaN;
  const ok = ours < fastestJs && disagreements.length === 0;
  const small = smallTimes.get(row.name) ?? { ours: NaN, peer: NaN };
  if (ok) met += 1;
  console.log(
    `${row.name.padEnd(16)} ${ours.toFixed(2).padStart(5)} ${cells.join(' ')} ${cRatio.toFixed(2).padStart(7)} ${fastest.toFixed(1).padStart(8)} ${tradingSignals.toFixed(1).padStart(16)} ${technicalTime.toFixed(1).padStart(20)} ${small.ours.toFixed(2).padStart(10)} ${small.peer.toFixed(2).padStart(8)}  ${ok ? 'met' : 'NOT met'}`,
  );
  for (const disagreement of disagreements) console.log(`  last value differs from ${disagreement}`);
  report({
    figure: `${row.name} ns/bar, 1M bars`,
    target: '< fastest JS peer, same last value as C',
    measured: `${ours.toFixed(2)} ns/bar`,
    peer: `${jsName} ${fastestJs.toFixed(2)} ns/bar`,
    ratio: ours / fastestJs,
    pass: ok,
  });
  report({
    figure: `${row.name} ns/bar, 1M bars, against C`,
    target: '- (information)',
    measured: `${ours.toFixed(2)} ns/bar`,
    peer: fastestC
      ? `${fastestC.name.split(' (')[0]} (C, gcc -O2) ${fastestC.time.toFixed(2)} ns/bar`
      : `no C peer (${cPeers.failures.join('; ')})`,
    ratio: fastestC ? cRatio : null,
    pass: null,
  });
  report({
    figure: `${row.name} ns/bar, 500 bars`,
    target: '- (information)',
    measured: `${small.ours.toFixed(2)} ns/bar`,
    peer: `@ixjb94/indicators ${small.peer.toFixed(2)} ns/bar`,
    ratio: small.ours / small.peer,
    pass: null,
  });
}

console.log('\nindicator         ours  loop  ours/loop');
for (const { name, ours, loop } of ownTimes) {
  console.log(
    `${name.padEnd(16)} ${ours.toFixed(2).padStart(5)} ${loop.toFixed(2).padStart(5)} ${(ours / loop).toFixed(2).padStart(10)}`,
  );
  report({
    figure: `${name} ns/bar, 1M bars`,
    target: '- (information, no library peer)',
    measured: `${ours.toFixed(2)} ns/bar`,
    peer: `plain loop ${loop.toFixed(2)} ns/bar`,
    ratio: ours / loop,
    pass: null,
  });
}
console.log(`Swings(3), 500 bars: ${swingsSmall.toFixed(2)} ns/bar.`);
console.log(`\nTargets met on ${met} of ${rows.length} indicators.${sink < 0 ? '' : ''}`);
