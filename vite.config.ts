import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { createServer, defineConfig, type Plugin } from 'vite';
import { withBootScript } from './src/shared/bootScript.ts';

// The API paths the dev server forwards to `npm start` (http://127.0.0.1:3000).
const apiPaths = ['/api', '/external-api', '/files', '/upload', '/sheets', '/prompts', '/healthz'];
const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:3000';

/**
 * Writes .br and .gz beside each built text file, compressed once at build time; the server
 * sends them to browsers that accept them (@fastify/static preCompressed, src/server/http/spa.ts).
 */
function precompress(): Plugin {
  return {
    name: 'watos-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const files = Object.entries(bundle)
        .filter(([fileName]) => /\.(js|css|html|svg)$/.test(fileName))
        .map(([fileName, output]) => ({
          path: join(options.dir ?? 'dist/web', fileName),
          source: output.type === 'chunk' ? output.code : output.source,
        }))
        .filter(({ source }) => source.length >= 1024);
      // Off the main thread (zlib's pool), all files at once.
      await Promise.all(
        files.flatMap(({ path, source }) => [
          promisify(brotliCompress)(source, { params: { [constants.BROTLI_PARAM_QUALITY]: 10 } }).then((data) =>
            writeFile(`${path}.br`, data),
          ),
          promisify(gzip)(source, { level: 9 }).then((data) => writeFile(`${path}.gz`, data)),
        ]),
      );
    },
  };
}

/** The root index.html paints before the scripts run, on every page but '/' (scripts/start.test.ts). */
const LOADING_ROOT =
  '<div id="root"><div class="flex min-h-screen items-center justify-center text-gray-300">Loading...</div></div>';

/**
 * Writes landing.html, the HTML the server sends for '/' (src/server/http/spa.ts): index.html
 * with the landing page (src/web/landingShell.tsx, as a visitor sees it before GET /api/me
 * answers) rendered into its root, so the page's largest paint needs no script; main.tsx then
 * hydrates it. Rendered with Vite's own module loader (SSR), the way the browser build sees it.
 * The stylesheet is inlined too (the CSP allows inline styles): the first paint then waits for
 * nothing but the HTML, and the app's other pages use the same styles in the same document.
 * The entry script and its modulepreload links are asked for by a small inline script once the
 * page is painted (src/shared/bootScript.ts), so no script download comes before that paint.
 */
function prerenderLanding(): Plugin {
  return {
    name: 'watos-prerender-landing',
    apply: 'build',
    generateBundle: {
      order: 'post',
      async handler(_options, bundle) {
        const index = bundle['index.html'];
        if (index?.type !== 'asset') throw new Error('prerender-landing: no index.html in the build');
        const html = String(index.source);
        if (!html.includes(LOADING_ROOT)) throw new Error(`prerender-landing: index.html has no ${LOADING_ROOT}`);
        const server = await createServer({
          configFile: false,
          root: import.meta.dirname,
          logLevel: 'error',
          appType: 'custom',
          server: { middlewareMode: true, hmr: false, watch: null },
          optimizeDeps: { noDiscovery: true, include: [] },
        });
        try {
          const [{ renderToString }, { QueryClient }, shell] = await Promise.all([
            import('react-dom/server'),
            import('@tanstack/react-query'),
            server.ssrLoadModule('/src/web/landingShell.tsx') as Promise<typeof import('./src/web/landingShell.tsx')>,
          ]);
          const stylesheets = [...html.matchAll(/<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/g)];
          if (stylesheets.length !== 1) throw new Error('prerender-landing: expected one stylesheet in index.html');
          const [link, cssFile] = stylesheets[0]!;
          const css = bundle[cssFile!];
          if (css?.type !== 'asset' || String(css.source).includes('</style'))
            throw new Error(`prerender-landing: cannot inline ${cssFile}`);
          const markup = renderToString(
            shell.LandingShell({
              client: new QueryClient(),
              navigation: { pathname: '/', state: null, navigate: () => undefined },
            }),
          );
          this.emitFile({
            type: 'asset',
            fileName: 'landing.html',
            // The module script and its modulepreload links become the boot script, which asks for
            // the same modules once the prerendered page is painted (src/shared/bootScript.ts).
            source: withBootScript(html)
              .replace(link, () => `<style>${String(css.source)}</style>`)
              .replace(LOADING_ROOT, () => `<div id="root" ${shell.LANDING_SHELL_ATTRIBUTE}>${markup}</div>`),
          });
        } finally {
          await server.close();
        }
      },
    },
  };
}

/**
 * Rolldown's chunks for two groups of modules. Everything the landing's start
 * (src/web/landingStart.tsx, which the tiny browser entry main.tsx imports on '/') imports
 * statically goes into one chunk, landing-*.js, which the rest of the app (app.tsx) builds on.
 * Left to itself, Rolldown moves a module the landing shares with a chunk that a lazy page loads
 * on demand (the app, the dashboard's panels, its tour) into a small chunk of its own, which the
 * landing route then loads as a separate file: more gzipped bytes than the same code in one chunk
 * (scripts/bundleBudget.mjs). Likewise what the dashboard page imports statically, beyond the
 * landing's chunk and the app's own modules, goes into the page's chunk: left to Rolldown it was
 * a dozen files of a few hundred bytes each (shared with the schemas and panels loaded on
 * demand), each one a request the dashboard's HTML preloads (src/server/http/spa.ts) and, over
 * HTTP/1.1's six connections a host, a round trip before the page can run. The landing's group
 * comes first (priority): a group also takes its modules' dependencies, and the dashboard's
 * must not take the landing's. Other modules are split as Rolldown decides (null).
 */
const LANDING_START = join(import.meta.dirname, 'src', 'web', 'landingStart.tsx');
const APP = join(import.meta.dirname, 'src', 'web', 'app.tsx');
const DASHBOARD_PAGE = join(import.meta.dirname, 'src', 'web', 'pages', 'DashboardPage.tsx');
interface ChunkingContext {
  getModuleInfo(id: string): { importedIds: readonly string[] } | null;
}

/** `from` and every module it imports statically, transitively. */
function staticImports(from: string, context: ChunkingContext): Set<string> {
  const found = new Set<string>();
  const pending = [from];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (found.has(next)) continue;
    found.add(next);
    pending.push(...(context.getModuleInfo(next)?.importedIds ?? []));
  }
  return found;
}

/** The landing's and the dashboard page's modules, found once per chunking pass (a rebuild has a new context). */
const groupedModules = new WeakMap<
  ChunkingContext,
  { landing: Set<string>; app: Set<string>; dashboard: Set<string> }
>();
function groupsOf(context: ChunkingContext) {
  let found = groupedModules.get(context);
  if (!found) {
    const landing = staticImports(LANDING_START, context);
    const app = new Set([...staticImports(APP, context)].filter((module) => module !== APP && !landing.has(module)));
    const dashboard = new Set(
      [...staticImports(DASHBOARD_PAGE, context)].filter(
        (module) => module !== DASHBOARD_PAGE && !landing.has(module) && !app.has(module),
      ),
    );
    found = { landing, app, dashboard };
    groupedModules.set(context, found);
  }
  return found;
}
const landingChunkOf = (id: string, context: ChunkingContext) => (groupsOf(context).landing.has(id) ? 'landing' : null);
const appChunkOf = (id: string, context: ChunkingContext) => (groupsOf(context).app.has(id) ? 'router' : null);
const dashboardChunkOf = (id: string, context: ChunkingContext) =>
  groupsOf(context).dashboard.has(id) ? 'dashboard' : null;

export default defineConfig({
  plugins: [react(), tailwindcss(), prerenderLanding(), precompress()],
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    sourcemap: true,
    // dist/web/.vite/manifest.json: scripts/bundleBudget.mjs reads which chunks a route loads.
    manifest: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: landingChunkOf, priority: 3, debugName: 'the landing start and its static imports' },
            { name: appChunkOf, priority: 2, debugName: "the app's static imports (the router) beyond the landing" },
            { name: dashboardChunkOf, priority: 1, debugName: "the dashboard page's own static imports" },
          ],
        },
      },
    },
  },
  server: {
    proxy: Object.fromEntries(apiPaths.map((path) => [path, { target: apiTarget, changeOrigin: false }])),
  },
});
