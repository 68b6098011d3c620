// The built app's hashed assets (dist/web/assets), served from memory. They never change under
// their names (the name carries the content's hash) and are a few MB in all, so they are read
// once at start, each with the Brotli and gzip files Vite wrote beside it: a request then costs
// a map lookup, no file system call (@fastify/static opened, stat'ed, read and closed the file
// each time: about 9% of the server's thread when 1,000 subscribers loaded their pages at once).
// A name that is not there is a 404, not the app's HTML: a browser holding an old page after a
// deploy then sees its chunk fail to load (and the app offers a retry) instead of parsing HTML
// as JavaScript.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '@fastify/accept-negotiator';

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.br': 'application/octet-stream',
  '.gz': 'application/gzip',
};

export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

interface Variant {
  bytes: Buffer;
  etag: string;
}

/** A file served from memory, with its Brotli and gzip forms when it has them. */
export interface MemoryFile {
  type: string;
  lastModified: string;
  identity: Variant;
  br?: Variant;
  gzip?: Variant;
}

function variant(bytes: Buffer): Variant {
  return { bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url').slice(0, 22)}"` };
}

/** The file at `path` with the `.br` and `.gz` files beside it, if there (as Vite writes them). */
export function readMemoryFile(path: string, type = TYPES[extname(path).toLowerCase()]): MemoryFile {
  const file: MemoryFile = {
    type: type ?? 'application/octet-stream',
    lastModified: statSync(path).mtime.toUTCString(),
    identity: variant(readFileSync(path)),
  };
  if (existsSync(`${path}.br`)) file.br = variant(readFileSync(`${path}.br`));
  if (existsSync(`${path}.gz`)) file.gzip = variant(readFileSync(`${path}.gz`));
  return file;
}

/**
 * A page made at start, compressed once now (as the build compresses its files) when it is
 * large enough that compression would otherwise run on every answer.
 */
export function compressedPage(text: string, type: string, minBytes: number): MemoryFile {
  const bytes = Buffer.from(text);
  const file: MemoryFile = { type, lastModified: new Date().toUTCString(), identity: variant(bytes) };
  if (bytes.length >= minBytes) {
    file.br = variant(brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
    file.gzip = variant(gzipSync(bytes, { level: 9 }));
  }
  return file;
}

/** Every file of `dir` by name, with the compressed files beside it attached to it. */
function loadAssets(dir: string): Map<string, MemoryFile> {
  const assets = new Map<string, MemoryFile>();
  if (!existsSync(dir)) return assets;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile()) assets.set(entry.name, readMemoryFile(join(dir, entry.name)));
  return assets;
}

/** Whether an If-None-Match header names `etag` (or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

/**
 * Answers `file` in the encoding the client accepts (Brotli, gzip or none), with its ETag
 * (304 when the client holds it), Last-Modified and `cacheControl`. The compression plugin
 * leaves an answer with a Content-Encoding alone.
 */
export function sendMemoryFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: MemoryFile,
  cacheControl: string,
): FastifyReply {
  const accepted = request.headers['accept-encoding'];
  const encoding = accepted && (file.br || file.gzip) ? negotiate(accepted, ['br', 'gzip']) : null;
  const chosen = (encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : undefined) ?? file.identity;
  reply
    .header('Cache-Control', cacheControl)
    .header('ETag', chosen.etag)
    .header('Last-Modified', file.lastModified)
    .type(file.type);
  if (file.br || file.gzip) reply.header('Vary', 'Accept-Encoding');
  if (chosen !== file.identity) reply.header('Content-Encoding', encoding!);
  if (matches(request.headers['if-none-match'], chosen.etag)) return reply.code(304).send();
  return reply.send(chosen.bytes);
}

/** GET (and HEAD) /assets/NAME from memory, read from `dir` now. */
export function registerAssets(app: FastifyInstance, dir: string): void {
  const assets = loadAssets(dir);
  app.get('/assets/*', (request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) => {
    const name = request.params['*'];
    const asset = assets.get(name);
    if (!asset) return reply.code(404).send({ error: `Not found: ${request.method} /assets/${name}` });
    return sendMemoryFile(request, reply, asset, ASSET_CACHE_CONTROL);
  });
}
