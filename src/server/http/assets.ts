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

interface Asset {
  type: string;
  lastModified: string;
  identity: Variant;
  br?: Variant;
  gzip?: Variant;
}

function variant(bytes: Buffer): Variant {
  return { bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url').slice(0, 22)}"` };
}

/** Every file of `dir` by name, with the compressed files beside it attached to it. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  const files = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile());
  const present = new Set(files.map((entry) => entry.name));
  for (const { name } of files) {
    const path = join(dir, name);
    const asset: Asset = {
      type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
      lastModified: statSync(path).mtime.toUTCString(),
      identity: variant(readFileSync(path)),
    };
    if (present.has(`${name}.br`)) asset.br = variant(readFileSync(`${path}.br`));
    if (present.has(`${name}.gz`)) asset.gzip = variant(readFileSync(`${path}.gz`));
    assets.set(name, asset);
  }
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

/** GET (and HEAD) /assets/NAME from memory, read from `dir` now. */
export function registerAssets(app: FastifyInstance, dir: string): void {
  const assets = loadAssets(dir);
  app.get('/assets/*', (request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) => {
    const name = request.params['*'];
    const asset = assets.get(name);
    if (!asset) return reply.code(404).send({ error: `Not found: ${request.method} /assets/${name}` });
    const accepted = request.headers['accept-encoding'];
    const encoding = accepted && (asset.br || asset.gzip) ? negotiate(accepted, ['br', 'gzip']) : null;
    const chosen = (encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : undefined) ?? asset.identity;
    reply
      .header('Cache-Control', ASSET_CACHE_CONTROL)
      .header('ETag', chosen.etag)
      .header('Last-Modified', asset.lastModified)
      .type(asset.type);
    if (asset.br || asset.gzip) reply.header('Vary', 'Accept-Encoding');
    if (chosen !== asset.identity) reply.header('Content-Encoding', encoding!);
    if (matches(request.headers['if-none-match'], chosen.etag)) return reply.code(304).send();
    return reply.send(chosen.bytes);
  });
}
