// Web bundle size: the gzipped JS the landing route '/' loads before it renders, against the
// budget of scripts/bundleBudget.mjs (the same check `npm test` runs after the build). Peer:
// the dashboard route's JS from the same build, so the ratio shows what the lazy split keeps
// off the landing page. Builds dist/web first when it is missing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_WEB_ROOT, kB, measureBundles, printBundles } from '../scripts/bundleBudget.mjs';
import { report } from './report.ts';

if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) {
  console.log('No dist/web: building the web app (npx vite build)...');
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status ?? build.signal})`);
}

const result = measureBundles();
printBundles(result);
report({
  figure: "'/' JS gzipped (landing route)",
  target: `<= ${kB(result.budget)}`,
  measured: kB(result.landing.gzip),
  peer: `'/dashboard' route ${kB(result.dashboard.gzip)}`,
  ratio: result.landing.gzip / result.dashboard.gzip,
  pass: result.withinBudget,
});
