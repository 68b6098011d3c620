// Installs dependencies when node_modules is missing or older than package-lock.json.
// Plain Node with no dependencies of its own: it runs before anything is installed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/**
 * Stops with a clear message when this Node is outside package.json's `engines` range
 * (`^20.19.0 || ^22.13.0 || >=24`: what the dependencies themselves admit). Plain parsing of
 * that one range form, since nothing is installed yet.
 */
export function ensureNodeVersion(version = process.versions.node) {
  const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (nodeVersionAdmitted(version, engines.node)) return;
  console.error(
    `This app needs Node.js ${engines.node} (package.json "engines"); this is Node ${version}.\n` +
      'Install a supported version (for example Node 20.19 or later 20.x, or Node 22 LTS) and run the command again.',
  );
  process.exit(1);
}

/** Whether `version` (e.g. '20.20.2') is in `range` ('^20.19.0 || ^22.13.0 || >=24'). */
export function nodeVersionAdmitted(version, range) {
  const [major, minor] = version.split('.').map(Number);
  return range.split('||').some((part) => {
    const range = part.trim();
    const caret = /^\^(\d+)\.(\d+)\.\d+$/.exec(range);
    if (caret) return major === Number(caret[1]) && minor >= Number(caret[2]);
    const atLeast = /^>=(\d+)$/.exec(range);
    if (atLeast) return major >= Number(atLeast[1]);
    return true; // a form this check does not read: let npm judge
  });
}

export function ensureDependencies() {
  ensureNodeVersion();
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && mtime(marker) >= mtime(lock)) return;
  console.log('Installing dependencies (npm ci)...');
  const status = run('npm', ['ci', '--no-audit', '--no-fund']);
  if (status !== 0) {
    console.error('npm ci failed; see the output above.');
    process.exit(status);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureDependencies();
