import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = path.dirname(fileURLToPath(import.meta.url));
const abs = (glob) => `${root}/${glob}`;

// ---------------------------------------------------------------------------------------------
// Import boundaries (issue 18), enforced with import-x/no-restricted-paths and import-x/no-cycle.
//
// Layers:  web -> shared;  server -> shared, signals;  signals -> shared;  shared -> (nothing of ours).
// Server features: a feature imports another feature only through its public surface:
//   <feature>/service.ts, <feature>/*Service.ts, or anything in <feature>/service/.
// The composition root (src/server/app.ts, src/server/main.ts) may also import <feature>/routes.ts.
// Infrastructure (src/server/{http,db,jobs,errors}/, config.ts, redis.ts) imports features only
// through their public surface too.
// Test files (*.test.ts[x]) and src/server/testing/** are exempt from the feature rule (they set up
// whatever they test) but not from the layer rule.
// ---------------------------------------------------------------------------------------------
const features = ['ai', 'alerts', 'auth', 'billing', 'embeds', 'files', 'mail', 'market', 'prompts', 'watchlists'];
const featureDir = (feature) => `src/server/${feature}`;
// Globs (import-x wants glob exceptions when `from` is a glob), matched against absolute paths.
const allPublicSurfaces = [abs('src/server/*/{service.ts,*Service.ts,service/**}')];
const allRouteFiles = [abs('src/server/*/routes.ts')];
const featureMessage = 'Import another server feature only through its service.ts (see eslint.config.js).';

const layerZones = [
  {
    target: abs('src/web/**'),
    from: [abs('src/server/**'), abs('src/signals/**')],
    message: 'The web app may import src/shared only (never src/server or src/signals).',
  },
  {
    target: abs('src/signals/**'),
    from: [abs('src/server/**'), abs('src/web/**')],
    message: 'src/signals may import src/shared only.',
  },
  {
    target: abs('src/shared/**'),
    from: [abs('src/server/**'), abs('src/signals/**'), abs('src/web/**')],
    message: 'src/shared must not import anything of ours outside src/shared.',
  },
  {
    target: abs('src/server/**'),
    from: [abs('src/web/**')],
    message: 'The server may import src/shared and src/signals, never src/web.',
  },
];

const featureZones = [
  ...features.map((feature) => ({
    target: abs(`${featureDir(feature)}/**`),
    from: features.filter((other) => other !== feature).map((other) => abs(`${featureDir(other)}/**`)),
    except: allPublicSurfaces,
    message: featureMessage,
  })),
  {
    target: [abs('src/server/{http,db,jobs,errors}/**'), abs('src/server/config.ts'), abs('src/server/redis.ts')],
    from: features.map((feature) => abs(`${featureDir(feature)}/**`)),
    except: allPublicSurfaces,
    message: 'Infrastructure imports a feature only through its service.ts.',
  },
  {
    target: [abs('src/server/app.ts'), abs('src/server/main.ts')],
    from: features.map((feature) => abs(`${featureDir(feature)}/**`)),
    except: [...allPublicSurfaces, ...allRouteFiles],
    message: 'The composition root imports a feature through its service.ts or routes.ts.',
  },
];

const testFiles = ['**/*.test.ts', '**/*.test.tsx'];

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
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/external-module-folders': importX.flatConfigs.typescript.settings['import-x/external-module-folders'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: abs('tsconfig.json') })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones, ...featureZones] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: [...testFiles.map((glob) => `src/${glob}`), 'src/server/testing/**'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
    },
  },
);
