// `npm run bench`: runs every bench/*.bench.ts in its own Node process, one after another,
// so one benchmark's garbage and JIT state never colour the next one's figures.
// `npm run bench -- NAME` runs the bench called NAME, or when none is, every file whose name
// contains NAME.
// Each bench states its headline figures through bench/report.ts, which appends them to the
// file named by BENCH_RESULTS; after the last bench this prints one summary table over all of
// them. Exit code: non-zero when a bench process failed or a figure missed its target (the
// whole table is printed first).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_NAME_ENV, formatPass, formatRatio, RESULTS_ENV, type BenchResult } from './report.ts';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort();
// A bench named exactly runs alone (`load` is also part of `upload`'s name).
const exact = benches.filter((name) => name === `${filter}.bench.ts`);
const files = exact.length > 0 ? exact : benches.filter((name) => name.includes(filter));

if (files.length === 0) {
  console.error(`No benchmark matches "${filter}".`);
  process.exit(1);
}

const resultsDir = mkdtempSync(join(tmpdir(), 'watos-bench-'));
const resultsFile = join(resultsDir, 'results.jsonl');
const crashed = new Map<string, string>();
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, '');
  console.log(`\n=== ${file} ===`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, file)], {
    stdio: 'inherit',
    env: { ...process.env, [RESULTS_ENV]: resultsFile, [BENCH_NAME_ENV]: name },
  });
  if (run.status !== 0) {
    const how = `exited with ${run.status ?? run.signal}`;
    crashed.set(name, how);
    console.error(`${file} ${how}`);
  }
}

let results: BenchResult[] = [];
try {
  results = readFileSync(resultsFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BenchResult);
} catch {
  // No bench reported anything: the table then lists each bench with its status only.
}
rmSync(resultsDir, { recursive: true, force: true });

const header = ['bench', 'figure', 'target', 'measured', 'peer (same run)', 'ratio', 'result'];
const rows: string[][] = [];
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, '');
  const own = results.filter((result) => result.bench === name);
  for (const result of own) {
    rows.push([
      name,
      result.figure,
      result.target,
      result.measured,
      result.peer,
      formatRatio(result.ratio),
      formatPass(result.pass),
    ]);
  }
  const crash = crashed.get(name);
  if (crash) rows.push([name, '(bench process)', 'runs to the end', crash, '-', '-', 'CRASH']);
  else if (own.length === 0)
    rows.push([name, '(no figures reported through bench/report.ts)', '-', '-', '-', '-', 'info']);
}

const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
const line = (cells: string[]) =>
  cells
    .map((cell, column) => cell.padEnd(widths[column]!))
    .join(' | ')
    .trimEnd();
console.log('\n=== Summary (ratio = measured / peer) ===');
console.log(line(header));
console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
for (const row of rows) console.log(line(row));

const missed = results.filter((result) => result.pass === false).length;
const met = results.filter((result) => result.pass === true).length;
console.log(`\n${met} target(s) met, ${missed} missed, ${crashed.size} bench process(es) failed.`);
process.exit(crashed.size === 0 && missed === 0 ? 0 : 1);
