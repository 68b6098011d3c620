// Compressed answers: @fastify/compress for every answer Fastify holds whole or streams, in
// Brotli (at a fast quality) or gzip as the client accepts, from 1 KiB up. The dashboard's
// first requests are mostly JSON (a chart's 300 candles with overlays are ~25 kB, ~5 kB
// gzipped), and on a phone's network the bytes are the wait. The built web app's hashed assets
// are compressed once at build time and served as they are (assets.ts sets their
// Content-Encoding, which the plugin leaves alone); a live event stream is hijacked and never
// passes through it; a file download opts out on its route (it keeps its Content-Length).
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { constants } from 'node:zlib';

/** Bodies below this many bytes gain little and go as they are. */
export const COMPRESS_MIN_BYTES = 1024;

async function compressionPlugin(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    threshold: COMPRESS_MIN_BYTES,
    encodings: ['br', 'gzip'],
    // Brotli's default quality (11) costs tens of ms on a large answer; 4 is gzip's speed at
    // a smaller size.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
}

export const compression = fp(compressionPlugin, { name: 'watos-compression', fastify: '5.x' });
