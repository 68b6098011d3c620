// Swing points of strength 3 (swingPoints in indicators.ts holds the definition) in WebAssembly
// SIMD, two bars to a 128-bit lane pair. Measured by bench/indicators.bench.ts: over a million
// bars it takes 0.3x to 0.46x the time of the previous JavaScript kernel, copies included, and
// 0.4x to 0.6x on 500 bars (JavaScript pays a check of the array's map, length and bounds on every
// element it reads; here the reads are plain vector loads).
//
// The module is assembled below from its instructions (a few hundred bytes, built once on first
// use), so there is no binary in the tree and no build step. WebAssembly's memory cannot see the
// caller's arrays: the bars go through it in chunks of CHUNK bars (with the 3 neighbours either
// side), small enough to stay in the core's cache between the copy in and the kernel's reads.
//
// The kernel, for each pair of bars (k, k+1) held as one vector c, with the three bars to the
// left of each as L = max(bar - 3, bar - 2, bar - 1) and the three to the right as R:
//   swing high where !(L >= c) and !(R >= c); swing low likewise with min and <=.
// R of a pair is the L of the pair four bars later, so each window maximum is computed once:
// 2 maxima, 2 comparisons and an or per pair and side. A maximum is only well defined without
// NaN (f64x2.pmax keeps its first operand when either is NaN), so the kernel also sums every
// bar it reads: a NaN anywhere makes the sum NaN and the caller redoes that chunk with the
// plain comparisons (candleSeries never hands NaN to the engine; only direct callers can).
// Comparisons and maxima pick one of their operands, so the flags are exactly those of the
// definition, ties included (a tie is not a swing: L >= c).

/** Bars per chunk, a multiple of 4 (the kernel's step): 16,384 bars are 256 KiB of highs and lows. */
export const CHUNK = 16384;
/** Below this many bars the copies and the calls cost more than the kernel saves. */
export const SIMD_MIN_BARS = 64;

// --- A minimal assembler: just the instructions the kernel uses. ---

/** Unsigned LEB128, WebAssembly's integer encoding. */
function leb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

type Code = number[];

const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_CONST = 0x41;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const LOOP = 0x03;
const BR_IF = 0x0d;
const END = 0x0b;
const EMPTY_BLOCK = 0x40;
const I32 = 0x7f;
const V128 = 0x7b;
// SIMD instructions: the prefix 0xfd, then the instruction's number in LEB128.
const V128_LOAD = 0x00;
const V128_CONST = 0x0c;
const I8X16_SHUFFLE = 0x0d;
const F64X2_NE = 0x48;
const F64X2_LE = 0x4b;
const F64X2_GE = 0x4c;
const V128_ANDNOT = 0x4f;
const V128_OR = 0x50;
const V128_ANY_TRUE = 0x53;
const V128_STORE32_LANE = 0x5a;
const F64X2_ADD = 0xf0;
const F64X2_PMIN = 0xf6;
const F64X2_PMAX = 0xf7;

const simd = (instruction: number): Code => [0xfd, ...leb(instruction)];
const get = (local: number): Code => [LOCAL_GET, local];
const set = (local: number, value: Code): Code => [...value, LOCAL_SET, local];
/** The two doubles at byte `offset` past the pointer in `local` (alignment hint 8 bytes). */
const load = (pointer: number, offset: number): Code => [LOCAL_GET, pointer, ...simd(V128_LOAD), 3, ...leb(offset)];
const binary =
  (instruction: number) =>
  (a: Code, b: Code): Code => [...a, ...b, ...simd(instruction)];
const or = binary(V128_OR);
const andNot = binary(V128_ANDNOT); // a & ~b
const add = binary(F64X2_ADD);
const increment = (local: number, by: number): Code => set(local, [...get(local), I32_CONST, ...leb(by), I32_ADD]);
/** i64x2 (1, 1). */
const ONES: Code = [...simd(V128_CONST), 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];

/**
 * fast(high, low, out, quads) -> i32: `high` and `low` point at the doubles of the bar 3 before
 * the first, `out` at the first bar's flag; 4 * quads bars are flagged. Returns 1 when any bar
 * read (the 3 either side included) is NaN, and then the flags are not to be used.
 */
function kernelBody(): Code {
  const [HIGH, LOW, OUT, QUADS] = [0, 1, 2, 3];
  // Per side, v128 locals: the left windows of the loop's two pairs (carried over from the
  // previous step's right windows), the two pairs, the window being built, a shared load, the
  // two pairs' "some neighbour reaches the bar" masks, the running sum.
  const side = (first: number) => ({
    left0: first,
    left1: first + 1,
    bars0: first + 2,
    bars1: first + 3,
    window: first + 4,
    shared: first + 5,
    reached0: first + 6,
    reached1: first + 7,
    sum: first + 8,
  });
  const highs = side(4);
  const lows = side(13);
  type Side = ReturnType<typeof side>;

  // With the pointer at bar k - 3 (byte 0), bar j sits at byte 8 * (j - k + 3); a load at byte
  // b holds the bars at b / 8 and b / 8 + 1. The window of three starting at bar j, for the pair
  // (j, j + 1), is extreme(load j, load j + 1, load j + 2).
  const prologue = (pointer: number, s: Side, extreme: (a: Code, b: Code) => Code): Code => [
    ...set(s.left0, extreme(extreme(load(pointer, 0), load(pointer, 8)), load(pointer, 16))), // bars k-3.., left of (k, k+1)
    ...set(s.left1, extreme(extreme(load(pointer, 16), load(pointer, 24)), load(pointer, 32))), // k-1.., left of (k+2, k+3)
    ...set(s.sum, add(load(pointer, 0), load(pointer, 16))), // bars k-3 .. k
  ];
  const step = (pointer: number, s: Side, extreme: (a: Code, b: Code) => Code, reaches: number): Code => {
    const reached = (neighbours: number, bars: number): Code => [...get(neighbours), ...get(bars), ...simd(reaches)];
    return [
      ...set(s.bars0, load(pointer, 24)), // (k, k+1)
      ...set(s.bars1, load(pointer, 40)), // (k+2, k+3)
      ...set(s.shared, load(pointer, 48)), // (k+3, k+4)
      ...set(s.window, extreme(extreme(load(pointer, 32), get(s.bars1)), get(s.shared))), // k+1.., right of (k, k+1)
      ...set(s.reached0, or(reached(s.left0, s.bars0), reached(s.window, s.bars0))),
      ...set(s.left0, get(s.window)), // ... and left of (k+4, k+5)
      ...set(s.window, extreme(extreme(get(s.shared), load(pointer, 56)), load(pointer, 64))), // k+3.., right of (k+2, k+3)
      ...set(s.reached1, or(reached(s.left1, s.bars1), reached(s.window, s.bars1))),
      ...set(s.left1, get(s.window)),
      ...set(s.sum, add(get(s.sum), add(get(s.bars0), get(s.bars1)))),
    ];
  };
  // Per bar, 1 for a swing high, -1 (all ones) for a swing low that is not also a high, else 0:
  // (1 & ~reachedHigh) | (reachedHigh & ~reachedLow), one i64 lane per bar.
  const flags = (reachedHigh: number, reachedLow: number): Code =>
    or(andNot(ONES, get(reachedHigh)), andNot(get(reachedHigh), get(reachedLow)));
  // The low byte of each of the four lanes, stored as the four bars' Int8 flags.
  const store = [
    ...get(OUT),
    ...flags(highs.reached0, lows.reached0),
    ...flags(highs.reached1, lows.reached1),
    ...simd(I8X16_SHUFFLE),
    ...[0, 8, 16, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ...simd(V128_STORE32_LANE),
    0,
    0,
    0,
  ];
  const isNaN = (local: number): Code => [...get(local), ...get(local), ...simd(F64X2_NE)];
  const pmax = binary(F64X2_PMAX);
  const pmin = binary(F64X2_PMIN);
  // After the loop the pointer is at (last bar + 1) - 3: the bars after the last are at 24..47.
  const epilogue = (pointer: number, s: Side): Code =>
    set(s.sum, add(get(s.sum), add(load(pointer, 24), load(pointer, 32))));
  return [
    ...leb(1), // one run of locals: 18 v128
    18,
    V128,
    ...prologue(HIGH, highs, pmax),
    ...prologue(LOW, lows, pmin),
    LOOP,
    EMPTY_BLOCK,
    ...step(HIGH, highs, pmax, F64X2_GE),
    ...step(LOW, lows, pmin, F64X2_LE),
    ...store,
    ...increment(HIGH, 32),
    ...increment(LOW, 32),
    ...increment(OUT, 4),
    ...set(QUADS, [...get(QUADS), I32_CONST, 1, I32_SUB]),
    ...get(QUADS),
    BR_IF,
    0,
    END,
    ...epilogue(HIGH, highs),
    ...epilogue(LOW, lows),
    // NaN in either sum (NaN is the one value unequal to itself) -> 1. (Not the sum of the
    // two: a +Infinity high and a -Infinity low would make that NaN.)
    ...or(isNaN(highs.sum), isNaN(lows.sum)),
    ...simd(V128_ANY_TRUE),
    END,
  ];
}

const section = (id: number, content: Code): Code => [id, ...leb(content.length), ...content];
const vector = (items: Code[]): Code => [...leb(items.length), ...items.flat()];
const name = (text: string): Code => [...leb(text.length), ...Array.from(text, (char) => char.charCodeAt(0))];

function moduleBytes(): Uint8Array {
  const body = kernelBody();
  const pages = Math.ceil(((CHUNK + 8) * 16 + CHUNK) / 65536);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0], // "\0asm", version 1
    ...section(1, vector([[0x60, 4, I32, I32, I32, I32, 1, I32]])), // type 0: (i32 x4) -> i32
    ...section(3, vector([[0]])), // function 0 has type 0
    ...section(5, vector([[0, ...leb(pages)]])), // one memory of `pages` pages, no maximum
    ...section(
      7,
      vector([
        [...name('memory'), 2, 0],
        [...name('swings'), 0, 0],
      ]),
    ),
    ...section(10, vector([[...leb(body.length), ...body]])),
  ]);
}

interface Kernel {
  swings: (high: number, low: number, out: number, quads: number) => number;
  doubles: Float64Array;
  flags: Int8Array;
}

/** The part of the WebAssembly API used here (this project's Node types do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: { memory: { buffer: ArrayBuffer }; swings: Kernel['swings'] } };
}

/** undefined: not built yet; null: WebAssembly (or its SIMD) is not available here. */
let kernel: Kernel | null | undefined;

function build(): Kernel | null {
  const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (!wasm) return null;
  try {
    const { memory, swings } = new wasm.Instance(new wasm.Module(moduleBytes())).exports;
    return { swings, doubles: new Float64Array(memory.buffer), flags: new Int8Array(memory.buffer) };
  } catch {
    return null; // no SIMD (a CompileError)
  }
}

/**
 * Flags bars 3 .. 3 + 4n - 1 of `out` (the largest n that fits before the last 3 bars) and
 * returns the first bar not flagged, for the caller to finish with its own loop. A chunk with
 * NaN is left to the caller too: `redo(from, to)` flags bars from..to - 1.
 */
export function swingPointsOfThreeSimd(
  high: Float64Array,
  low: Float64Array,
  out: Int8Array,
  redo: (from: number, to: number) => void,
): number {
  kernel ??= build();
  const end = high.length - 3;
  if (kernel === null) return 3;
  const { swings, doubles, flags } = kernel;
  const lowStart = CHUNK + 8; // in doubles
  const flagStart = 2 * lowStart * 8; // in bytes
  let first = 3;
  for (let count = Math.min(CHUNK, (end - first) & ~3); count > 0; count = Math.min(CHUNK, (end - first) & ~3)) {
    doubles.set(high.subarray(first - 3, first + count + 3), 0);
    doubles.set(low.subarray(first - 3, first + count + 3), lowStart);
    if (swings(0, lowStart * 8, flagStart, count / 4) === 0) {
      out.set(flags.subarray(flagStart, flagStart + count), first);
    } else {
      redo(first, first + count);
    }
    first += count;
  }
  return first;
}
