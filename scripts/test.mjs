// `npm test`: install dependencies if missing, make sure Debian's Chromium is there, then
// check that every dependency runs on the Node versions engines.node admits (scripts/checkEngines.mjs),
// check formatting (Prettier), type-check, lint (with import boundaries), import cycles
// (scripts/checkCycles.mjs), unit and server tests, build, the landing route's JS budget
// (scripts/bundleBudget.mjs), and the Playwright journeys in a real browser. Stops at the
// first failing step with a non-zero exit code.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureDependencies, root, run } from './bootstrap.mjs';

/**
 * Debian packages the suite runs against, each known by a file it installs: Chromium for the
 * browser journeys, and aiosmtpd, the real SMTP server the mail tests deliver to.
 */
const DEBIAN_PACKAGES = [
  ['chromium', '/usr/bin/chromium'],
  ['python3-aiosmtpd', '/usr/lib/python3/dist-packages/aiosmtpd'],
];

function ensureDebianPackages() {
  const missing = DEBIAN_PACKAGES.filter(([, path]) => !existsSync(path)).map(([name]) => name);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    console.error(
      `The tests need Debian's ${missing.join(' and ')}.\n` +
        `Install with:  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}\n` +
        'then run npm test again.',
    );
    process.exit(1);
  }
  console.log(`Installing ${missing.join(', ')} (apt-get install)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (
    run('apt-get', ['update', '-qq'], { env }) !== 0 ||
    run('apt-get', ['install', '-y', '-qq', ...missing], { env }) !== 0
  ) {
    console.error('Installing them failed; see the output above.');
    process.exit(1);
  }
}

// Steps in order; the static checks in one group run side by side (each is one process on one
// core; their output is held and printed whole when each ends), the rest one after another,
// except the fresh clone's `npm start`, which runs beside the journeys.
const staticChecks = [
  [
    'Engines (every locked package runs on the Node versions package.json admits)',
    process.execPath,
    ['scripts/checkEngines.mjs'],
  ],
  ['Documentation links (README.md, docs/)', process.execPath, ['scripts/checkDocLinks.mjs']],
  ['Format check (prettier --check)', 'npx', ['prettier', '--check', '.', '--log-level', 'warn']],
  ['Type-check (tsc -b: web, server, tools projects)', 'npx', ['tsc', '-b']],
  ['Lint (eslint, import boundaries)', 'npx', ['eslint', '.', '--max-warnings=0']],
  ['Import cycles (scripts/checkCycles.mjs)', process.execPath, ['scripts/checkCycles.mjs']],
];
const steps = [
  staticChecks,
  ['Unit and server tests (vitest)', 'npx', ['vitest', 'run', '--project', 'server', '--project', 'web']],
  ['Build the web app (vite build)', 'npx', ['vite', 'build', '--logLevel', 'warn']],
  ['Bundle budget', process.execPath, ['scripts/bundleBudget.mjs']],
  {
    // The journeys' one browser and the server leave part of 2 cores idle; the fresh clone's
    // `npm start` (an install from npm's cache, a build, two starts and two Ctrl-Cs on its own
    // port and data directory) fills it, with its output held and printed when it ends.
    live: ['End-to-end journeys (playwright, Chromium)', 'npx', ['playwright', 'test']],
    beside: [
      'npm start on a fresh clone (vitest, beside the journeys)',
      'npx',
      ['vitest', 'run', '--project', 'start'],
    ],
  },
];

/** Runs one step with its output shown as it comes; resolves to its exit status. */
function runLive(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (status) => resolve(status ?? 1));
  });
}

/** Runs one step with its output held back; resolves to its exit status and output. */
function runHeld(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ status: 1, output: Buffer.from(String(error)) }));
    child.on('close', (status) => resolve({ status: status ?? 1, output: Buffer.concat(output) }));
  });
}

const durations = [];
const suiteStarted = Date.now();

/** Records a step's duration; stops the suite (with the durations so far) if it failed. */
function finish(title, status, seconds) {
  durations.push([title, seconds]);
  if (status !== 0) {
    console.error(`\n✖ ${title} failed (exit ${status}, ${seconds} s).`);
    printDurations();
    process.exit(status);
  }
  console.log(`✔ ${title} (${seconds} s)`);
}

function printDurations() {
  console.log('\nStep durations:');
  for (const [title, seconds] of durations) console.log(`${seconds.padStart(8)} s  ${title}`);
  console.log(`${((Date.now() - suiteStarted) / 1000).toFixed(1).padStart(8)} s  in all`);
}

ensureDependencies();
ensureDebianPackages();
if (process.env.TEST_DATABASE_URL)
  console.log(`Database tests also run on PostgreSQL (${process.env.TEST_DATABASE_URL}).`);
if (process.env.TEST_REDIS_URL) console.log(`Redis paths are tested against ${process.env.TEST_REDIS_URL}.`);

for (const step of steps) {
  if (Array.isArray(step[0])) {
    console.log(`\n▶ Static checks, side by side: ${step.map(([title]) => title.split(' (')[0]).join(', ')}`);
    const started = Date.now();
    const results = await Promise.all(
      step.map(async ([title, command, args]) => {
        const result = await runHeld(command, args);
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        console.log(`\n▶ ${title}`);
        process.stdout.write(result.output);
        return { title, status: result.status, seconds };
      }),
    );
    for (const { title, status, seconds } of results) finish(title, status, seconds);
    continue;
  }
  if (!Array.isArray(step)) {
    const [liveTitle, liveCommand, liveArgs] = step.live;
    const [besideTitle, besideCommand, besideArgs] = step.beside;
    console.log(`\n▶ ${liveTitle}, and beside it (output when it ends): ${besideTitle}`);
    const started = Date.now();
    const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
    const beside = runHeld(besideCommand, besideArgs).then((result) => {
      const took = seconds();
      console.log(`\n▶ ${besideTitle} ended (${took} s):`);
      process.stdout.write(result.output);
      return { ...result, seconds: took };
    });
    const liveStatus = await runLive(liveCommand, liveArgs);
    const liveSeconds = seconds();
    const besideResult = await beside;
    finish(besideTitle, besideResult.status, besideResult.seconds);
    finish(liveTitle, liveStatus, liveSeconds);
    continue;
  }
  const [title, command, args] = step;
  console.log(`\n▶ ${title}`);
  const started = Date.now();
  const status = run(command, args);
  finish(title, status, ((Date.now() - started) / 1000).toFixed(1));
}
printDurations();
console.log('\nAll test steps passed.');
