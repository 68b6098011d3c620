// What the in-process HTTP benches share: the port a listening Fastify server got, and a
// watchdog that ends a bench which runs far past its expected time instead of hanging the run.
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
