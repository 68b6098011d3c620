import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionAdmitted } from './bootstrap.mjs';

describe('the Node version check of npm start and npm test', () => {
  const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  };

  it("admits this machine's Node and the versions engines names", () => {
    expect(nodeVersionAdmitted(process.versions.node, engines.node)).toBe(true);
    for (const version of ['20.19.0', '20.20.2', '22.13.0', '22.20.1', '24.0.0', '25.2.0'])
      expect(nodeVersionAdmitted(version, engines.node), version).toBe(true);
  });

  it('refuses the versions the dependencies do not run on', () => {
    for (const version of ['18.20.4', '20.18.3', '21.7.3', '22.12.0', '23.11.0'])
      expect(nodeVersionAdmitted(version, engines.node), version).toBe(false);
  });
});
