import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Import boundaries (issue 18), enforced with eslint-plugin-boundaries (`boundaries/dependencies`).
// Import cycles are checked by scripts/checkCycles.mjs (`npm run cycles`, a step of `npm test`).
//
// Layers:  web -> shared;  server -> shared, signals;  signals -> shared;  shared -> (nothing of ours).
// Server features: a feature imports only the features featureDependencies names (the server's
// layers, so no feature import runs back up), and those only through their public surface:
//   <feature>/service.ts, <feature>/*Service.ts, or anything in <feature>/service/.
// The composition root (src/server/app.ts, src/server/main.ts) may also import <feature>/routes.ts.
// Infrastructure (src/server/{http,db,jobs,errors}/, config.ts, redis.ts) imports features only
// through their public surface too.
// Test files (*.test.ts[x]) and src/server/testing/** are exempt from the feature rule (they set up
// whatever they test) but not from the layer rule.
// Every import counts: value and type imports, `export ... from`, and dynamic import().
//
// Elements are folders (first match wins): shared, web, signals, infrastructure folders,
// src/server/testing, one element per feature folder (captured as `feature`), and src/server itself
// (its loose files). Files get categories: a feature's public surface, routes.ts, the composition
// root and the loose infrastructure files (config.ts, redis.ts).
// Policies are read in order and the last one that matches decides (default: allow).
// To add a public file (e.g. `types.ts` for pure types), add a pattern to `publicSurface`.
// ---------------------------------------------------------------------------------------------
// Each server feature and the features it may import (through their public surface): the
// layers of the server, bottom up. A feature folder missing here is refused to every listed one.
const featureDependencies = {
  embeds: [],
  files: [],
  mail: [],
  market: [],
  prompts: [],
  symbols: [],
  watchlists: [],
  analysis: ['market'],
  auth: ['mail'],
  billing: ['auth'],
  forecasts: ['analysis', 'market'],
  studies: ['forecasts', 'market'],
  alerts: ['auth', 'billing', 'market'],
  rules: ['alerts', 'analysis', 'billing', 'forecasts', 'mail'],
  ai: ['alerts', 'analysis', 'files', 'forecasts', 'market', 'studies', 'watchlists'],
  live: ['alerts', 'auth', 'billing', 'market'],
  scans: ['alerts', 'analysis', 'market', 'rules'],
};
const features = Object.keys(featureDependencies);
const publicSurface = ['src/server/*/service.ts', 'src/server/*/*Service.ts', 'src/server/*/service/**/*'];
const element = (type, pattern, capture) => ({ type, pattern, capture, partialMatch: false, stopMatching: true });
const boundaryElements = [
  element('shared', 'src/shared'),
  element('web', 'src/web'),
  element('signals', 'src/signals'),
  element('infrastructure', 'src/server/{http,db,jobs,errors}'),
  element('server-testing', 'src/server/testing'),
  element('feature', 'src/server/*', ['feature']),
  element('server', 'src/server'),
];
const category = (name, pattern) => ({ category: name, pattern, partialMatch: false });
const boundaryFiles = [
  category('public', publicSurface),
  category('routes', 'src/server/*/routes.ts'),
  category('composition-root', 'src/server/{app,main}.ts'),
  category('infrastructure', 'src/server/{config,redis}.ts'),
];
const serverTypes = ['infrastructure', 'server-testing', 'feature', 'server'];
const featureMessage = 'Import another server feature only through its service.ts (see eslint.config.js).';

const layerPolicies = [
  {
    from: { element: { type: 'web' } },
    disallow: { to: { element: { type: [...serverTypes, 'signals'] } } },
    message: 'The web app may import src/shared only (never src/server or src/signals).',
  },
  {
    from: { element: { type: 'signals' } },
    disallow: { to: { element: { type: [...serverTypes, 'web'] } } },
    message: 'src/signals may import src/shared only.',
  },
  {
    from: { element: { type: 'shared' } },
    disallow: { to: { element: { type: [...serverTypes, 'signals', 'web'] } } },
    message: 'src/shared must not import anything of ours outside src/shared.',
  },
  {
    from: { element: { type: serverTypes } },
    disallow: { to: { element: { type: 'web' } } },
    message: 'The server may import src/shared and src/signals, never src/web.',
  },
];

const featurePolicies = [
  ...features.map((feature) => ({
    from: { element: { type: 'feature', captured: { feature } } },
    disallow: { to: { element: { type: 'feature', captured: { feature: `!${feature}` } } } },
    message: featureMessage,
  })),
  {
    from: [
      { element: { type: 'infrastructure' } },
      { element: { type: 'server' }, file: { categories: 'infrastructure' } },
    ],
    disallow: { to: { element: { type: 'feature' } } },
    message: 'Infrastructure imports a feature only through its service.ts.',
  },
  {
    from: { element: { type: 'server' }, file: { categories: 'composition-root' } },
    disallow: { to: { element: { type: 'feature' } } },
    message: 'The composition root imports a feature through its service.ts or routes.ts.',
  },
  {
    from: { element: { type: 'server' }, file: { categories: 'composition-root' } },
    allow: { to: { element: { type: 'feature' }, file: { categories: 'routes' } } },
  },
  {
    // A feature's public surface is open to every server file (the layer policies above still
    // keep web, signals and shared away from it)...
    from: { element: { type: serverTypes } },
    allow: { to: { element: { type: 'feature' }, file: { categories: 'public' } } },
  },
  // ...except that a feature imports only the features it depends on (featureDependencies).
  ...Object.entries(featureDependencies).map(([feature, allowed]) => ({
    from: { element: { type: 'feature', captured: { feature } } },
    disallow: {
      to: { element: { type: 'feature', captured: { feature: `!{${[feature, ...allowed, ''].join(',')}}` } } },
    },
    message:
      allowed.length > 0
        ? `${feature} may import only these features: ${allowed.join(', ')} (featureDependencies in eslint.config.js).`
        : `${feature} imports no other feature (featureDependencies in eslint.config.js).`,
  })),
];
// Messages end with the offending import, e.g. `... ("./billing/stripe.ts")`.
const withSource = (policy) =>
  policy.message ? { ...policy, message: `${policy.message} ("{{ dependency.source }}")` } : policy;
const boundaryRule = (policies) => [
  'error',
  { default: 'allow', checkInternals: true, policies: policies.map(withSource) },
];

const testFiles = ['**/*.test.ts', '**/*.test.tsx'];

// ---------------------------------------------------------------------------------------------
// Dashboard features (issue 35): a file in src/web/dashboard/<feature>/ imports another feature
// only through that feature's index.ts, its public surface (what other features may use). The
// dashboard's composition (src/web/pages/DashboardPage.tsx, src/web/dashboard/*.tsx) and tests
// are not feature files and may import any module, e.g. a panel loaded on demand that a feature's
// index.ts leaves out so that a feature on the first paint does not pull it in (vite.config.ts
// groups chunks by static imports). Features are one folder deep; the patterns match the
// relative specifiers such a file writes: '../<feature>/<file>' or
// '../../dashboard/<feature>/<file>'. Static imports, `export ... from` and dynamic import().
// ---------------------------------------------------------------------------------------------
const otherFeatureFile = String.raw`^\.\./(?:\.\./dashboard/)?[\w-]+/(?!index\.ts$)`;
const dashboardFeatureMessage =
  "Import another dashboard feature only through its index.ts (see eslint.config.js: 'Dashboard features').";
// The tab's live connection (src/web/live/, issue 34) is used by every feature the same way:
// through its index.ts (the provider and hooks), never its connection class or store.
const liveInternalFile = String.raw`^\.\./\.\./live/(?!index\.ts$)`;
const liveMessage =
  "Use the live connection through src/web/live/index.ts (see eslint.config.js: 'Dashboard features').";
const dashboardFeatureBlock = {
  files: ['src/web/dashboard/*/**/*.{ts,tsx}'],
  ignores: testFiles,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: otherFeatureFile, message: dashboardFeatureMessage },
          { regex: liveInternalFile, message: liveMessage },
        ],
      },
    ],
    'no-restricted-syntax': [
      'error',
      ...[
        [otherFeatureFile, dashboardFeatureMessage],
        [liveInternalFile, liveMessage],
      ].map(([pattern, message]) => ({
        selector: `ImportExpression > Literal.source[value=/${pattern.replaceAll('/', String.raw`\/`)}/]`,
        message,
      })),
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      '.data-test/**',
      '.cache/**',
      'test-results/**',
      'playwright-report/**',
      'src/server/db/migrations/**',
    ],
  },
  js.configs.recommended,
  // Type-aware rules for every TypeScript file; the projectService finds the file's project
  // through the solution tsconfig.json (tsconfig.web/server/tools.json).
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.{ts,tsx,mts,cts}'] })),
  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Off on purpose: Fastify's plugin contract is an async function, and implementations of
      // Promise-returning interfaces (stores, providers, fakes) stay `async` so that a throw
      // inside becomes a rejected promise, as every caller expects. Dropping `async` to satisfy
      // this rule would turn those throws into synchronous exceptions: a behaviour change.
      // Floating and misused promises (the rules that catch real bugs) stay on.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: testFiles,
    rules: {
      // `expect(spy.method).toHaveBeenCalled()` and `vi.spyOn` hand methods around without calling
      // them; that is how vitest is used, not a lost `this`.
      '@typescript-eslint/unbound-method': 'off',
      // vitest's asymmetric matchers (expect.any, expect.stringMatching, expect.objectContaining) are
      // typed `any`, and tests put them in the object literals they compare with toEqual. Response
      // bodies are still checked: member access, calls and arguments on `any` stay errors (read
      // bodies with jsonBody<T>() from src/server/testing/http.ts).
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // React's hook rules belong to React code; Playwright fixtures also call a `use`.
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Plain JavaScript (configs, scripts/*.mjs) has no project: lint it without type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
  // Boundaries.
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': root,
      'boundaries/elements': boundaryElements,
      'boundaries/files': boundaryFiles,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      // Our imports name the file with its extension ('./service.ts'); the node resolver finds them.
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.json'] } },
    },
    rules: {
      'boundaries/dependencies': boundaryRule([...layerPolicies, ...featurePolicies]),
    },
  },
  {
    files: [...testFiles.map((glob) => `src/${glob}`), 'src/server/testing/**'],
    rules: {
      'boundaries/dependencies': boundaryRule(layerPolicies),
    },
  },
  dashboardFeatureBlock,
);
