// Serves the built single-page app: hashed assets with a year-long immutable cache, and
// index.html (never cached) for every client route so deep links and reloads work; '/' gets
// landing.html, the same page with the landing prerendered into it (vite.config.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Paths that belong to the API: an unknown one is a JSON 404, never the app shell. */
const API_PREFIXES = ['/api/', '/external-api/', '/files', '/upload', '/sheets/', '/prompts', '/healthz'];

export function isApiPath(url: string): boolean {
  const path = url.split('?')[0];
  return API_PREFIXES.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix));
}

export async function registerSpa(app: FastifyInstance, webRoot: string | null): Promise<void> {
  const hasBuild = webRoot !== null && existsSync(join(webRoot, 'index.html'));
  const hasLanding = hasBuild && existsSync(join(webRoot, 'landing.html'));
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      index: false,
      // vite.config.ts writes .br/.gz beside each asset; browsers that accept them get those.
      preCompressed: true,
      // Our own header decides: hashed assets forever, everything else revalidated.
      cacheControl: false,
      setHeaders(reply: FastifyReply, filePath: string) {
        const hashed = filePath.startsWith(join(webRoot, 'assets'));
        reply.header('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url);
    if (wantsPage && hasBuild) {
      const page = hasLanding && request.url.split('?')[0] === '/' ? 'landing.html' : 'index.html';
      return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').sendFile(page);
    }
    return reply.code(404).send({ error: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}
