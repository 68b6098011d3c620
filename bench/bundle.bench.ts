// Web bundle size: the gzipped JS the landing route '/' loads before it renders, against the
// budget of scripts/bundleBudget.mjs (the same check `npm test` runs after the build). Peer:
// the dashboard route's JS from the same build, so the ratio shows what the lazy split keeps
// off the landing page. Builds dist/web first when it is missing.
import { DEFAULT_WEB_ROOT, kB, measureBundles, printBundles } from '../scripts/bundleBudget.mjs';
import { ensureWebBuild } from './benchProcess.ts';
import { report } from './report.ts';

ensureWebBuild(DEFAULT_WEB_ROOT);

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
