// A worker of sheetPool.ts: reads one spreadsheet at a time with sheetParsing.ts and posts the
// result back. It holds no state between tasks; the pool stops it when a read overruns its time
// budget (the `stop` message: it exits between two steps of the read), so a hostile workbook
// costs a worker, never the server's event loop.
import { parentPort } from 'node:worker_threads';
import { analyseFile, type FileAnalysis } from './fileAnalysis.ts';
import { readCsv, readSheetNames, readXlsx, TableReadError, type ParseLimits, type Table } from './sheetParsing.ts';
import { UnsafeArchiveError, type ZipGuardLimits } from './zipGuard.ts';

export type SheetTask =
  | { op: 'tables'; kind: 'csv' | 'xlsx'; data: Uint8Array; limits: ParseLimits }
  | { op: 'analyse'; name: string; kind: 'csv' | 'xlsx'; data: Uint8Array; limits: ParseLimits }
  | { op: 'sheetNames'; data: Uint8Array; zipLimits: ZipGuardLimits };

/** The assistant's analysis of a file, made in the worker; null when a sheet has more rows than `maxRows` (`longest` says how many). */
export interface AnalysisResult {
  longest: number;
  analysis: FileAnalysis | null;
}

export type SheetTaskError = { kind: 'table' | 'archive' | 'internal'; message: string };

/** What the pool sends: a task, or `stop` (exit now; the task under way is abandoned). */
export type SheetPoolMessage = SheetTask | { op: 'stop' };

export type SheetWorkerMessage = { ready: true } | { ok: true; value: unknown } | { ok: false; error: SheetTaskError };

const readTables = (kind: 'csv' | 'xlsx', data: Uint8Array, limits: ParseLimits): Promise<Table[]> =>
  kind === 'csv' ? Promise.resolve().then(() => readCsv(data, limits)) : readXlsx(data, limits);

async function run(task: SheetTask): Promise<unknown> {
  if (task.op === 'sheetNames') return readSheetNames(task.data, task.zipLimits);
  const tables = await readTables(task.kind, task.data, task.limits);
  if (task.op === 'tables') return tables;
  // The statistics run here too: over tens of thousands of rows they would hold the event loop.
  const longest = tables.reduce((most, table) => Math.max(most, table.totalRows), 0);
  return {
    longest,
    analysis: longest > task.limits.maxRows ? null : analyseFile(task.name, tables),
  } satisfies AnalysisResult;
}

const port = parentPort;
if (port) {
  port.on('message', (message: SheetPoolMessage) => {
    // Here, between two steps of a read, never inside one (sheetPool.ts says why it matters).
    if (message.op === 'stop') process.exit(0);
    const task = message;
    run(task).then(
      (value) => port.postMessage({ ok: true, value } satisfies SheetWorkerMessage),
      (error: unknown) => {
        const kind =
          error instanceof UnsafeArchiveError ? 'archive' : error instanceof TableReadError ? 'table' : 'internal';
        const message = error instanceof Error ? error.message : String(error);
        port.postMessage({ ok: false, error: { kind, message } } satisfies SheetWorkerMessage);
      },
    );
  });
  port.postMessage({ ready: true } satisfies SheetWorkerMessage);
}
