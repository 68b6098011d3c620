// `npm start`: install dependencies if missing, build the web app if its build is missing or
// older than its sources, then run the server (which applies migrations before listening).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureDependencies, root, run } from './bootstrap.mjs';

const WEB_SOURCES = ['src/web', 'src/shared', 'index.html', 'vite.config.ts', 'package-lock.json'];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function webBuildIsStale() {
  const built = join(root, 'dist', 'web', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return WEB_SOURCES.some((source) => newestMtime(join(root, source)) > builtAt);
}

ensureDependencies();
if (webBuildIsStale()) {
  console.log('Building the web app...');
  const status = run('npx', ['vite', 'build', '--logLevel', 'warn']);
  if (status !== 0) process.exit(status);
}

const server = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], { cwd: root, stdio: 'inherit' });
// Ctrl-C reaches the server through the process group; this process only waits for it.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (server.exitCode === null) server.kill(signal);
  });
}
server.on('exit', (code, signal) => {
  // A clean stop prints "Stopped cleanly."; anything else says how the server ended.
  if (signal || code !== 0)
    console.error(`The server ended with ${signal ? `signal ${signal}` : `exit code ${code}`}.`);
  process.exit(code ?? (signal ? 1 : 0));
});
