// Vitest global setup: one migrated PGlite, dumped to a file once, that every test file's
// in-memory database starts from (openTestDatabase) instead of running initdb and the
// migrations again: PGlite's initdb is most of a fresh database's cost (seconds a file).
// The dump is kept in .cache/pglite/, named by the migrations' and PGlite's content, so a
// changed migration or PGlite makes a new one.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder } from '../db/client.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The template's file for this build's migrations and PGlite version. */
function templatePath(): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(process.cwd(), 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  for (const file of filesUnder(migrationsFolder))
    hash.update(file.slice(migrationsFolder.length)).update(readFileSync(file));
  return join(process.cwd(), '.cache', 'pglite', `template-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** Makes (or finds) the migrated template and names it to the test processes. */
export default async function setup(): Promise<void> {
  const path = templatePath();
  if (!existsSync(path)) {
    const started = Date.now();
    const pglite = await PGlite.create();
    await migrate(drizzle(pglite), { migrationsFolder });
    const dump = await pglite.dumpDataDir('none');
    await pglite.close();
    mkdirSync(join(path, '..'), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
    console.log(`PGlite test template made in ${Date.now() - started} ms: ${path}`);
  }
  process.env.PGLITE_TEST_TEMPLATE = path;
}
