// Stopping a spreadsheet worker: a read that overruns its budget ends by the worker's own exit
// between two steps of its read (terminating it mid-step can abort the whole process: see
// sheetPool.ts), and only a worker that never yields is terminated, after the grace period.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigWorkbook, type BigWorkbook } from '../testing/bigWorkbook.ts';
import { SHEET_WORKER_ENTRY, stopWorker } from './sheetPool.ts';
import { parseLimits } from './tableReader.ts';
import type { SheetPoolMessage, SheetWorkerMessage } from './sheetWorker.ts';

async function readyWorker(): Promise<Worker> {
  const worker = new Worker(SHEET_WORKER_ENTRY, { execArgv: [], stdout: false, stderr: false });
  const [message] = (await once(worker, 'message')) as [SheetWorkerMessage];
  expect(message).toEqual({ ready: true });
  return worker;
}

describe('stopping a spreadsheet worker', () => {
  let big: BigWorkbook;
  beforeAll(async () => {
    big = await bigWorkbook({ sheetBytes: 30 * 1024 * 1024, level: 1 });
  }, 120_000);
  const workers: Worker[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.terminate()));
  });

  it('ends a worker in the middle of a read by its own exit, not by terminating it', async () => {
    const worker = await readyWorker();
    workers.push(worker);
    const exit = once(worker, 'exit') as Promise<[number]>;
    const task: SheetPoolMessage = { op: 'tables', kind: 'xlsx', data: big.data, limits: parseLimits({ maxRows: 20 }) };
    worker.postMessage(task);
    // Well inside the read: it takes seconds for this workbook.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const startedAt = Date.now();
    await stopWorker(worker, 10_000);
    // process.exit(0) in the worker; a terminated worker exits with 1.
    expect((await exit)[0]).toBe(0);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it('terminates a worker that never yields once the grace period is over', async () => {
    const stuck = new Worker('while (true) {}', { eval: true });
    workers.push(stuck);
    await once(stuck, 'online');
    const exit = once(stuck, 'exit') as Promise<[number]>;
    const startedAt = Date.now();
    await stopWorker(stuck, 300);
    expect((await exit)[0]).toBe(1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
  });
});
