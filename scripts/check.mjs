// `npm run check`: the inner loop, meant to take under two minutes. Format, types and lint of
// what changed since the last commit (and untracked files), then the unit tests that depend on
// those files (vitest --changed follows the import graph). `npm test` remains the full suite.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { run } from './bootstrap.mjs';

const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).split('\n').filter(Boolean);
const changed = [
  ...new Set([...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')]),
].filter((file) => existsSync(file));
const lintable = changed.filter((file) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(file));

const steps = [
  changed.length > 0 && [
    'Format check of the changed files',
    'npx',
    ['prettier', '--check', '--ignore-unknown', '--log-level', 'warn', ...changed],
  ],
  ['Type-check (tsc -b, incremental)', 'npx', ['tsc', '-b']],
  lintable.length > 0 && [
    'Lint of the changed files (eslint --cache)',
    'npx',
    ['eslint', '--cache', '--cache-location', '.cache/eslint/', '--max-warnings=0', ...lintable],
  ],
  ['Unit tests that depend on the changes (vitest --changed)', 'npx', ['vitest', 'run', '--changed', 'HEAD']],
].filter(Boolean);

console.log(changed.length > 0 ? `${changed.length} changed file(s).` : 'Nothing changed since the last commit.');
const durations = [];
for (const [title, command, args] of steps) {
  console.log(`\n▶ ${title}`);
  const started = Date.now();
  const status = run(command, args);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  durations.push(`${seconds.padStart(7)} s  ${title}`);
  if (status !== 0) {
    console.error(`\n✖ ${title} failed (exit ${status}, ${seconds} s).`);
    process.exit(status);
  }
}
console.log(`\nChecks passed:\n${durations.join('\n')}`);
