// The embedded database's own thread: PGlite (Postgres compiled to WebAssembly) runs here, so
// its query execution and file I/O use a core of their own instead of the server's event loop.
// The server talks to it as to any PostgreSQL: node-postgres connections whose socket is a
// message channel to this thread (pgliteThread.ts), carrying the PostgreSQL wire protocol,
// which PGlite's backend speaks itself (execProtocolRawStream).
//
// PGlite is one backend, so the connections take turns: the messages of one connection run as
// one batch, and a connection inside a transaction (or between an extended query's Parse and
// its Sync) keeps the backend until its ReadyForQuery says idle again; the others wait.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import {
  completeFrames,
  isStartupFrame,
  readyStatus,
  SSL_REQUEST_REFUSED,
  type FromPglite,
  type ToPglite,
} from './pgliteProtocol.ts';

interface Connection {
  /** Received bytes not yet a whole message. */
  pending: Buffer;
  started: boolean;
  /** Whole messages waiting for the backend. */
  queued: Buffer[];
}

const port = parentPort!;
const { dataDir, snapshot } = workerData as { dataDir: string | null; snapshot: string | null };
const connections = new Map<number, Connection>();
/** Connections with queued messages, in arrival order. */
const ready: number[] = [];
/** The connection whose transaction or unfinished extended query holds the backend. */
let owner: number | null = null;
let running = false;
let stopping = false;
let closing = false;

const send = (message: FromPglite, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

/** Sends an answer; `chunks` are this thread's own copies, handed over without another. */
function sendBytes(id: number, chunks: Uint8Array[]): void {
  if (chunks.length === 0) return;
  let bytes = chunks[0]!;
  if (chunks.length > 1) {
    bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
  }
  send({ op: 'data', id, bytes }, [bytes.buffer as ArrayBuffer]);
}

async function main(): Promise<void> {
  let db: PGlite;
  try {
    // An in-memory database may start from a dump of a data directory (a migrated template, in
    // tests) instead of running initdb: several times faster.
    db = await PGlite.create(
      dataDir ? { dataDir } : snapshot ? { loadDataDir: new Blob([readFileSync(snapshot)]) } : {},
    );
  } catch (error) {
    send({ op: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }

  /** Connections gone while they held the backend: what they left open is ended first. */
  const releasing = new Set<number>();

  /** Ends whatever the owning connection left open (an extended query, a transaction), so the others can go on. */
  async function endOwnersWork(): Promise<void> {
    owner = null;
    try {
      await db.execProtocolRaw(Buffer.from([0x53, 0, 0, 0, 4])); // Sync: ends an extended query
      if (db.isInTransaction()) await db.exec('ROLLBACK');
    } catch {
      // The backend answers the next connection's messages regardless.
    }
  }

  /** The one loop that uses the backend: releases, then batches, one at a time; then a shutdown. */
  async function run(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (;;) {
        if (releasing.size > 0) {
          for (const id of [...releasing]) {
            releasing.delete(id);
            if (owner === id) await endOwnersWork();
          }
          continue;
        }
        if (stopping) break;
        const index = owner === null ? 0 : ready.indexOf(owner);
        if (index < 0 || ready.length === 0) break;
        // index is 0 of a non-empty list or indexOf's answer: always in range.
        const id = ready.splice(index, 1)[0]!;
        const connection = connections.get(id);
        if (!connection || connection.queued.length === 0) continue;
        const batch = connection.queued.length === 1 ? connection.queued[0]! : Buffer.concat(connection.queued);
        connection.queued = [];
        const out: Uint8Array[] = [];
        try {
          // Copies: PGlite hands out views of its own memory.
          await db.execProtocolRawStream(batch, { onRawData: (chunk) => out.push(Uint8Array.from(chunk)) });
        } catch (error) {
          const message =
            error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error);
          // PGlite's backend ended (an Emscripten exit): nothing more can be answered.
          if ((error as { name?: unknown })?.name === 'ExitStatus') {
            send({ op: 'failed', message: `the database stopped: ${message}` });
            process.exit(1);
          }
          send({ op: 'error', id, message });
          await endOwnersWork();
          continue;
        }
        const status = readyStatus(out);
        // Idle: anyone may go next. Otherwise (in a transaction, or no ReadyForQuery yet) this
        // connection keeps the backend until it says idle.
        owner = status === 'I' ? null : id;
        sendBytes(id, out);
      }
      if (stopping && !closing) {
        closing = true;
        try {
          await db.close();
        } finally {
          send({ op: 'closed' });
          port.close();
        }
      }
    } finally {
      running = false;
    }
  }

  function receive(id: number, bytes: Uint8Array): void {
    const connection = connections.get(id);
    if (!connection) return;
    connection.pending =
      connection.pending.length === 0 ? Buffer.from(bytes) : Buffer.concat([connection.pending, bytes]);
    if (!connection.started) {
      if (!isStartupFrame(connection.pending)) return;
      const length = connection.pending.readInt32BE(0);
      const frame = connection.pending.subarray(0, length);
      connection.pending = connection.pending.subarray(length);
      if (frame.length === 8 && frame.readInt32BE(4) === 80877103) {
        // SSLRequest: this channel never leaves the process, so no TLS.
        sendBytes(id, [Uint8Array.from(SSL_REQUEST_REFUSED)]);
        receive(id, new Uint8Array(0));
        return;
      }
      connection.started = true;
      connection.queued.push(frame);
    }
    let framed: ReturnType<typeof completeFrames>;
    try {
      framed = completeFrames(connection.pending);
    } catch (error) {
      send({ op: 'error', id, message: error instanceof Error ? error.message : String(error) });
      close(id);
      return;
    }
    connection.pending = framed.rest;
    if (framed.frames.length > 0) connection.queued.push(...framed.frames);
    if (framed.terminated) {
      close(id);
      return;
    }
    if (connection.queued.length > 0 && !ready.includes(id)) ready.push(id);
    void run();
  }

  function close(id: number): void {
    connections.delete(id);
    const at = ready.indexOf(id);
    if (at >= 0) ready.splice(at, 1);
    if (owner === id) releasing.add(id);
    void run();
  }

  port.on('message', (message: ToPglite) => {
    if (message.op === 'open') connections.set(message.id, { pending: Buffer.alloc(0), started: false, queued: [] });
    else if (message.op === 'data') receive(message.id, message.bytes);
    else if (message.op === 'close') close(message.id);
    else if (message.op === 'shutdown') {
      stopping = true;
      void run();
    }
  });
  send({ op: 'ready' });
}

void main();
