// A worker of sheetPool.ts: reads one spreadsheet at a time with sheetParsing.ts and posts the
// result back. It holds no state between tasks; the pool terminates it when a read overruns
// its time budget, so a hostile workbook costs a worker, never the server's event loop.
import { parentPort } from 'node:worker_threads';
import { readCsv, readSheetNames, readXlsx, TableReadError, type ParseLimits } from './sheetParsing.ts';
import { UnsafeArchiveError, type ZipGuardLimits } from './zipGuard.ts';

export type SheetTask =
  | { op: 'tables'; kind: 'csv' | 'xlsx'; data: Uint8Array; limits: ParseLimits }
  | { op: 'sheetNames'; data: Uint8Array; zipLimits: ZipGuardLimits };

export type SheetTaskError = { kind: 'table' | 'archive' | 'internal'; message: string };

export type SheetWorkerMessage = { ready: true } | { ok: true; value: unknown } | { ok: false; error: SheetTaskError };

async function run(task: SheetTask): Promise<unknown> {
  if (task.op === 'sheetNames') return readSheetNames(task.data, task.zipLimits);
  return task.kind === 'csv' ? readCsv(task.data, task.limits) : readXlsx(task.data, task.limits);
}

const port = parentPort;
if (port) {
  port.on('message', (task: SheetTask) => {
    run(task).then(
      (value) => port.postMessage({ ok: true, value } satisfies SheetWorkerMessage),
      (error: unknown) => {
        const kind = error instanceof UnsafeArchiveError ? 'archive' : error instanceof TableReadError ? 'table' : 'internal';
        const message = error instanceof Error ? error.message : String(error);
        port.postMessage({ ok: false, error: { kind, message } } satisfies SheetWorkerMessage);
      },
    );
  });
  port.postMessage({ ready: true } satisfies SheetWorkerMessage);
}
