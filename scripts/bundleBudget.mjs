// Web bundle budget: the gzipped JavaScript the landing route '/' loads before it can render,
// read from the Vite build in dist/web. That is the entry script of index.html with its static
// imports (its modulepreload links): src/web/main.tsx renders a first visit to '/' from those
// alone (landingStart.tsx, checked here: the module must be in one of the counted chunks, read
// from their source maps). A route's own lazy chunks (the app with React Router, then the page)
// are added with their static imports; chunks they only import dynamically (on demand, later)
// are listed but not counted. The dashboard route is measured the same way as the peer that
// shows the lazy split. Each file is gzipped at level 9 (node:zlib), as a server or CDN sends it.
//
// Neither route may load zod before it renders (zodProblems: its schemas load with the first
// answer).
//
// `node scripts/bundleBudget.mjs [dist/web]` prints the breakdown and exits 1 when the landing
// route is over budget or zod is on a first paint; `npm test` runs it right after the vite
// build. No dependencies.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The budget: gzipped JS of the landing route '/', in bytes (kB = 1000 bytes, as Vite prints). */
export const LANDING_JS_BUDGET_BYTES = 90_000;

/** What renders each route, in load order: a module in a chunk already counted, or a lazy chunk. */
export const LANDING_PAGE = 'src/web/landingStart.tsx';
export const APP = 'src/web/app.tsx';
export const DASHBOARD_PAGE = 'src/web/pages/DashboardPage.tsx';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_WEB_ROOT = join(repoRoot, 'dist', 'web');

export class BundleBudgetError extends Error {}

/** Formats bytes as kB (1000 bytes) with one decimal. */
export function kB(bytes) {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

function attribute(tag, name) {
  const match = tag.match(new RegExp(`\\s${name}\\s*=\\s*["']([^"']+)["']`, 'i'));
  return match ? match[1] : null;
}

/** The entry script and modulepreload links index.html makes the browser load for any route. */
function readIndexHtml(webRoot) {
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b[^>]*>/gi)]
    .map(([tag]) => tag)
    .filter((tag) => /type\s*=\s*["']module["']/i.test(tag) && attribute(tag, 'src'))
    .map((tag) => attribute(tag, 'src'));
  const preloads = [...html.matchAll(/<link\b[^>]*>/gi)]
    .map(([tag]) => tag)
    .filter((tag) => (attribute(tag, 'rel') ?? '').toLowerCase() === 'modulepreload' && attribute(tag, 'href'))
    .map((tag) => attribute(tag, 'href'));
  if (scripts.length !== 1)
    throw new BundleBudgetError(
      `Expected one module script in ${join(webRoot, 'index.html')}, found ${scripts.length}.`,
    );
  const toFile = (url) => url.replace(/^\//, '');
  return { entry: toFile(scripts[0]), preloads: preloads.map(toFile) };
}

function readManifest(webRoot) {
  const path = join(webRoot, '.vite', 'manifest.json');
  if (!existsSync(path))
    throw new BundleBudgetError(`No Vite manifest at ${path}: vite.config.ts must set build.manifest.`);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The manifest keys a chunk pulls in before it runs: itself and its static imports, transitively. */
function staticClosure(manifest, key, seen = new Set()) {
  if (seen.has(key)) return seen;
  const chunk = manifest[key];
  if (!chunk) throw new BundleBudgetError(`The Vite manifest has no chunk for ${key}.`);
  seen.add(key);
  for (const imported of chunk.imports ?? []) staticClosure(manifest, imported, seen);
  return seen;
}

function sizeOf(webRoot, file) {
  const bytes = readFileSync(join(webRoot, file));
  return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

/** The repository paths of the modules bundled into a built file (its source map's sources). */
function modulesIn(webRoot, file) {
  const mapPath = join(webRoot, `${file}.map`);
  if (!existsSync(mapPath)) return new Set();
  const map = JSON.parse(readFileSync(mapPath, 'utf8'));
  const base = dirname(join(webRoot, file));
  return new Set(map.sources.map((source) => resolve(base, map.sourceRoot ?? '', source).slice(repoRoot.length + 1)));
}

/** Whether a module of ours imports zod's values (a type-only import leaves no code). */
function importsZod(module) {
  const source = readFileSync(join(repoRoot, module), 'utf8');
  return /^import\s+(?!type\b)[^;]*?from\s+'zod(?:\/[^']*)?';/ms.test(source);
}

/**
 * The JS a route loads before it renders: index.html's entry and modulepreloads, plus, for each
 * of `modules` in turn, its lazy chunk and that chunk's static imports, or nothing when the
 * module is bundled into a chunk already counted (else the route is not measured: an error).
 * `later` lists the dynamic imports of the route's own chunks (fetched on demand, not counted).
 */
export function routeBundle(webRoot, modules) {
  const html = readIndexHtml(webRoot);
  const manifest = readManifest(webRoot);
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry && manifest[key].file === html.entry);
  if (!entryKey)
    throw new BundleBudgetError(`index.html loads ${html.entry}, which the Vite manifest does not list as an entry.`);
  const keys = staticClosure(manifest, entryKey);
  for (const module of modules) {
    if (manifest[module]) {
      staticClosure(manifest, module, keys);
      continue;
    }
    const counted = [...keys].map((key) => manifest[key].file).concat(html.preloads);
    if (!counted.some((file) => modulesIn(webRoot, file).has(module)))
      throw new BundleBudgetError(`${module} is neither a chunk of its own nor in the chunks loaded before it.`);
  }
  const files = new Set([...keys].map((key) => manifest[key].file));
  for (const preload of html.preloads) files.add(preload);
  // The page's own on-demand chunks (the entry's dynamic imports are the other routes).
  const entryKeys = staticClosure(manifest, entryKey);
  const later = new Set();
  for (const key of [...keys].filter((own) => !entryKeys.has(own))) {
    for (const dynamic of manifest[key].dynamicImports ?? []) {
      for (const pulled of staticClosure(manifest, dynamic)) if (!keys.has(pulled)) later.add(manifest[pulled].file);
    }
  }
  const sizes = [...files].filter((file) => file.endsWith('.js')).map((file) => sizeOf(webRoot, file));
  sizes.sort((a, b) => b.gzip - a.gzip);
  const bundled = sizes.flatMap(({ file }) => [...modulesIn(webRoot, file)]);
  return {
    page: modules.at(-1),
    files: sizes,
    zodBefore: bundled.some((module) => module.includes('node_modules/zod/')),
    schemasBefore: bundled.filter((module) => module.startsWith('src/shared/schemas/') && importsZod(module)).sort(),
    gzip: sizes.reduce((sum, file) => sum + file.gzip, 0),
    bytes: sizes.reduce((sum, file) => sum + file.bytes, 0),
    later: [...later].sort(),
  };
}

/** The landing route against the budget, and the dashboard route as the peer. */
export function measureBundles(webRoot = DEFAULT_WEB_ROOT) {
  if (!existsSync(join(webRoot, 'index.html')))
    throw new BundleBudgetError(`No build in ${webRoot}: run \`npx vite build\` first.`);
  const landing = routeBundle(webRoot, [LANDING_PAGE]);
  const dashboard = routeBundle(webRoot, [APP, DASHBOARD_PAGE]);
  return {
    budget: LANDING_JS_BUDGET_BYTES,
    landing,
    dashboard,
    withinBudget: landing.gzip <= LANDING_JS_BUDGET_BYTES,
  };
}

/**
 * Neither route may load zod before it renders: building a module's schemas when it is evaluated
 * cost the dashboard's first paint a long task on a phone (docs/performance.md, Lighthouse). The
 * schemas load with the first answer (schemaOnDemand in src/web/api/http.ts); a first-paint
 * module that needs a constant of a schema module takes it from its zod-free sibling
 * (watchlistRules.ts, chatTexts.ts, alertRuleLimits.ts).
 */
export function zodProblems(result) {
  return [
    ["The landing route '/'", result.landing],
    ["The dashboard route '/dashboard'", result.dashboard],
  ]
    .filter(([, route]) => route.zodBefore)
    .map(
      ([title, route]) =>
        `${title} loads zod before it renders` +
        (route.schemasBefore.length > 0
          ? `, with ${route.schemasBefore.join(', ')}: import a first-paint constant from a zod-free module, and the schemas through schemaOnDemand.`
          : '.'),
    );
}

function printRoute(title, route) {
  console.log(`${title} (${route.page}): ${kB(route.gzip)} gzipped, ${kB(route.bytes)} raw`);
  for (const file of route.files)
    console.log(`  ${file.file.padEnd(44)} ${kB(file.gzip).padStart(10)} gz ${kB(file.bytes).padStart(10)} raw`);
  if (route.later.length > 0) console.log(`  not counted, loaded on demand: ${route.later.join(', ')}`);
}

export function printBundles(result) {
  printRoute("Landing route '/'", result.landing);
  printRoute("Dashboard route '/dashboard' (peer)", result.dashboard);
  const verdict = result.withinBudget ? 'within' : 'OVER';
  console.log(
    `Landing JS ${kB(result.landing.gzip)} gzipped: ${verdict} the budget of ${kB(result.budget)} ` +
      `(${((result.landing.gzip / result.budget) * 100).toFixed(0)}%; dashboard route ${kB(result.dashboard.gzip)}).`,
  );
  const zodRoutes = [result.landing, result.dashboard].filter((route) => route.zodBefore).map((route) => route.page);
  console.log(
    `zod before the first paint: ${zodRoutes.length === 0 ? 'on neither route (it loads with the first answer)' : `YES, ${zodRoutes.join(' and ')}`}.`,
  );
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  try {
    const result = measureBundles(process.argv[2] ? resolve(process.argv[2]) : DEFAULT_WEB_ROOT);
    printBundles(result);
    const problems = zodProblems(result);
    for (const problem of problems) console.error(problem);
    if (!result.withinBudget)
      console.error(
        `The landing route loads ${kB(result.landing.gzip - result.budget)} more gzipped JS than the budget allows (scripts/bundleBudget.mjs).`,
      );
    if (!result.withinBudget || problems.length > 0) process.exit(1);
  } catch (error) {
    if (!(error instanceof BundleBudgetError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
