// Compressed JSON answers: a JSON body of 1 KiB or more goes gzip-compressed (or Brotli, at a
// fast quality) to a client that accepts it. The dashboard's first requests are mostly JSON (a
// chart's 300 candles with overlays are ~25 kB, ~5 kB gzipped), and on a phone's network the
// bytes are the wait. The static files are compressed once at build time instead (spa.ts);
// streams (server-sent events, file downloads) are never touched: only a body Fastify already
// holds whole (a string or a Buffer) is. Compression runs on zlib's thread pool, not the event
// loop. A body many requests share (the price snapshot, the alert log's recent answers) is a
// SharedBody: serialised once, and compressed once per encoding, whoever asks.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Bodies below this many bytes gain little and go as they are. */
export const COMPRESS_MIN_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The encoding to use for this Accept-Encoding header: br, gzip or none (q=0 refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name) accepted.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weightOf('br') > 0) return 'br';
  if (weightOf('gzip') > 0) return 'gzip';
  return null;
}

/** Compresses a JSON body the way every answer here is compressed. */
function compress(body: Buffer, encoding: 'br' | 'gzip'): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      })
    : gzipAsync(body, { level: 6 });
}

/** Accept-Encoding headers seen lately and their choice: browsers send the same few. */
const chosen = new Map<string, 'br' | 'gzip' | null>();

export function encodingFor(request: FastifyRequest): 'br' | 'gzip' | null {
  return encodingOfHeader(request.headers['accept-encoding']);
}

/** encodingFor, given the Accept-Encoding header itself. */
export function encodingOfHeader(header: string | undefined): 'br' | 'gzip' | null {
  if (!header) return null;
  let encoding = chosen.get(header);
  if (encoding === undefined) {
    encoding = chooseEncoding(header);
    if (chosen.size >= 64) chosen.clear();
    chosen.set(header, encoding);
  }
  return encoding;
}

/** A body many requests share (a JSON snapshot, a page), compressed at most once per encoding. */
export interface SharedBody {
  readonly bytes: Buffer;
  encoded(encoding: 'br' | 'gzip'): Promise<Buffer>;
}

export function sharedBody(text: string): SharedBody {
  const bytes = Buffer.from(text);
  const encodings = new Map<'br' | 'gzip', Promise<Buffer>>();
  return {
    bytes,
    encoded(encoding) {
      let done = encodings.get(encoding);
      if (!done) {
        done = compress(bytes, encoding);
        // A failure is not kept: the next request tries again.
        done.catch(() => encodings.delete(encoding));
        encodings.set(encoding, done);
      }
      return done;
    },
  };
}

/**
 * Sends a shared body as `contentType`, compressed as this client accepts (the same rules as
 * every JSON answer); the compression hook leaves it alone.
 */
export async function sendShared(
  request: FastifyRequest,
  reply: FastifyReply,
  body: SharedBody,
  contentType: string,
): Promise<FastifyReply> {
  reply.type(contentType);
  // Already settled here, one way or the other: the compression hook leaves it alone.
  settled.set(reply, body);
  if (body.bytes.length < COMPRESS_MIN_BYTES || request.method === 'HEAD') return reply.send(body.bytes);
  const vary = reply.getHeader('vary');
  reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
  const encoding = encodingFor(request);
  if (!encoding) return reply.send(body.bytes);
  const encoded = await body.encoded(encoding);
  return reply.header('content-encoding', encoding).send(encoded);
}

/** sendShared for a JSON body. */
export function sendSharedJson(request: FastifyRequest, reply: FastifyReply, body: SharedBody): Promise<FastifyReply> {
  return sendShared(request, reply, body, 'application/json; charset=utf-8');
}

/** Replies whose encoding sendShared chose, with the body it sent. */
const settled = new WeakMap<FastifyReply, SharedBody>();

/** The shared body sendShared sent on this reply, if it did. */
export function sharedBodyOf(reply: FastifyReply): SharedBody | undefined {
  return settled.get(reply);
}

/** Whether the reply's content type is JSON (application/json or a +json type). */
export function isJsonReply(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);
}

export function installJsonCompression(app: FastifyInstance): void {
  // A callback hook: most answers pass straight through, without a promise each.
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    if (settled.has(reply) || request.method === 'HEAD' || reply.getHeader('content-encoding') || !isJsonReply(reply))
      return done(null, payload);
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (body.length < COMPRESS_MIN_BYTES) return done(null, payload);
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = encodingFor(request);
    if (!encoding) return done(null, payload);
    compress(body, encoding).then(
      (compressed) => {
        reply.header('content-encoding', encoding);
        reply.removeHeader('content-length');
        done(null, compressed);
      },
      (error: Error) => done(error),
    );
  });
}
