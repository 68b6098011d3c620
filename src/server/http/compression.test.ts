// The app's compression (@fastify/compress as configured in compression.ts): large answers go
// compressed as the client accepts (Brotli preferred), keep their content when decompressed
// and say Vary: Accept-Encoding; small bodies, clients that accept nothing, an answer already
// encoded and a route that opts out go as they are.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_MIN_BYTES, compression } from './compression.ts';

const big = { rows: Array.from({ length: 200 }, (_, index) => ({ index, close: 100 + index / 7 })) };
const bigText = JSON.stringify(big);
const app = Fastify();

beforeAll(async () => {
  await app.register(compression);
  app.get('/big', async () => big);
  app.get('/small', async () => ({ ok: true }));
  app.get('/page', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(`<p>${'x'.repeat(5000)}</p>`),
  );
  app.get('/encoded', async (_request, reply) =>
    reply.type('application/javascript').header('content-encoding', 'gzip').send(Buffer.from('already')),
  );
  app.get('/download', { compress: false }, async (_request, reply) =>
    reply.type('text/csv').send('a,b\n'.repeat(2000)),
  );
  await app.ready();
});
afterAll(() => app.close());

describe('compression', () => {
  it('gzips a large JSON answer for a client that accepts gzip, and the body is unchanged', async () => {
    const response = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toContain('accept-encoding');
    expect(response.rawPayload.length).toBeLessThan(bigText.length / 3);
    expect(JSON.parse(gunzipSync(response.rawPayload).toString())).toEqual(big);
  });

  it('prefers Brotli when offered, as browsers offer it', async () => {
    const response = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(response.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(response.rawPayload).toString())).toEqual(big);
  });

  it('compresses a page too', async () => {
    const response = await app.inject({ url: '/page', headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(response.rawPayload).toString()).toMatch(/^<p>x{5000}<\/p>$/);
  });

  it('sends as they are: no Accept-Encoding, a small body, an encoded answer, a route that opts out', async () => {
    const plain = await app.inject({ url: '/big' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json()).toEqual(big);
    const small = await app.inject({ url: '/small', headers: { 'accept-encoding': 'gzip' } });
    expect(JSON.stringify({ ok: true }).length).toBeLessThan(COMPRESS_MIN_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ ok: true });
    const encoded = await app.inject({ url: '/encoded', headers: { 'accept-encoding': 'br, gzip' } });
    expect(encoded.headers['content-encoding']).toBe('gzip');
    expect(encoded.rawPayload.toString()).toBe('already');
    const download = await app.inject({ url: '/download', headers: { 'accept-encoding': 'br, gzip' } });
    expect(download.headers['content-encoding']).toBeUndefined();
    expect(download.headers['content-length']).toBe(String(4 * 2000));
  });
});
