// Entry of a spreadsheet worker thread (sheetPool.ts). A worker does not inherit the
// TypeScript loader the server runs under (node --import tsx) nor vitest's, so it registers
// tsx itself, then loads the worker written in TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./sheetWorker.ts');
