// Serves the built single-page app: hashed assets from memory with a year-long immutable cache
// (assets.ts), and index.html (revalidated on every load) for every client route so deep links
// and reloads work; '/' gets landing.html, the same page with the landing prerendered into it
// (vite.config.ts). The pages are held in memory too, each with its Brotli and gzip forms. A route
// whose page is a lazy chunk listed in ROUTE_PAGES gets index.html made for that page, once at
// start:
// - its stylesheet inline, as landing.html has it (the CSP allows inline styles), so its first
//   paint (the loading text) waits for nothing but the HTML;
// - the page's modules asked for by the boot script once that paint is on screen
//   (src/shared/bootScript.ts, as on the landing): the entry, the chunks it imports, and the
//   page's lazy chunk with its static imports (read from Vite's manifest), so the browser fetches
//   the page's code alongside the entry instead of only once the entry has run and asked for it;
// - a preload link for each API answer the page cannot render without (GET /api/me), so that
//   request goes out with the HTML instead of after the page's code has arrived and run; the
//   app's own fetch of it then takes the preloaded answer.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { compressedPage, readMemoryFile, registerAssets, sendMemoryFile, type MemoryFile } from './assets.ts';
import { COMPRESS_MIN_BYTES } from './compression.ts';
import { attributeText, withBootScript } from '../../shared/bootScript.ts';

/** Paths that belong to the API: an unknown one is a JSON 404, never the app shell. */
const API_PREFIXES = ['/api/', '/external-api/', '/files', '/upload', '/sheets/', '/prompts', '/healthz', '/metrics'];

function isApiPath(url: string): boolean {
  const path = url.split('?')[0]!;
  return API_PREFIXES.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix));
}

export interface RoutePage {
  /**
   * The modules the entry loads for the route, in order: the app with its router (app.tsx,
   * loaded by main.tsx on every route but '/'), then the page's lazy chunk. Each must be a key of
   * Vite's manifest (a dynamic import's target, or an entry): the server does not start
   * otherwise. The schema that parses GET /api/me (src/shared/schemas/me.ts, with zod) is not
   * among them: Lighthouse's mobile simulation put the chart's notice later with it preloaded
   * (its 28 kB then share the slow link with the page's code; docs/performance.md).
   */
  modules: readonly string[];
  /**
   * The same-origin GET requests the page makes before it can render, preloaded with the HTML.
   * Each must be asked for exactly as the app asks (`fetch(path, { credentials: 'same-origin' })`,
   * src/web/api/http.ts) or the browser fetches it twice.
   */
  fetches: readonly string[];
}

/**
 * The client routes (src/web/router.tsx) made ready with their HTML. Only the signed-in
 * dashboard, where the page's code and who is signed in are most of what stands between the
 * first byte and the first chart. The landing route's JavaScript is landing.html's own
 * (scripts/bundleBudget.mjs).
 */
export const ROUTE_PAGES: Readonly<Record<string, RoutePage>> = {
  '/dashboard': {
    modules: ['src/web/app.tsx', 'src/web/pages/DashboardPage.tsx'],
    fetches: ['/api/me'],
  },
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
  return withHeadLinks(html, links);
}

/** `html` with `links` before its `</head>`, one a line; as it is without either. */
function withHeadLinks(html: string, links: readonly string[]): string {
  if (links.length === 0 || !html.includes('</head>')) return html;
  return html.replace('</head>', `  ${links.join('\n    ')}\n  </head>`);
}

/**
 * `html` with a preload link for each of `paths` (same-origin JSON GETs) before `</head>`. The
 * `crossorigin` attribute makes it a CORS request with same-origin credentials, as the app's
 * `fetch` is, so the app's request takes the preloaded answer.
 */
export function withFetchPreloads(html: string, paths: readonly string[]): string {
  return withHeadLinks(
    html,
    paths.map((path) => `<link rel="preload" as="fetch" crossorigin href="${attributeText(path)}">`),
  );
}

/**
 * `html` with its one stylesheet link replaced by the stylesheet's text in a <style> element;
 * as it is when there is not exactly one, or the file cannot be inlined as it is.
 */
function withInlineStylesheet(html: string, webRoot: string): string {
  const links = [...html.matchAll(/<link rel="stylesheet" crossorigin href="\/(assets\/[^"]+\.css)">/g)];
  if (links.length !== 1) return html;
  // One match (checked above); its group always takes part.
  const [link, file] = links[0]!;
  const path = join(webRoot, file!);
  if (!existsSync(path)) return html;
  const css = readFileSync(path, 'utf8');
  if (css.includes('</style')) return html;
  return html.replace(link, () => `<style>${css}</style>`);
}

const HTML = 'text/html; charset=utf-8';
/** The pages are revalidated on every load (their ETag answers 304 when unchanged). */
const PAGE_CACHE_CONTROL = 'no-cache';

/**
 * The HTML of each route in ROUTE_PAGES, made once from the build and compressed once (not on
 * every answer); none without a manifest.
 */
function routeHtml(webRoot: string): Map<string, MemoryFile> {
  const pages = new Map<string, MemoryFile>();
  const manifestPath = join(webRoot, '.vite', 'manifest.json');
  if (!existsSync(manifestPath)) return pages;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  for (const [route, { modules, fetches }] of Object.entries(ROUTE_PAGES)) {
    const missing = modules.filter((module) => !(module in manifest));
    // A module the build no longer has as a chunk of its own would silently load late.
    if (missing.length > 0)
      throw new Error(`The build's manifest has no chunk for ${missing.join(', ')} (ROUTE_PAGES of ${route})`);
    const files = pageChunkFiles(manifest, modules);
    if (files.length === 0) continue;
    const page = withInlineStylesheet(withModulePreloads(html, files), webRoot);
    pages.set(route, compressedPage(withFetchPreloads(withBootScript(page), fetches), HTML, COMPRESS_MIN_BYTES));
  }
  return pages;
}

export async function registerSpa(app: FastifyInstance, webRoot: string | null): Promise<void> {
  const hasBuild = webRoot !== null && existsSync(join(webRoot, 'index.html'));
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
        reply.header('Cache-Control', PAGE_CACHE_CONTROL);
      },
    });
  }
  const pages = hasBuild ? routeHtml(webRoot) : new Map<string, MemoryFile>();
  // The app's HTML and the landing's, with the compressed files the build wrote beside them,
  // read once like the assets: every visitor's first request is one of them.
  const indexPage = hasBuild ? readMemoryFile(join(webRoot, 'index.html'), HTML) : null;
  const landingPage =
    hasBuild && existsSync(join(webRoot, 'landing.html')) ? readMemoryFile(join(webRoot, 'landing.html'), HTML) : null;
  const sendPage = (request: FastifyRequest, reply: FastifyReply, page: MemoryFile) =>
    sendMemoryFile(request, reply, page, PAGE_CACHE_CONTROL);
  // Routes of their own (not only the not-found fallback below), so every route hook applies to them.
  for (const [route, page] of pages) app.get(route, (request, reply) => sendPage(request, reply, page));

  app.setNotFoundHandler((request, reply) => {
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url);
    if (wantsPage && indexPage) {
      const path = request.url.split('?')[0]!;
      if (landingPage && path === '/') return sendPage(request, reply, landingPage);
      return sendPage(request, reply, pages.get(path.replace(/(.)\/+$/, '$1')) ?? indexPage);
    }
    return reply.code(404).send({ error: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}
