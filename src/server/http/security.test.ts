// The Content-Security-Policy's scripts: our own files, the embeds' origins, and one inline
// script, the boot script of the landing and the dashboard (src/shared/bootScript.ts), allowed by the hash of its exact
// text; inline scripts in general stay blocked.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { BOOT_SCRIPT } from '../../shared/bootScript.ts';
import { loadConfig } from '../config.ts';
import { JSON_CSP, securityHeaders } from './security.ts';

async function answers() {
  const app = Fastify();
  await app.register(securityHeaders, loadConfig({}));
  app.get('/page', async (_request, reply) => reply.type('text/html').send('<p>page</p>'));
  app.get('/json', async () => ({ ok: true }));
  await app.ready();
  const page = await app.inject({ url: '/page' });
  const json = await app.inject({ url: '/json' });
  await app.close();
  return { page, json };
}

describe('the Content-Security-Policy', () => {
  it("allows the landing's boot script by its hash and no other inline script", async () => {
    const csp = String((await answers()).page.headers['content-security-policy']);
    const scriptSrc = csp.split(';').find((directive) => directive.trim().startsWith('script-src'));
    const hash = createHash('sha256').update(BOOT_SCRIPT).digest('base64');
    expect(scriptSrc).toContain(`'sha256-${hash}'`);
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc?.match(/'sha256-/g)).toHaveLength(1);
  });

  it("gives a JSON answer a policy of its own and keeps helmet's other headers on it", async () => {
    const { page, json } = await answers();
    expect(json.headers['content-security-policy']).toBe(JSON_CSP);
    for (const name of ['x-content-type-options', 'x-frame-options', 'referrer-policy'])
      expect(json.headers[name]).toBe(page.headers[name]);
    expect(page.headers['referrer-policy']).toBe('same-origin');
  });
});
