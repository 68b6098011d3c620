// `npm run bench`: runs every bench/*.bench.ts in its own Node process, one after another,
// so one benchmark's garbage and JIT state never colour the next one's figures.
// `npm run bench -- NAME` runs only the files whose name contains NAME.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts') && name.includes(filter))
  .sort();

if (files.length === 0) {
  console.error(`No benchmark matches "${filter}".`);
  process.exit(1);
}

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, file)], {
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    failed += 1;
    console.error(`${file} exited with ${run.status ?? run.signal}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
