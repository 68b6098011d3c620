// What the benches share: the port a listening Fastify server got, a watchdog that ends a bench
// which runs far past its expected time instead of hanging the run, and the web build the
// real-server benches serve.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** The TCP port a listening Fastify server was given. */
export function portOf(server: FastifyInstance): number {
  const address = server.server.address();
  if (typeof address !== 'object' || !address) throw new Error('Server has no TCP address');
  return address.port;
}

/** Exits the process with an error after `ms` (cleaning up first); the timer does not keep it alive. */
export function stopAfter(bench: string, ms: number, cleanUp: () => void = () => undefined): void {
  const watchdog = setTimeout(() => {
    console.error(`${bench} bench still running after ${ms / 1000} s: stopping.`);
    cleanUp();
    process.exit(1);
  }, ms);
  watchdog.unref();
}

/** Builds the web app (`npx vite build`) when `webRoot` (default dist/web) holds no index.html. */
export function ensureWebBuild(webRoot = join(process.cwd(), 'dist', 'web')): void {
  if (existsSync(join(webRoot, 'index.html'))) return;
  console.log('No dist/web: building the web app (npx vite build)...');
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status ?? build.signal})`);
}
