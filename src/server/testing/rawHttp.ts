// One HTTP request with the request target exactly as given: app.inject and fetch both
// normalise the URL first (dot segments, backslashes), which hides path tricks.
import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body as received (compressed answers stay compressed). */
  bytes: Buffer;
}

export function rawRequest(
  origin: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  // Node sends no length (and no chunking) for a DELETE body unless told.
  const headers =
    options.body === undefined
      ? options.headers
      : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port: Number(port), method, path, headers }, (response) => {
      // A stream (server-sent events) stays open: its status and headers are the answer.
      if (String(response.headers['content-type']).includes('text/event-stream')) {
        response.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '', bytes: Buffer.alloc(0) });
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: bytes.toString('utf8'), bytes });
      });
      response.on('error', reject);
    });
    outgoing.setTimeout(15_000, () => outgoing.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
