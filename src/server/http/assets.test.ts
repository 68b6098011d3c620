// The hashed assets from memory: the encoding the client accepts (the file Vite compressed,
// byte for byte), caching headers, revalidation per encoding, HEAD, and a 404 (not the app's
// HTML) for a name that is not there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_CACHE_CONTROL } from './assets.ts';
import { registerSpa } from './spa.ts';

const SCRIPT = Buffer.from(`export const answer = ${'42 + '.repeat(400)}0;\n`);
const MAP = Buffer.from(JSON.stringify({ version: 3, sources: ['a.ts'], mappings: 'AAAA' }));

describe('hashed assets from memory', () => {
  const webRoot = mkdtempSync(join(tmpdir(), 'watos-assets-'));
  const app = Fastify();

  beforeAll(async () => {
    mkdirSync(join(webRoot, 'assets'));
    writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(webRoot, 'assets', 'app-1.js'), SCRIPT);
    writeFileSync(join(webRoot, 'assets', 'app-1.js.br'), brotliCompressSync(SCRIPT));
    writeFileSync(join(webRoot, 'assets', 'app-1.js.gz'), gzipSync(SCRIPT));
    writeFileSync(join(webRoot, 'assets', 'app-1.js.map'), MAP);
    await registerSpa(app, webRoot);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('sends the Brotli file, the gzip file or the file itself, as the client accepts', async () => {
    const cases: Array<[string | undefined, string | undefined, Buffer]> = [
      ['gzip, deflate, br', 'br', brotliCompressSync(SCRIPT)],
      ['gzip', 'gzip', gzipSync(SCRIPT)],
      ['br;q=0, gzip', 'gzip', gzipSync(SCRIPT)],
      [undefined, undefined, SCRIPT],
      ['identity', undefined, SCRIPT],
    ];
    for (const [accept, encoding, bytes] of cases) {
      const response = await app.inject({
        url: '/assets/app-1.js',
        headers: accept ? { 'accept-encoding': accept } : {},
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.rawPayload).toEqual(bytes);
      expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(response.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(response.headers['last-modified']).toMatch(/GMT$/);
    }
  });

  it('answers 304 to the ETag of the same encoding only', async () => {
    const br = await app.inject({ url: '/assets/app-1.js', headers: { 'accept-encoding': 'br' } });
    const plain = await app.inject({ url: '/assets/app-1.js' });
    const brTag = String(br.headers.etag);
    expect(brTag).toMatch(/^"[\w-]+"$/);
    expect(plain.headers.etag).not.toBe(brTag);
    const again = await app.inject({
      url: '/assets/app-1.js',
      headers: { 'accept-encoding': 'br', 'if-none-match': `"other", ${brTag}` },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // The Brotli file's tag does not vouch for the uncompressed file.
    const other = await app.inject({ url: '/assets/app-1.js', headers: { 'if-none-match': brTag } });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload).toEqual(SCRIPT);
  });

  it('answers HEAD with the headers and no body, and serves a file without compressed copies as it is', async () => {
    const head = await app.inject({ method: 'HEAD', url: '/assets/app-1.js', headers: { 'accept-encoding': 'br' } });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body).toBe('');
    const map = await app.inject({ url: '/assets/app-1.js.map', headers: { 'accept-encoding': 'br' } });
    expect(map.statusCode).toBe(200);
    expect(map.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(map.headers['content-encoding']).toBeUndefined();
    expect(map.headers.vary).toBeUndefined();
    expect(map.rawPayload).toEqual(MAP);
  });

  it('answers a name that is not there with a JSON 404, not the app', async () => {
    for (const url of ['/assets/app-2.js', '/assets/index.html', '/assets/', '/assets/app-1.js/x']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toContain('application/json');
    }
    // A client route still gets the app.
    expect((await app.inject({ url: '/dashboard' })).body).toContain('<title>app</title>');
  });
});
