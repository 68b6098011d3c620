import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readCapped } from './cappedRead.ts';

const chunks = (...sizes: number[]) => sizes.map((size, index) => Buffer.alloc(size, index + 1));
const tooLarge = (total: number) => new Error(`too large: ${total}`);

describe('readCapped', () => {
  it('reads a stream within the cap, with or without an expected size', async () => {
    const expected = Buffer.concat(chunks(3, 4, 5));
    expect(await readCapped(Readable.from(chunks(3, 4, 5)), { maxBytes: 12, tooLarge })).toEqual(expected);
    expect(await readCapped(Readable.from(chunks(3, 4, 5)), { maxBytes: 12, tooLarge, expectedBytes: 12 })).toEqual(
      expected,
    );
    // Recorded size wrong either way: still the bytes the stream held.
    expect(await readCapped(Readable.from(chunks(3, 4, 5)), { maxBytes: 20, tooLarge, expectedBytes: 5 })).toEqual(
      expected,
    );
    expect(await readCapped(Readable.from(chunks(3, 4, 5)), { maxBytes: 20, tooLarge, expectedBytes: 20 })).toEqual(
      expected,
    );
  });

  it('fails with the caller error at the first chunk past the cap and destroys the stream', async () => {
    for (const expectedBytes of [undefined, 11]) {
      const stream = Readable.from(chunks(3, 4, 5, 6));
      await expect(readCapped(stream, { maxBytes: 11, tooLarge, expectedBytes })).rejects.toThrow('too large: 12');
      expect(stream.destroyed).toBe(true);
    }
  });

  it('reads a web stream (a fetch body)', async () => {
    const body = new Response('hello world').body!;
    expect((await readCapped(body, { maxBytes: 100, tooLarge })).toString()).toBe('hello world');
    await expect(readCapped(new Response('hello world').body!, { maxBytes: 5, tooLarge })).rejects.toThrow('too large');
  });
});
