// The one capped read of a stream into memory: a stored file for a preview or the assistant,
// an xlsx upload (its zip directory sits at the end), a Google Sheets export. The read stops
// at the first chunk that passes `maxBytes` and fails with the caller's error, so a huge or
// endless stream never fills memory.
import type { Readable } from 'node:stream';

export interface CappedReadOptions {
  /** The most bytes accepted; one more fails the read. */
  maxBytes: number;
  /** The error for a stream that passed `maxBytes` (`total`: the bytes read so far). */
  tooLarge: (total: number) => Error;
  /**
   * The size the stream should have (a stored file's recorded size). The buffer is then
   * allocated once and each chunk copied into it: one Buffer.concat of 30 MB at the end held
   * the event loop for ~20 ms, a chunk's copy does not, and the buffer spans its whole memory,
   * so it moves to a worker without a copy.
   */
  expectedBytes?: number;
}

type ByteStream = AsyncIterable<Uint8Array> & { destroy?: Readable['destroy'] };

/** Reads `stream` to its end into one Buffer, failing with `tooLarge` past `maxBytes`. */
export async function readCapped(stream: ByteStream, options: CappedReadOptions): Promise<Buffer> {
  const { maxBytes, tooLarge, expectedBytes } = options;
  const overflow = (total: number): Error => {
    stream.destroy?.();
    return tooLarge(total);
  };
  if (expectedBytes === undefined) {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of stream) {
      total += chunk.length;
      if (total > maxBytes) throw overflow(total);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }
  let buffer = Buffer.allocUnsafe(Math.min(expectedBytes, maxBytes));
  let total = 0;
  for await (const chunk of stream) {
    if (total + chunk.length > maxBytes) throw overflow(total + chunk.length);
    // Larger than expected (should not happen): grow, at the cost of one copy.
    if (total + chunk.length > buffer.length)
      buffer = Buffer.concat([buffer.subarray(0, total)], Math.min(maxBytes, (total + chunk.length) * 2));
    buffer.set(chunk, total);
    total += chunk.length;
  }
  return total === buffer.length ? buffer : buffer.subarray(0, total);
}
