// The one way a benchmark states a headline figure for the summary table of `npm run bench`.
// It measures nothing itself: a bench calls report() once a figure (with the peer it was
// compared against in the same run), the line is printed at once, and, when bench/run.ts
// started the process, it is also appended as one JSON line to the file named by
// BENCH_RESULTS. run.ts reads that file after every bench has finished and prints the table.
//
// Adopting it in a new bench/NAME.bench.ts:
//
//   import { report } from './report.ts';
//   report({
//     figure: 'GET /external-api/coinbase-prices req/s', // what was measured
//     target: '>= 60% of hello-world',                   // the target, as a reader checks it
//     measured: '12,345 req/s',                          // our figure, with its unit
//     peer: 'hello-world 20,000 req/s',                   // the peer, measured in the same run
//     ratio: 12345 / 20000,                              // measured / peer (null: no peer)
//     pass: 12345 / 20000 >= 0.6,                        // null: informational, no target
//   });
//
// A missed target must be reported as pass: false (never tune a target to pass): the table
// prints FAIL and `npm run bench` exits non-zero after printing everything.
import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Environment variable naming the JSON-lines file run.ts collects figures from. */
export const RESULTS_ENV = 'BENCH_RESULTS';
/** Environment variable run.ts sets to the bench's name (file name without .bench.ts). */
export const BENCH_NAME_ENV = 'BENCH_NAME';

export interface BenchFigure {
  /** What was measured, in a few words (e.g. 'SMA(20) ns/bar', "'/' gzipped JS"). */
  figure: string;
  /** The target in words (e.g. '< 10 ms', '>= 95'); '-' when there is none. */
  target: string;
  /** Our figure, formatted with its unit. */
  measured: string;
  /** The peer's figure from the same run, with the peer's name; '-' when there is none. */
  peer: string;
  /** measured / peer (so < 1 means smaller than the peer); null when there is no peer. */
  ratio: number | null;
  /** true: target met; false: target missed; null: informational (no target). */
  pass: boolean | null;
}

/** One line of the results file: the figure and the bench that reported it. */
export interface BenchResult extends BenchFigure {
  bench: string;
}

function benchName(): string {
  const fromRunner = process.env[BENCH_NAME_ENV];
  if (fromRunner) return fromRunner;
  return basename(process.argv[1] ?? 'bench').replace(/\.bench\.ts$/, '');
}

export function formatRatio(ratio: number | null): string {
  return ratio === null || !Number.isFinite(ratio) ? '-' : `${ratio.toFixed(2)}x`;
}

export function formatPass(pass: boolean | null): string {
  return pass === null ? 'info' : pass ? 'PASS' : 'FAIL';
}

/** Prints the figure and records it for the summary table of bench/run.ts. */
export function report(figure: BenchFigure): void {
  const result: BenchResult = { bench: benchName(), ...figure };
  console.log(
    `[report] ${result.figure}: ${result.measured} (target ${result.target}; peer ${result.peer}; ratio ${formatRatio(result.ratio)}) ${formatPass(result.pass)}`,
  );
  const file = process.env[RESULTS_ENV];
  if (file) appendFileSync(file, `${JSON.stringify(result)}\n`);
}

/** The value at `share` (0.95 for p95) of the sorted values: nearest rank; NaN when empty. */
export function percentile(values: number[], share: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}
