// Preloaded by bench/load.bench.ts into the server it starts (`node --expose-gc --import tsx
// --import ./bench/serverMemoryProbe.ts src/server/main.ts`): on SIGURG it runs a full
// garbage collection and prints the memory left after it as one marked line on stdout, so the
// bench compares memory that is still held (a leak) rather than garbage not yet collected.
// SIGURG, whose default is to do nothing: a server started without the probe is not ended by
// it, as it would be by SIGUSR2. It measures nothing by itself and the app never loads it.
export const MEMORY_PROBE_MARKER = 'LOAD_BENCH_MEMORY';

export interface MemoryReading {
  rss: number;
  heapUsed: number;
  external: number;
}

process.on('SIGURG', () => {
  const collect = (globalThis as { gc?: () => void }).gc;
  // Twice: the first pass can leave objects that only the second finds unreachable.
  collect?.();
  collect?.();
  const { rss, heapUsed, external } = process.memoryUsage();
  const reading: MemoryReading = { rss, heapUsed, external };
  process.stdout.write(`${MEMORY_PROBE_MARKER} ${JSON.stringify(reading)}\n`);
});
