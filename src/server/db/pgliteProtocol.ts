// The PostgreSQL wire protocol as far as the PGlite thread (pgliteWorker.ts) needs it: where
// one message ends, and whether the backend is idle after an answer. Pure, so it is tested alone.

/** Messages from the server's thread to the PGlite thread. */
export type ToPglite =
  | { op: 'open'; id: number }
  | { op: 'data'; id: number; bytes: Uint8Array }
  | { op: 'close'; id: number }
  | { op: 'shutdown' };

/** Messages from the PGlite thread. */
export type FromPglite =
  | { op: 'ready' }
  | { op: 'failed'; message: string }
  | { op: 'data'; id: number; bytes: Uint8Array }
  | { op: 'error'; id: number; message: string }
  | { op: 'closed' };

/** The answer to an SSLRequest: 'N', no TLS. */
export const SSL_REQUEST_REFUSED = Uint8Array.from([0x4e]);

/** Terminate ('X'): the client is leaving. Never passed to PGlite, whose one backend serves every connection. */
const TERMINATE = 0x58;
const READY_FOR_QUERY = 0x5a;

/** True when `bytes` begins with a whole untyped startup-phase message (length first). */
export function isStartupFrame(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.length >= bytes.readInt32BE(0);
}

/**
 * The whole typed messages (a type byte, then a length that counts itself) at the start of
 * `bytes`, what follows them, and whether a Terminate came (the messages after it are dropped).
 */
export function completeFrames(bytes: Buffer): { frames: Buffer[]; rest: Buffer; terminated: boolean } {
  let at = 0;
  let end = 0;
  while (at + 5 <= bytes.length) {
    const length = bytes.readInt32BE(at + 1);
    if (length < 4) throw new Error(`malformed message: length ${length}`);
    if (at + 1 + length > bytes.length) break;
    if (bytes[at] === TERMINATE) {
      return { frames: end > 0 ? [bytes.subarray(0, end)] : [], rest: Buffer.alloc(0), terminated: true };
    }
    at += 1 + length;
    end = at;
  }
  return { frames: end > 0 ? [bytes.subarray(0, end)] : [], rest: bytes.subarray(end), terminated: false };
}

/**
 * The transaction status of the ReadyForQuery that ends an answer ('I' idle, 'T' in a
 * transaction, 'E' in a failed one), or null when the answer does not end with one (an extended
 * query still waiting for its Sync). The answer may come in several chunks.
 */
export function readyStatus(chunks: readonly Uint8Array[]): 'I' | 'T' | 'E' | null {
  const tail: number[] = [];
  for (let c = chunks.length - 1; c >= 0 && tail.length < 6; c--) {
    const chunk = chunks[c]!;
    for (let i = chunk.length - 1; i >= 0 && tail.length < 6; i--) tail.unshift(chunk[i]!);
  }
  if (tail.length < 6 || tail[0] !== READY_FOR_QUERY) return null;
  if (tail[1] !== 0 || tail[2] !== 0 || tail[3] !== 0 || tail[4] !== 5) return null;
  const status = String.fromCharCode(tail[5]!);
  return status === 'I' || status === 'T' || status === 'E' ? status : null;
}
