// The Content-Security-Policy's scripts: our own files, the embeds' origins, and one inline
// script, the boot script of the landing and the dashboard (src/shared/bootScript.ts), allowed by the hash of its exact
// text; inline scripts in general stay blocked.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOOT_SCRIPT } from '../../shared/bootScript.ts';
import { loadConfig } from '../config.ts';
import { helmetOptions, securityHeaders } from './security.ts';

describe('the Content-Security-Policy', () => {
  it("allows the landing's boot script by its hash and no other inline script", () => {
    const csp = securityHeaders(helmetOptions(loadConfig({})))['content-security-policy'];
    const scriptSrc = csp.split(';').find((directive) => directive.trim().startsWith('script-src'));
    const hash = createHash('sha256').update(BOOT_SCRIPT).digest('base64');
    expect(scriptSrc).toContain(`'sha256-${hash}'`);
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc?.match(/'sha256-/g)).toHaveLength(1);
  });
});
