// Where an embedded-database server spends its PGlite time, by SQL statement. PGlite runs on
// the database's own thread (src/server/db/pgliteThread.ts), which loads this module first when
// the server's PGLITE_THREAD_PRELOAD names it, e.g. in the load bench's PGlite phase:
//   BENCH_PHASES=pglite PGLITE_THREAD_PRELOAD=bench/pgliteProbe.mjs npm run bench -- load
// (the bench's servers inherit its environment). It times PGlite's
// synchronous protocol execution (the WebAssembly Postgres and its wire protocol; queries run
// one at a time) and charges each call to the last SQL text seen (the extended protocol's Bind
// and Execute carry none). Every 5 s and at exit it writes the 40 costliest statements to
// PGLITE_PROBE_OUT (default /tmp/pglite-probe-PID.txt):
// total ms, protocol calls (a query made through drizzle is several: parse, describe, bind and
// execute), microseconds a call, the statement's first 90 characters.
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';

const SQL_START = /(select|insert|update|delete|with|begin|commit|listen|set)\b[^\0]{0,90}/i;
const out = process.env.PGLITE_PROBE_OUT ?? `/tmp/pglite-probe-${process.pid}.txt`;
const stats = new Map();
let lastSql = null;
const original = PGlite.prototype.execProtocolRawSync;

PGlite.prototype.execProtocolRawSync = function timedExecProtocolRawSync(message, ...rest) {
  const text = Buffer.from(message.buffer, message.byteOffset, message.byteLength).toString('latin1');
  const match = SQL_START.exec(text);
  if (match) lastSql = match[0].replace(/\s+/g, ' ');
  const key = lastSql ?? `(message ${text.charCodeAt(0)}, ${text.length} bytes)`;
  const started = process.hrtime.bigint();
  try {
    return original.call(this, message, ...rest);
  } finally {
    const entry = stats.get(key) ?? { calls: 0, ns: 0 };
    entry.calls += 1;
    entry.ns += Number(process.hrtime.bigint() - started);
    stats.set(key, entry);
  }
};

function write() {
  if (stats.size === 0) return;
  const total = [...stats.values()].reduce((sum, entry) => sum + entry.ns, 0);
  const rows = [...stats]
    .sort((a, b) => b[1].ns - a[1].ns)
    .slice(0, 40)
    .map(
      ([sql, { calls, ns }]) =>
        `${(ns / 1e6).toFixed(0).padStart(7)} ms ${String(calls).padStart(7)}x ${(ns / calls / 1e3).toFixed(0).padStart(6)} us  ${sql}`,
    );
  writeFileSync(out, `PGlite time in all: ${(total / 1e6).toFixed(0)} ms\n${rows.join('\n')}\n`);
}

setInterval(write, 5000).unref();
process.on('exit', write);
