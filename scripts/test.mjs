// `npm test`: install dependencies if missing, make sure Debian's Chromium is there, then
// check that every dependency runs on the Node versions engines.node admits (scripts/checkEngines.mjs),
// check formatting (Prettier), type-check, lint (with import boundaries), import cycles
// (scripts/checkCycles.mjs), unit and server tests, build, the landing route's JS budget
// (scripts/bundleBudget.mjs), and the Playwright journeys in a real browser. Stops at the
// first failing step with a non-zero exit code.
import { existsSync } from 'node:fs';
import { ensureDependencies, run } from './bootstrap.mjs';

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

const steps = [
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
  ['Unit and server tests (vitest)', 'npx', ['vitest', 'run']],
  ['Build the web app (vite build)', 'npx', ['vite', 'build', '--logLevel', 'warn']],
  ['Bundle budget', process.execPath, ['scripts/bundleBudget.mjs']],
  ['End-to-end journeys (playwright, Chromium)', 'npx', ['playwright', 'test']],
];

ensureDependencies();
ensureDebianPackages();
if (process.env.TEST_DATABASE_URL)
  console.log(`Database tests also run on PostgreSQL (${process.env.TEST_DATABASE_URL}).`);
if (process.env.TEST_REDIS_URL) console.log(`Redis paths are tested against ${process.env.TEST_REDIS_URL}.`);

for (const [title, command, args] of steps) {
  console.log(`\n▶ ${title}`);
  const started = Date.now();
  const status = run(command, args);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (status !== 0) {
    console.error(`\n✖ ${title} failed (exit ${status}, ${seconds} s).`);
    process.exit(status);
  }
  console.log(`✔ ${title} (${seconds} s)`);
}
console.log('\nAll test steps passed.');
