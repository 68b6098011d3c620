// Import cycle check over src/ (`npm run cycles`, and a step of `npm test`). Exits 1 and prints
// every cycle when the runtime import graph of src/**/*.{ts,tsx} has one.
//
// Edges are the imports that exist at runtime: `import ... from`, `import '...'` and
// `export ... from` with a relative specifier. Not edges:
// - `import type ...` / `export type ... from` (erased; e.g. ai/routes.ts -> `import type { AppServices } from '../app.ts'`);
// - dynamic `import()` (loaded lazily, after both modules have finished evaluating).
// `import { type A } from './a.ts'` IS an edge: with verbatimModuleSyntax (tsconfig.base.json) it
// compiles to `import {} from './a.ts'`, which still loads ./a.ts.
// Parsing uses the TypeScript compiler we already depend on (no native or platform packages).
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'src');
const ignoredDirs = new Set(['node_modules', 'migrations']);

function listSources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!ignoredDirs.has(entry.name)) out.push(...listSources(full));
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

function resolveRelative(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

function runtimeImports(file) {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const specifiers = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly) continue;
      specifiers.push(statement.moduleSpecifier);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      if (statement.isTypeOnly) continue;
      specifiers.push(statement.moduleSpecifier);
    }
  }
  const targets = [];
  for (const node of specifiers) {
    if (!ts.isStringLiteral(node) || !node.text.startsWith('.')) continue;
    const target = resolveRelative(file, node.text);
    if (target) targets.push(target);
  }
  return targets;
}

const files = listSources(srcDir);
const graph = new Map(files.map((file) => [file, runtimeImports(file)]));

// Tarjan's strongly connected components; every component with more than one file (or a file
// importing itself) contains a cycle.
let index = 0;
const indexOf = new Map();
const lowLink = new Map();
const stack = [];
const onStack = new Set();
const components = [];

function strongConnect(file) {
  indexOf.set(file, index);
  lowLink.set(file, index);
  index += 1;
  stack.push(file);
  onStack.add(file);
  for (const next of graph.get(file) ?? []) {
    if (!graph.has(next)) continue;
    if (!indexOf.has(next)) {
      strongConnect(next);
      lowLink.set(file, Math.min(lowLink.get(file), lowLink.get(next)));
    } else if (onStack.has(next)) {
      lowLink.set(file, Math.min(lowLink.get(file), indexOf.get(next)));
    }
  }
  if (lowLink.get(file) === indexOf.get(file)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component);
  }
}

for (const file of files) if (!indexOf.has(file)) strongConnect(file);

// One concrete cycle per component, for the message: walk inside the component until a file repeats.
function exampleCycle(component) {
  const members = new Set(component);
  const pathSoFar = [component[0]];
  const seen = new Map([[component[0], 0]]);
  for (;;) {
    const current = pathSoFar[pathSoFar.length - 1];
    const next = graph.get(current).find((target) => members.has(target));
    if (seen.has(next)) return [...pathSoFar.slice(seen.get(next)), next];
    seen.set(next, pathSoFar.length);
    pathSoFar.push(next);
  }
}

const rel = (file) => path.relative(root, file);
if (components.length === 0) {
  console.log(`No import cycles in src/ (${files.length} files).`);
} else {
  console.error(`Import cycles in src/ (${components.length}):`);
  for (const component of components) {
    console.error(`\n  ${exampleCycle(component).map(rel).join('\n    -> ')}`);
    if (component.length > 2) console.error(`  (files in this knot: ${component.map(rel).sort().join(', ')})`);
  }
  console.error('\nBreak the cycle (move the shared part into a third module, or import types with `import type`).');
  process.exit(1);
}
