// Entry of a backtest worker thread (backtestPool.ts, run by piscina). A worker does not
// inherit the TypeScript loader the server runs under (node --import tsx) nor vitest's, so it
// registers tsx itself, then hands piscina the worker written in TypeScript.
import { register } from 'tsx/esm/api';

register();
const { default: runBacktest } = await import('./backtestWorker.ts');
export default runBacktest;
