// The HTML for each page: '/' gets landing.html (the landing prerendered by vite.config.ts) when
// the build has one, every other client route index.html; API paths never get a page.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSpa } from './spa.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function serve(withLanding: boolean) {
  const webRoot = mkdtempSync(join(tmpdir(), 'watos-spa-'));
  roots.push(webRoot);
  writeFileSync(join(webRoot, 'index.html'), '<div id="root">Loading...</div>');
  if (withLanding) writeFileSync(join(webRoot, 'landing.html'), '<div id="root" data-landing-shell>Landing</div>');
  const app = Fastify();
  await registerSpa(app, webRoot);
  return app;
}

describe('registerSpa', () => {
  it("sends landing.html for '/' (with or without a query) and index.html for other pages", async () => {
    const app = await serve(true);
    for (const url of ['/', '/?ref=ad'])
      expect((await app.inject({ method: 'GET', url })).body).toContain('data-landing-shell');
    for (const url of ['/dashboard', '/ai-trading-intelligence', '/reset-password?token=x']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toBe('<div id="root">Loading...</div>');
    }
    expect((await app.inject({ method: 'GET', url: '/api/nothing' })).statusCode).toBe(404);
    await app.close();
  });

  it("sends index.html for '/' when the build has no landing.html", async () => {
    const app = await serve(false);
    expect((await app.inject({ method: 'GET', url: '/' })).body).toBe('<div id="root">Loading...</div>');
    await app.close();
  });
});
