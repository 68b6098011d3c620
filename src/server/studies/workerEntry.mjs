// Entry of a study worker thread (pool.ts, run by piscina). A worker does not inherit the
// TypeScript loader the server runs under (node --import tsx) nor vitest's, so it registers
// tsx itself, then hands piscina the worker written in TypeScript.
import { register } from 'tsx/esm/api';

register();
const { default: runStudyTask } = await import('./worker.ts');
export default runStudyTask;
