// Entry of the PGlite thread: registers tsx's loader in this thread (Node 20 does not apply a
// worker's `--import` before its entry module), then runs the TypeScript worker.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
// A diagnostic module to run in this thread first (bench/pgliteProbe.mjs), named by the
// server's PGLITE_THREAD_PRELOAD.
const { preload } = (await import('node:worker_threads')).workerData;
if (preload) await import(pathToFileURL(resolve(preload)).href);
await import('./pgliteWorker.ts');
