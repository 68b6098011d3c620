// The embedded PGlite on a thread of its own (pgliteWorker.ts), reached through node-postgres:
// each pool connection's socket is a stream over the thread's message port carrying the
// PostgreSQL wire protocol. The server's event loop then spends nothing on query execution or
// the database's file I/O (before, PGlite ran on it and took about 40% of its time under load),
// and the app talks to the embedded database exactly as to PostgreSQL.
import { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { readyStatus, type FromPglite, type ToPglite } from './pgliteProtocol.ts';

/** Connections in the pool: enough that a query waits at the database, not behind a round trip. */
export const PGLITE_CONNECTIONS = 4;

export interface PgliteThread {
  pool: pg.Pool;
  /** The database's thread. */
  worker: Worker;
  /** Ends the pool, then closes PGlite (its files complete on disk) and the thread. */
  close(): Promise<void>;
}

/** One connection's socket: writes go to the PGlite thread, its answers come back as reads. */
class ChannelSocket extends Duplex {
  private outgoing: Buffer[] = [];
  private flushing = false;
  /** Sent something the thread has not finished answering (no ReadyForQuery yet). */
  private waiting = false;

  constructor(
    private readonly id: number,
    /** Sends to the thread; the thread's failure once it has failed. */
    private readonly post: (message: ToPglite, transfer?: ArrayBuffer[]) => Error | null,
    private readonly sockets: Map<number, ChannelSocket>,
    /** Told when this connection starts and stops waiting for the thread. */
    private readonly onWaiting: (delta: 1 | -1) => void,
  ) {
    super();
  }

  private setWaiting(waiting: boolean): void {
    if (waiting === this.waiting) return;
    this.waiting = waiting;
    this.onWaiting(waiting ? 1 : -1);
  }

  connect(): this {
    this.sockets.set(this.id, this);
    const failure = this.post({ op: 'open', id: this.id });
    process.nextTick(() => (failure ? this.fail(failure) : this.emit('connect')));
    return this;
  }

  // What node-postgres calls on a net.Socket; nothing to set on a message channel.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // node-postgres writes an extended query as five messages in one go: they travel as one.
    this.outgoing.push(chunk);
    if (!this.flushing) {
      this.flushing = true;
      queueMicrotask(() => this.flush());
    }
    callback();
  }

  private flush(): void {
    this.flushing = false;
    if (this.outgoing.length === 0) return;
    const bytes = Uint8Array.from(this.outgoing.length === 1 ? this.outgoing[0]! : Buffer.concat(this.outgoing));
    this.outgoing = [];
    // A Terminate alone expects no answer.
    if (!(bytes.length === 5 && bytes[0] === 0x58)) this.setWaiting(true);
    const failure = this.post({ op: 'data', id: this.id, bytes }, [bytes.buffer]);
    if (failure) this.fail(failure);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush();
    // The client is done: so is this side (node-postgres waits for the socket's close).
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.setWaiting(false);
    if (this.sockets.delete(this.id)) this.post({ op: 'close', id: this.id });
    callback(error);
  }

  /** An answer from the thread. */
  receive(bytes: Uint8Array): void {
    if (readyStatus([bytes]) !== null) this.setWaiting(false);
    this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  /** The thread or the connection failed: node-postgres sees a socket error and drops the connection. */
  fail(error: Error): void {
    this.destroy(error);
  }

  /** The other side ended (the thread closed). */
  ended(): void {
    this.push(null);
    this.destroy();
  }
}

/**
 * Starts PGlite on its own thread (in `dataDir`, or in memory) and a pool onto it. An in-memory
 * PGlite starts from `snapshot`, a file of `dumpDataDir('none')`, when one is given.
 */
export async function startPgliteThread(
  dataDir: string | null,
  connections = PGLITE_CONNECTIONS,
  snapshot: string | null = null,
): Promise<PgliteThread> {
  const worker = new Worker(new URL('./pgliteWorkerBoot.mjs', import.meta.url), {
    workerData: { dataDir, snapshot, preload: process.env.PGLITE_THREAD_PRELOAD ?? null },
    // Not the server's own flags (its preloads are TypeScript the thread cannot load before its
    // entry has registered tsx), except a profiler's, so a profile covers the database too.
    execArgv: process.execArgv.filter((arg) => /^--(cpu|heap)-prof/.test(arg)),
  });
  const sockets = new Map<number, ChannelSocket>();
  let nextId = 1;
  let closed: (() => void) | null = null;
  let failure: Error | null = null;

  const failAll = (error: Error) => {
    failure ??= error;
    for (const socket of [...sockets.values()]) socket.fail(error);
  };

  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: FromPglite) => {
      if (message.op === 'ready') {
        cleanup();
        resolve();
      } else if (message.op === 'failed') {
        cleanup();
        void worker.terminate();
        reject(new Error(`PGlite could not start: ${message.message}`));
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`the PGlite thread exited (${code}) before it was ready`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });

  worker.on('message', (message: FromPglite) => {
    if (message.op === 'data') sockets.get(message.id)?.receive(message.bytes);
    else if (message.op === 'error') sockets.get(message.id)?.fail(new Error(message.message));
    else if (message.op === 'failed') failAll(new Error(message.message));
    else if (message.op === 'closed') closed?.();
  });
  worker.on('error', (error) => failAll(error));
  let closing = false;
  worker.on('exit', (code) => {
    if (!closing) process.stderr.write(`the database thread stopped (exit code ${code}): queries fail from now on\n`);
    failAll(new Error(`the PGlite thread exited (${code})`));
    closed?.();
  });

  // Like a socket: the thread keeps the process alive while a query waits for it, not when idle
  // (a script that forgot to close the database still ends). Once a close has begun, it keeps it
  // alive until PGlite has closed: a last query answered meanwhile must not let the process end
  // halfway through the close (silently, with exit code 0, its files not complete).
  let waiting = 0;
  const onWaiting = (delta: 1 | -1) => {
    waiting += delta;
    if (waiting === 0 && !closing) worker.unref();
    else if (waiting === 1 && delta === 1) worker.ref();
  };
  worker.unref();

  const post = (message: ToPglite, transfer?: ArrayBuffer[]): Error | null => {
    if (!failure) worker.postMessage(message, transfer);
    return failure;
  };
  const pool = new pg.Pool({
    max: connections,
    // PGlite's one database and user (an empty name, node-postgres's default without one, ends its backend).
    user: 'postgres',
    database: 'postgres',
    // No idle timeout: a connection here is a map entry, not a socket.
    idleTimeoutMillis: 0,
    stream: () => new ChannelSocket(nextId++, post, sockets, onWaiting),
  });
  // An idle connection ends only with the thread, already reported above; the queries say so too.
  pool.on('error', () => undefined);

  return {
    pool,
    worker,
    async close() {
      if (closing) return;
      closing = true;
      // Not awaited: a connection still checked out (a listener, a query in flight) would hold
      // it for ever. The idle ones say goodbye now; later queries are refused by the pool.
      pool.end().catch(() => undefined);
      if (!failure) {
        worker.ref();
        // The thread finishes the statement it is running, then closes PGlite (its files complete).
        await new Promise<void>((resolve) => {
          closed = resolve;
          worker.postMessage({ op: 'shutdown' } satisfies ToPglite);
        });
      }
      // Whatever was still waiting gets a closed connection, not silence.
      for (const socket of [...sockets.values()]) socket.ended();
      await worker.terminate();
    },
  };
}
