// Truthful requirements: every package in package-lock.json must run on every Node version that our
// package.json `engines.node` admits. A dependency that wants a newer Node (as content-disposition@3
// and cookie@2 want Node >= 22) fails this check; pin a compatible version with `overrides` in
// package.json, or raise `engines`. Run by `npm test` (scripts/test.mjs).
import { readFileSync } from 'node:fs';
import semver from 'semver';

const root = new URL('../', import.meta.url);
const ours = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).engines?.node;
if (!ours) {
  console.error('package.json has no engines.node.');
  process.exit(1);
}
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

const problems = [];
for (const [location, entry] of Object.entries(lock.packages ?? {})) {
  if (location === '' || entry.link) continue;
  // Optional packages for other platforms (os/cpu) are never installed on ours.
  if (entry.optional && (entry.os || entry.cpu)) continue;
  const wanted = entry.engines?.node; // a few old packages list engines as an array of notes: not checked
  if (typeof wanted !== 'string' || wanted.trim() === '' || wanted.trim() === '*') continue;
  let admits;
  try {
    admits = semver.subset(ours, wanted, { includePrerelease: false });
  } catch {
    admits = false;
  }
  if (!admits) problems.push(`${location.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${wanted}`);
}

if (problems.length > 0) {
  console.error(`These installed packages do not run on every Node that engines.node (${ours}) admits:`);
  for (const problem of problems) console.error(`  ${problem}`);
  console.error('Pin compatible versions with package.json "overrides", or raise engines.node.');
  process.exit(1);
}
console.log(`All ${Object.keys(lock.packages).length - 1} locked packages admit node ${ours}.`);
