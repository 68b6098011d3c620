// Serves the built single-page app: hashed assets from memory with a year-long immutable cache
// (assets.ts), and index.html (never cached) for every client route so deep links and reloads
// work; '/' gets landing.html, the same page with the landing prerendered into it (vite.config.ts). A route
// whose page is a lazy chunk listed in ROUTE_PAGES gets index.html with modulepreload links for
// that chunk and its static imports (read from Vite's manifest), so the browser fetches the
// page's code alongside the entry script instead of only once the entry has run and asked for it.
// Those routes also get the stylesheet inline, as landing.html does (the CSP allows inline
// styles): their first paint and their scripts (a module script waits for the stylesheets before
// it runs) then wait for nothing but the HTML.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerAssets } from './assets.ts';
import { sendShared, sharedBody, type SharedBody } from './compression.ts';

/** Paths that belong to the API: an unknown one is a JSON 404, never the app shell. */
const API_PREFIXES = ['/api/', '/external-api/', '/files', '/upload', '/sheets/', '/prompts', '/healthz'];

export function isApiPath(url: string): boolean {
  const path = url.split('?')[0];
  return API_PREFIXES.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix));
}

/**
 * The client routes (src/web/router.tsx) whose code is preloaded with the HTML, as the modules
 * the entry loads for them in order: the app with its router (app.tsx, loaded by main.tsx on
 * every route but '/'), then the page's lazy chunk, then the account schemas that parse
 * GET /api/me (src/web/api/account.ts imports them on demand; the dashboard cannot render before
 * that answer, and without the preload they were asked for only once the app's code had run).
 * Only the signed-in dashboard, where the page's code is most of what stands between the first
 * byte and the first chart. The landing route's JavaScript is landing.html's own
 * (scripts/bundleBudget.mjs).
 */
export const ROUTE_PAGES: Readonly<Record<string, readonly string[]>> = {
  '/dashboard': ['src/web/app.tsx', 'src/web/pages/DashboardPage.tsx', 'src/shared/schemas/auth.ts'],
};

interface ManifestChunk {
  file: string;
  imports?: string[];
}

/**
 * The files page modules load before they run: each one's chunk and, recursively, the chunks it
 * imports statically, in the order the browser needs them (imports first), each once. Dynamic
 * imports are left out: they load on demand.
 */
export function pageChunkFiles(manifest: Record<string, ManifestChunk>, pages: readonly string[]): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || seen.has(key)) return;
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
    if (chunk.file.endsWith('.js')) files.push(chunk.file);
  };
  for (const page of pages) visit(page);
  return files;
}

/**
 * index.html with a modulepreload link for each of `files` it does not already load, before
 * `</head>` (the links are the ones Vite writes for the entry's own chunks).
 */
export function withModulePreloads(html: string, files: readonly string[]): string {
  const links = files
    .map((file) => `/${file}`)
    .filter((href) => !html.includes(`"${href}"`))
    .map((href) => `<link rel="modulepreload" crossorigin href="${href}">`);
  if (links.length === 0 || !html.includes('</head>')) return html;
  return html.replace('</head>', `  ${links.join('\n    ')}\n  </head>`);
}

/**
 * `html` with its one stylesheet link replaced by the stylesheet's text in a <style> element;
 * as it is when there is not exactly one, or the file cannot be inlined as it is.
 */
export function withInlineStylesheet(html: string, webRoot: string): string {
  const links = [...html.matchAll(/<link rel="stylesheet" crossorigin href="\/(assets\/[^"]+\.css)">/g)];
  if (links.length !== 1) return html;
  const [link, file] = links[0];
  const path = join(webRoot, file);
  if (!existsSync(path)) return html;
  const css = readFileSync(path, 'utf8');
  if (css.includes('</style')) return html;
  return html.replace(link, () => `<style>${css}</style>`);
}

/**
 * The HTML of each route in ROUTE_PAGES, read once from the build and compressed once per
 * encoding (with its stylesheet inline it is tens of kB); none without a manifest.
 */
function routeHtml(webRoot: string): Map<string, SharedBody> {
  const pages = new Map<string, SharedBody>();
  const manifestPath = join(webRoot, '.vite', 'manifest.json');
  if (!existsSync(manifestPath)) return pages;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  for (const [route, modules] of Object.entries(ROUTE_PAGES)) {
    const files = pageChunkFiles(manifest, modules);
    if (files.length > 0) pages.set(route, sharedBody(withInlineStylesheet(withModulePreloads(html, files), webRoot)));
  }
  return pages;
}

export async function registerSpa(app: FastifyInstance, webRoot: string | null): Promise<void> {
  const hasBuild = webRoot !== null && existsSync(join(webRoot, 'index.html'));
  const hasLanding = hasBuild && existsSync(join(webRoot, 'landing.html'));
  if (hasBuild) {
    // The hashed assets from memory (assets.ts); the few other files through @fastify/static.
    registerAssets(app, join(webRoot, 'assets'));
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      globIgnore: ['assets/**'],
      index: false,
      // vite.config.ts writes .br/.gz beside each asset; browsers that accept them get those.
      preCompressed: true,
      // Our own header: these files keep their names across builds, so they are revalidated.
      cacheControl: false,
      setHeaders(reply: FastifyReply) {
        reply.header('Cache-Control', 'no-cache');
      },
    });
  }
  const pages = hasBuild ? routeHtml(webRoot) : new Map<string, SharedBody>();

  app.setNotFoundHandler((request, reply) => {
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url);
    if (wantsPage && hasBuild) {
      const path = request.url.split('?')[0];
      if (hasLanding && path === '/')
        return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').sendFile('landing.html');
      const page = pages.get(path.replace(/(.)\/+$/, '$1'));
      if (page !== undefined)
        return sendShared(request, reply.header('Cache-Control', 'no-cache'), page, 'text/html; charset=utf-8');
      return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply.code(404).send({ error: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}
