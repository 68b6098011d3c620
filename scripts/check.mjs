// `npm run check`: the inner loop, meant to take under two minutes. Format, types and lint of
// what changed since the last commit (and untracked files), side by side, then the unit tests of
// what changed: the changed test files and every test file that imports a changed file directly.
// `npm run check -- --deep` runs every test that depends on the changes through the whole import
// graph instead (vitest --changed); `npm test` remains the full suite.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { root, run } from './bootstrap.mjs';

const deep = process.argv.includes('--deep');
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const changed = [
  ...new Set([...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')]),
].filter((file) => existsSync(join(root, file)));
const lintable = changed.filter((file) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(file));

/** Test files that import one of `files` by a relative specifier, plus the changed tests themselves. */
function directTests(files, testFiles, read = (file) => readFileSync(join(root, file), 'utf8')) {
  const wanted = new Set(files.map((file) => resolve(root, file)));
  const importPattern = /(?:from|import|vi\.mock)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  return testFiles.filter((test) => {
    if (wanted.has(resolve(root, test))) return true;
    for (const match of read(test).matchAll(importPattern)) {
      const target = resolve(root, dirname(test), match[1]);
      if (wanted.has(target) || wanted.has(`${target}.ts`) || wanted.has(`${target}.tsx`)) return true;
    }
    return false;
  });
}

/** Runs the commands side by side with their output held, printed in order when each ends. */
function sideBySide(steps) {
  return Promise.all(
    steps.map(
      ([title, command, args]) =>
        new Promise((done) => {
          const started = Date.now();
          const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('close', (status) => {
            const seconds = (Date.now() - started) / 1000;
            console.log(`\n▶ ${title} (${seconds.toFixed(1)} s)${output.trim() ? `\n${output.trimEnd()}` : ''}`);
            done({ title, status: status ?? 1, seconds });
          });
        }),
    ),
  );
}

async function main() {
  console.log(changed.length > 0 ? `${changed.length} changed file(s).` : 'Nothing changed since the last commit.');
  const statics = [
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
  ].filter(Boolean);
  const results = await sideBySide(statics);

  let testTitle;
  let testArgs;
  if (deep) {
    testTitle = 'Unit tests that depend on the changes (vitest --changed)';
    testArgs = ['vitest', 'run', '--changed', 'HEAD'];
  } else {
    const tests = directTests(
      lintable,
      git('ls-files', '--cached', '--others', '--exclude-standard', '*.test.ts', '*.test.tsx'),
    );
    testTitle = `Unit tests of the changed files (${tests.length} file(s) that import them directly)`;
    testArgs = tests.length > 0 ? ['vitest', 'run', ...tests.map((test) => relative(root, resolve(root, test)))] : null;
  }
  if (testArgs) {
    console.log(`\n▶ ${testTitle}`);
    const started = Date.now();
    const status = run('npx', testArgs);
    results.push({ title: testTitle, status, seconds: (Date.now() - started) / 1000 });
  } else {
    console.log(`\nNo test file imports the changed files directly (npm run check -- --deep follows the whole graph).`);
  }

  console.log('\nDurations:');
  for (const { title, status, seconds } of results)
    console.log(`${seconds.toFixed(1).padStart(7)} s  ${status === 0 ? 'ok    ' : 'FAILED'}  ${title}`);
  const failed = results.filter((result) => result.status !== 0);
  if (failed.length > 0) {
    console.error(`\n✖ ${failed.map((result) => result.title).join('; ')} failed.`);
    process.exit(1);
  }
  console.log('\nChecks passed.');
}

await main();
