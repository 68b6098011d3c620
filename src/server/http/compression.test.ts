// JSON answers go compressed to a client that accepts it (gzip, or Brotli when offered), keep
// their content when decompressed, and say Vary: Accept-Encoding; small bodies, clients that
// accept nothing, HEAD and streams go as they are.
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chooseEncoding,
  COMPRESS_MIN_BYTES,
  installJsonCompression,
  sendSharedJson,
  sharedBody,
} from './compression.ts';

const big = { rows: Array.from({ length: 200 }, (_, index) => ({ index, close: 100 + index / 7 })) };
const app = Fastify();
const shared = sharedBody(JSON.stringify(big));
const sharedSmall = sharedBody(JSON.stringify({ ok: true }));

beforeAll(async () => {
  installJsonCompression(app);
  app.get('/big', async () => big);
  app.get('/small', async () => ({ ok: true }));
  app.get('/shared', async (request, reply) => sendSharedJson(request, reply, shared));
  app.get('/shared-small', async (request, reply) => sendSharedJson(request, reply, sharedSmall));
  app.get('/text', async (_request, reply) => reply.type('text/plain').send('x'.repeat(5000)));
  app.get('/stream', async (_request, reply) =>
    reply.type('application/json').send(Readable.from([JSON.stringify(big)])),
  );
  await app.ready();
});
afterAll(() => app.close());

describe('JSON compression', () => {
  it('gzips a large JSON answer for a client that accepts gzip, and the body is unchanged', async () => {
    const response = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toContain('Accept-Encoding');
    expect(response.rawPayload.length).toBeLessThan(JSON.stringify(big).length / 3);
    expect(JSON.parse(gunzipSync(response.rawPayload).toString())).toEqual(big);
  });

  it('prefers Brotli when offered', async () => {
    const response = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(response.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(response.rawPayload).toString())).toEqual(big);
  });

  it('sends as they are: no Accept-Encoding, a small body, HEAD, plain text and streams', async () => {
    const plain = await app.inject({ url: '/big' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(plain.json()).toEqual(big);
    const small = await app.inject({ url: '/small', headers: { 'accept-encoding': 'gzip' } });
    expect(JSON.stringify(small.json()).length).toBeLessThan(COMPRESS_MIN_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    const head = await app.inject({ method: 'HEAD', url: '/big', headers: { 'accept-encoding': 'gzip' } });
    expect(head.headers['content-encoding']).toBeUndefined();
    const text = await app.inject({ url: '/text', headers: { 'accept-encoding': 'gzip' } });
    expect(text.headers['content-encoding']).toBeUndefined();
    const stream = await app.inject({ url: '/stream', headers: { 'accept-encoding': 'gzip' } });
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.json()).toEqual(big);
  });
});

describe('a shared JSON body', () => {
  it('answers like any JSON answer: compressed as accepted, Vary, the same content', async () => {
    const gzipped = await app.inject({ url: '/shared', headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(gzipped.headers.vary).toContain('Accept-Encoding');
    expect(JSON.parse(gunzipSync(gzipped.rawPayload).toString())).toEqual(big);
    const brotli = await app.inject({ url: '/shared', headers: { 'accept-encoding': 'gzip, br' } });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(brotli.rawPayload).toString())).toEqual(big);
    const plain = await app.inject({ url: '/shared', headers: { 'accept-encoding': 'gzip;q=0' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(plain.json()).toEqual(big);
    const small = await app.inject({ url: '/shared-small', headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ ok: true });
  });

  it('is compressed once per encoding, however many requests send it', async () => {
    const first = await shared.encoded('gzip');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => app.inject({ url: '/shared', headers: { 'accept-encoding': 'gzip' } })),
    );
    expect(await shared.encoded('gzip')).toBe(first);
    for (const answer of answers) expect(answer.rawPayload.equals(first)).toBe(true);
    expect(await shared.encoded('br')).not.toBe(first);
    expect(await shared.encoded('br')).toBe(await shared.encoded('br'));
  });
});

describe('chooseEncoding', () => {
  it('reads the Accept-Encoding weights', () => {
    expect(chooseEncoding(undefined)).toBeNull();
    expect(chooseEncoding('identity')).toBeNull();
    expect(chooseEncoding('gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(chooseEncoding('gzip;q=0')).toBeNull();
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*;q=0.1, br;q=0')).toBe('gzip');
  });
});
