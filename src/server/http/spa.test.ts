// The app shell: every client route gets index.html; a route listed in ROUTE_PAGES gets it made for
// its page: its stylesheet inline, the boot script asking (after the first paint) for the entry,
// the page chunk and that chunk's static imports (from Vite's manifest), never for the chunk's
// dynamic imports, and a preload link for the API answers the page renders from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOT_SCRIPT } from '../../shared/bootScript.ts';
import { compression } from './compression.ts';
import { pageChunkFiles, registerSpa, ROUTE_PAGES, withFetchPreloads, withModulePreloads } from './spa.ts';

const INDEX_HTML = `<!doctype html>
<html>
  <head>
    <script type="module" crossorigin src="/assets/index-1.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/app-1.js">
    <link rel="stylesheet" crossorigin href="/assets/index-1.css">
  </head>
  <body><div id="root"></div></body>
</html>`;

const MANIFEST = {
  'index.html': { file: 'assets/index-1.js', isEntry: true, imports: ['_app-1.js'] },
  '_app-1.js': { file: 'assets/app-1.js', css: ['assets/app-1.css'] },
  '_schemas-1.js': { file: 'assets/schemas-1.js' },
  '_market-1.js': { file: 'assets/market-1.js', imports: ['_app-1.js', '_schemas-1.js'] },
  'src/web/app.tsx': { file: 'assets/router-1.js', isDynamicEntry: true, imports: ['_app-1.js', '_schemas-1.js'] },
  'src/web/pages/DashboardPage.tsx': {
    file: 'assets/DashboardPage-1.js',
    isDynamicEntry: true,
    imports: ['_app-1.js', '_market-1.js', '_schemas-1.js'],
    dynamicImports: ['src/web/dashboard/chat/AiSection.tsx'],
  },
  'src/web/dashboard/chat/AiSection.tsx': { file: 'assets/AiSection-1.js', imports: ['_app-1.js'] },
};

describe('pageChunkFiles and withModulePreloads', () => {
  it('lists a page chunk after its static imports, once each, without its dynamic imports', () => {
    expect(pageChunkFiles(MANIFEST, ['src/web/pages/DashboardPage.tsx'])).toEqual([
      'assets/app-1.js',
      'assets/schemas-1.js',
      'assets/market-1.js',
      'assets/DashboardPage-1.js',
    ]);
    expect(pageChunkFiles(MANIFEST, ['src/web/app.tsx', 'src/web/pages/DashboardPage.tsx'])).toEqual([
      'assets/app-1.js',
      'assets/schemas-1.js',
      'assets/router-1.js',
      'assets/market-1.js',
      'assets/DashboardPage-1.js',
    ]);
    expect(pageChunkFiles(MANIFEST, ['src/web/pages/Missing.tsx'])).toEqual([]);
  });

  it('adds a link for each file index.html does not load already, before </head>', () => {
    const html = withModulePreloads(INDEX_HTML, [
      'assets/app-1.js',
      'assets/schemas-1.js',
      'assets/DashboardPage-1.js',
    ]);
    expect(html.match(/href="\/assets\/app-1\.js"/g)).toHaveLength(1);
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/schemas-1.js">');
    expect(html.indexOf('DashboardPage-1.js')).toBeGreaterThan(html.indexOf('schemas-1.js'));
    expect(html.indexOf('DashboardPage-1.js')).toBeLessThan(html.indexOf('</head>'));
  });

  it('preloads each API answer as a fetch with same-origin credentials, before </head>', () => {
    const html = withFetchPreloads(INDEX_HTML, ['/api/me', '/api/x?a=1&b="2"']);
    expect(html).toContain('<link rel="preload" as="fetch" crossorigin href="/api/me">');
    expect(html).toContain('<link rel="preload" as="fetch" crossorigin href="/api/x?a=1&amp;b=&quot;2&quot;">');
    expect(html.indexOf('/api/me')).toBeLessThan(html.indexOf('</head>'));
    expect(withFetchPreloads(INDEX_HTML, [])).toBe(INDEX_HTML);
  });
});

describe('registerSpa', () => {
  const webRoot = mkdtempSync(join(tmpdir(), 'watos-spa-'));
  const app = Fastify();

  beforeAll(async () => {
    mkdirSync(join(webRoot, '.vite'));
    mkdirSync(join(webRoot, 'assets'));
    writeFileSync(join(webRoot, 'index.html'), INDEX_HTML);
    writeFileSync(join(webRoot, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
    writeFileSync(join(webRoot, 'assets', 'app-1.js'), 'export {};');
    writeFileSync(join(webRoot, 'assets', 'index-1.css'), 'body{color:#fff}');
    await registerSpa(app, webRoot);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('serves /dashboard with its modules asked for by the boot script and GET /api/me preloaded, uncached, as HTML', async () => {
    expect(ROUTE_PAGES['/dashboard']).toEqual({
      modules: ['src/web/app.tsx', 'src/web/pages/DashboardPage.tsx'],
      fetches: ['/api/me'],
    });
    for (const url of ['/dashboard', '/dashboard/', '/dashboard?tab=alerts']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['cache-control']).toBe('no-cache');
      // No module script and no modulepreload link: the boot script asks for them, in this order,
      // once the page is painted.
      expect(response.body).not.toContain('<script type="module"');
      expect(response.body).not.toContain('rel="modulepreload"');
      const boot = /<script data-entry="([^"]+)" data-preload="([^"]+)">([^<]+)<\/script>/.exec(response.body);
      expect(boot?.[1]).toBe('/assets/index-1.js');
      expect(boot?.[2]!.split(' ')).toEqual([
        '/assets/app-1.js',
        '/assets/schemas-1.js',
        '/assets/router-1.js',
        '/assets/market-1.js',
        '/assets/DashboardPage-1.js',
      ]);
      expect(boot?.[3]).toBe(BOOT_SCRIPT);
      expect(response.body).not.toContain('AiSection-1.js');
      expect(response.body).toContain('<link rel="preload" as="fetch" crossorigin href="/api/me">');
      // The stylesheet inline: the first paint waits for the HTML alone.
      expect(response.body).toContain('<style>body{color:#fff}</style>');
      expect(response.body).not.toContain('index-1.css');
    }
  });

  it('serves other routes the built index.html as it is', async () => {
    for (const url of ['/', '/success', '/dashboard-old']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(INDEX_HTML);
    }
  });

  it('keeps unknown API paths a JSON 404 and serves the assets themselves', async () => {
    expect((await app.inject({ url: '/api/nothing' })).statusCode).toBe(404);
    // GET /metrics exists only with METRICS_TOKEN; without it, never the app shell.
    const metrics = await app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(404);
    expect(metrics.body).not.toContain('<html');
    const asset = await app.inject({ url: '/assets/app-1.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
  });
});

describe('registerSpa: a page with its stylesheet inline', () => {
  const webRoot = mkdtempSync(join(tmpdir(), 'watos-spa-big-'));
  const app = Fastify();
  const css = Array.from({ length: 200 }, (_, index) => `.rule-${index}{margin:${index}px}`).join('');

  beforeAll(async () => {
    mkdirSync(join(webRoot, '.vite'));
    mkdirSync(join(webRoot, 'assets'));
    writeFileSync(join(webRoot, 'index.html'), INDEX_HTML);
    writeFileSync(join(webRoot, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
    writeFileSync(join(webRoot, 'assets', 'index-1.css'), css);
    // As the app registers them: compression for every answer, then the pages.
    await app.register(compression);
    await registerSpa(app, webRoot);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('sends /dashboard compressed to a browser that accepts it, the same HTML to one that does not', async () => {
    const plain = await app.inject({ url: '/dashboard' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain(`<style>${css}</style>`);
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ] as const) {
      const response = await app.inject({ url: '/dashboard', headers: { 'accept-encoding': accept } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.headers.vary).toMatch(/accept-encoding/i);
      expect(response.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
      expect(decode(response.rawPayload).toString('utf8')).toBe(plain.body);
    }
  });
});

describe('registerSpa: a build without a chunk ROUTE_PAGES names', () => {
  it('refuses to start, naming the module, rather than serve a page whose code loads late', async () => {
    const webRoot = mkdtempSync(join(tmpdir(), 'watos-spa-missing-'));
    const app = Fastify();
    try {
      mkdirSync(join(webRoot, '.vite'));
      writeFileSync(join(webRoot, 'index.html'), INDEX_HTML);
      const { 'src/web/pages/DashboardPage.tsx': _dropped, ...manifest } = MANIFEST;
      writeFileSync(join(webRoot, '.vite', 'manifest.json'), JSON.stringify(manifest));
      await expect(registerSpa(app, webRoot)).rejects.toThrow(
        "The build's manifest has no chunk for src/web/pages/DashboardPage.tsx (ROUTE_PAGES of /dashboard)",
      );
    } finally {
      await app.close();
      rmSync(webRoot, { recursive: true, force: true });
    }
  });
});
