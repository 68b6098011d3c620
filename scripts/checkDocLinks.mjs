// Every relative link in README.md and docs/**/*.md must resolve: the file (or folder) exists,
// and a #fragment names a heading of the target Markdown file (GitHub's anchor rules). Also:
// no table is split by a blank line (rows after it would render as a stray paragraph), and
// every repository path quoted in code style (`src/...`, `scripts/...`, `bench/...`, `e2e/...`)
// exists, so a moved file cannot leave the docs pointing at nothing.
// Plain Node, no dependencies. Exits 1 and lists what is broken; 0 when all is well.
//   node scripts/checkDocLinks.mjs
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function markdownFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Text outside fenced code blocks and inline code, where links are links. */
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats. */
function anchorsOf(file) {
  const anchors = new Set();
  const seen = new Map();
  const text = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

const FENCE = /^(```|~~~)/;
const SEPARATOR_ROW = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** Tables whose second line is not a separator row: rows cut off from their header. */
function splitTables(file) {
  const problems = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  let inFence = false;
  for (let index = 0; index < lines.length; index += 1) {
    if (FENCE.test(lines[index].trim())) inFence = !inFence;
    if (inFence || !lines[index].trimStart().startsWith('|')) continue;
    const startsBlock = index === 0 || !lines[index - 1].trimStart().startsWith('|');
    if (startsBlock && !SEPARATOR_ROW.test(lines[index + 1]?.trim() ?? ''))
      problems.push(
        `${relative(root, file)}:${index + 1}: table rows without a header row (a blank line splits a table?)`,
      );
  }
  return problems;
}

const QUOTED_PATH = /`((?:src|scripts|bench|e2e|public|\.ci)\/[A-Za-z0-9_./-]+)`/g;

/** Repository paths quoted in code style that do not exist (globs and placeholders skipped). */
function missingPaths(file) {
  const text = readFileSync(file, 'utf8');
  return [...new Set([...text.matchAll(QUOTED_PATH)].map((match) => match[1]))]
    .filter((path) => !path.includes('...') && !existsSync(join(root, path.replace(/\/$/, ''))))
    .map((path) => `${relative(root, file)}: \`${path}\` (no such file in the repository)`);
}

const files = [join(root, 'README.md'), ...(existsSync(join(root, 'docs')) ? markdownFiles(join(root, 'docs')) : [])];
const broken = [];
let checked = 0;
for (const file of files) {
  broken.push(...splitTables(file));
  if (!file.endsWith('docs/SPEC.md')) broken.push(...missingPaths(file));
  const text = prose(readFileSync(file, 'utf8'));
  const targets = [
    ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
    ...[...text.matchAll(/^\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((match) => match[1]),
  ];
  for (const target of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    checked += 1;
    const [pathPart, fragment] = target.split('#', 2);
    const path = pathPart ? resolve(dirname(file), decodeURIComponent(pathPart)) : file;
    const where = relative(root, file);
    if (!existsSync(path)) {
      broken.push(`${where}: ${target} (no such file)`);
    } else if (fragment !== undefined && fragment !== '') {
      if (statSync(path).isDirectory() || !path.endsWith('.md')) continue;
      if (!anchorsOf(path).has(decodeURIComponent(fragment).toLowerCase()))
        broken.push(`${where}: ${target} (no heading #${fragment} in ${relative(root, path)})`);
    }
  }
}

if (broken.length > 0) {
  console.error(
    `Broken documentation links or tables (${broken.length}):\n${broken.map((line) => `  ${line}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`Documentation: ${checked} relative links and every quoted path in ${files.length} files resolve.`);
