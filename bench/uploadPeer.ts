// The upload bench's peer, run as its own process: a bare Fastify server with
// @fastify/multipart that streams the file part of POST /upload to a new file on disk, with
// no session, no validation and no database. What any streaming upload costs at least.
// PORT and DATA_DIR come from the environment; GET /healthz answers once it listens.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';

const dir = process.env.DATA_DIR!;
const app = Fastify();
await app.register(multipart, { limits: { fileSize: 1024 * 1024 * 1024 } });
app.get('/healthz', () => Promise.resolve({ status: 'ok' }));
app.post('/upload', async (request, reply) => {
  let size = 0;
  for await (const part of request.parts()) {
    if (part.type !== 'file') continue;
    const out = createWriteStream(join(dir, randomUUID()));
    part.file.on('data', (chunk: Buffer) => (size += chunk.length));
    await pipeline(part.file, out);
  }
  return reply.code(201).send({ size });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
