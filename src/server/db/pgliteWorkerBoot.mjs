// Entry of the PGlite thread: registers tsx's loader in this thread (Node 20 does not apply a
// worker's `--import` before its entry module), then runs the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./pgliteWorker.ts');
