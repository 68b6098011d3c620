// Installs dependencies when node_modules is missing or older than package-lock.json.
// Plain Node with no dependencies of its own: it runs before anything is installed.
import { existsSync, statSync } from 'node:fs';
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

export function ensureDependencies() {
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
