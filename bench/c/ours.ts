// Our kernels in the C peers' harness shape (harness.h): a process of their own that reads the
// same bars file, runs each indicator WARM_UP times untimed (V8 compiles it meanwhile) and then
// argv[3] times with a caller-supplied output (the no-allocation API), and prints per kernel
// "NAME BEST_NS_PER_BAR LAST_VALUE". Run by
// bench/indicators.bench.ts in rounds alternating with the C peers, so each side is timed in a
// fresh process of its own: timed inside the bench's process, our loops slowed by up to half
// after the bench had started a peer process.
import { readFileSync } from 'node:fs';
import { atr, bollinger, ema, roc, rsi, sma } from '../../src/signals/indicators.ts';

const [barsFile, repeatsText] = process.argv.slice(2);
if (barsFile === undefined) throw new Error('usage: ours.ts <bars file> <repeats>');
const repeats = Number(repeatsText);
const bytes = readFileSync(barsFile);
const all = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const bars = all.length / 3;
const close = all.slice(0, bars);
const high = all.slice(bars, 2 * bars);
const low = all.slice(2 * bars);
const out = new Float64Array(bars);
const bands = { middle: new Float64Array(bars), upper: new Float64Array(bars), lower: new Float64Array(bars) };

const WARM_UP = 3;

function time(name: string, kernel: () => Float64Array): void {
  for (let attempt = 0; attempt < WARM_UP; attempt += 1) kernel();
  let best = Infinity;
  let last = NaN;
  for (let attempt = 0; attempt < repeats; attempt += 1) {
    const started = process.hrtime.bigint();
    const result = kernel();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / bars);
    last = result[bars - 1]!;
  }
  console.log(`${name} ${best.toFixed(6)} ${last}`);
}

time('SMA', () => sma(close, 20, out));
time('EMA', () => ema(close, 20, out));
time('RSI', () => rsi(close, 14, out));
time('ATR', () => atr(high, low, close, 14, out));
time('Bollinger', () => bollinger(close, 20, 2, bands).upper);
time('ROC', () => roc(close, 10, out));
