// A small pool of worker threads for reading spreadsheets (sheetWorker.ts), so parsing never
// runs on the server's event loop. Each task has a time budget: a worker that overruns it is
// stopped (the parse stops, its memory is freed) and the caller gets SheetReadTimeoutError.
// A worker is asked to exit first and terminated only if it does not within STOP_GRACE_MS:
// terminating a thread while it constructs a zlib stream (each zip entry's inflater) aborts
// the whole process in Node 20 (node_zlib.cc: `init_done_ && "close before init"`; it took
// fewer than 150 reads stopped 1 to 7 ms in), while the worker's own exit, taken between two
// steps of its read, never lands inside one (300 such stops, no abort). Each worker's heap is
// capped, so a workbook that would need more costs that worker only. The queue is bounded:
// past it, callers get SheetReaderBusyError. Workers start on demand, stay warm for a minute
// after their last task, and never keep the process alive (unref).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { TableReadError } from './sheetParsing.ts';
import type { SheetPoolMessage, SheetTask, SheetWorkerMessage } from './sheetWorker.ts';
import { UnsafeArchiveError } from './zipGuard.ts';

/** The budget overran; `seconds` is the budget, for the message. */
export class SheetReadTimeoutError extends TableReadError {
  constructor(readonly seconds: number) {
    super(
      `This spreadsheet is too large or complex to read here (it took longer than ${seconds} s). Split it into smaller files, or download it and open it in Excel.`,
    );
  }
}

/** Every worker is busy and the queue is full. */
export class SheetReaderBusyError extends TableReadError {
  constructor() {
    super('The server is busy reading other spreadsheets; try again in a moment.');
  }
}

interface SheetPoolOptions {
  size: number;
  /** Tasks waiting for a worker, at most. */
  maxQueue: number;
  /** A worker with nothing to do for this long is stopped. */
  idleMs: number;
  /** Old-generation heap of one worker, in MB. */
  heapMb: number;
}

interface Pending {
  task: SheetTask;
  /** The caller no longer needs task.data: it may be moved (detached) rather than copied. */
  handOver: boolean;
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  current: (Pending & { timer: NodeJS.Timeout }) | null;
  idleTimer: NodeJS.Timeout | null;
}

export const SHEET_WORKER_ENTRY = new URL('./sheetWorkerEntry.mjs', import.meta.url);

/** How long a worker asked to exit may take before it is terminated. */
const STOP_GRACE_MS = 2_000;

/**
 * Ends a worker: asked to exit (it does between two steps of its read), terminated only when
 * it has not within `graceMs` (a step that never yields: a long synchronous parse).
 */
export async function stopWorker(worker: Worker, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<boolean>((resolve) => {
    worker.once('exit', () => resolve(true));
    timer = setTimeout(() => resolve(false), graceMs);
  });
  worker.postMessage({ op: 'stop' } satisfies SheetPoolMessage);
  const clean = await exited;
  clearTimeout(timer);
  if (!clean) await worker.terminate();
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(ms < 1000 ? 3 : 1));

class SheetPool {
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Pending[] = [];

  constructor(private readonly options: SheetPoolOptions) {}

  /** Runs a task in a worker within `timeoutMs` (counted from when a started worker takes it). */
  run<T>(task: SheetTask, timeoutMs: number, handOver = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length >= this.options.maxQueue) {
        reject(new SheetReaderBusyError());
        return;
      }
      this.queue.push({ task, timeoutMs, handOver, resolve: resolve, reject });
      this.dispatch();
    });
  }

  /** Starts one worker ahead of the first task (loading one takes most of a second). */
  warm(): void {
    if (this.workers.size === 0) this.spawn();
  }

  /** Stops every worker; tasks still running or queued are refused. */
  async close(): Promise<void> {
    for (const pending of this.queue.splice(0)) pending.reject(new TableReadError('The server is shutting down.'));
    await Promise.all(
      [...this.workers].map((entry) => this.retire(entry, new TableReadError('The server is shutting down.'))),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = [...this.workers].find((entry) => entry.ready && !entry.current);
      if (!idle) {
        const starting = [...this.workers].filter((entry) => !entry.ready).length;
        // Start workers for waiting tasks, up to the pool size; the rest wait their turn.
        if (this.workers.size < this.options.size && starting < this.queue.length) this.spawn();
        return;
      }
      this.assign(idle, this.queue.shift()!);
    }
  }

  private assign(entry: PoolWorker, pending: Pending): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
    const timer = setTimeout(() => {
      void this.retire(entry, new SheetReadTimeoutError(seconds(pending.timeoutMs)));
      this.dispatch();
    }, pending.timeoutMs);
    entry.current = { ...pending, timer };
    // The bytes move into the worker without a structured-clone copy: the caller's own buffer
    // when it handed it over and it spans its whole ArrayBuffer, else one copy made here.
    const given = pending.task.data;
    const whole =
      pending.handOver &&
      given.byteOffset === 0 &&
      given.byteLength === given.buffer.byteLength &&
      given.buffer instanceof ArrayBuffer;
    const data = whole ? given : new Uint8Array(given);
    entry.worker.postMessage({ ...pending.task, data }, [data.buffer as ArrayBuffer]);
  }

  private spawn(): void {
    const worker = new Worker(SHEET_WORKER_ENTRY, {
      // Explicit: the parent's own flags (a test runner's, --inspect) are not the worker's business.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const entry: PoolWorker = { worker, ready: false, current: null, idleTimer: null };
    this.workers.add(entry);
    worker.on('message', (message: SheetWorkerMessage) => {
      if ('ready' in message) {
        entry.ready = true;
        this.settleIdle(entry);
        this.dispatch();
        return;
      }
      const current = entry.current;
      if (!current) return;
      clearTimeout(current.timer);
      entry.current = null;
      if (message.ok) current.resolve(message.value);
      else if (message.error.kind === 'archive') current.reject(new UnsafeArchiveError(message.error.message));
      else if (message.error.kind === 'table') current.reject(new TableReadError(message.error.message));
      else current.reject(new Error(message.error.message));
      this.settleIdle(entry);
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      // ERR_WORKER_OUT_OF_MEMORY: the workbook needed more than the worker's heap cap.
      const reason =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new TableReadError(
              'This spreadsheet is too large or complex to read here. Split it into smaller files, or download it and open it in Excel.',
            )
          : error;
      void this.retire(entry, reason);
      this.dispatch();
    });
    worker.on('exit', () => {
      if (this.workers.has(entry)) {
        void this.retire(entry, new Error('The spreadsheet reader stopped unexpectedly.'));
        this.dispatch();
      }
    });
  }

  private settleIdle(entry: PoolWorker): void {
    if (entry.current || entry.idleTimer) return;
    entry.idleTimer = setTimeout(() => void this.retire(entry, null), this.options.idleMs);
    entry.idleTimer.unref();
  }

  private async retire(entry: PoolWorker, reason: Error | null): Promise<void> {
    if (!this.workers.delete(entry)) return;
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    const current = entry.current;
    entry.current = null;
    if (current) {
      clearTimeout(current.timer);
      current.reject(reason ?? new Error('The spreadsheet reader stopped.'));
    }
    await stopWorker(entry.worker, STOP_GRACE_MS);
  }
}

const parallelism = availableParallelism();

/**
 * The server's pool. One core stays with the event loop: on a 2-core machine one worker, up
 * to 4 on larger ones. 256 MB of heap per worker is far more than a preview needs (it keeps
 * 20 rows) and enough for the assistant's 50,000-row analyses.
 */
export const sheetPool = new SheetPool({
  size: Math.max(1, Math.min(4, parallelism - 1)),
  maxQueue: 8 * Math.max(1, Math.min(4, parallelism - 1)),
  idleMs: 60_000,
  heapMb: 256,
});
