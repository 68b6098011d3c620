// The alert log query over 1,000,000 stored alerts (PGlite, the embedded database, with the
// migrations' indexes), and over 5,000,000 on PostgreSQL when TEST_DATABASE_URL is set (a
// database of its own, dropped afterwards): latency of filtered queries like the All-Market
// Alert Log sends (queryAlerts, the records the route answers with), p50/p95, against
// the peer measured in the same run: the same SQL sent straight to the database's own client
// (no query builder, no mapping). A second peer for scale: the same filter done by scanning
// every alert in memory. Target: p95 under 3 ms on each database.
import { sql } from 'drizzle-orm';
import { queryAlerts } from '../src/server/alerts/service.ts';
import { openDatabase, type Database } from '../src/server/db/client.ts';
import { openTestDatabase } from '../src/server/db/testing.ts';
import type { AlertQuery } from '../src/shared/schemas/alerts.ts';
import { ALERT_TYPES, CRYPTO_SYMBOLS } from '../src/shared/constants.ts';
import { formatAlertTimestamp, parseAlertTimestamp } from '../src/shared/alertDisplay.ts';
import { percentile, report } from './report.ts';

const QUERIES = 300;
const TARGET_MS = 3;
const tickers = CRYPTO_SYMBOLS.map((id) => id.replace(/-USD$/, ''));
const now = Date.UTC(2026, 5, 1);
const spanMs = 365 * 86_400_000;

let state = 9;
const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
const queries: AlertQuery[] = Array.from({ length: QUERIES }, () => {
  const end = now - random() * spanMs * 0.9;
  const windowMs = [3_600_000, 86_400_000, 7 * 86_400_000][Math.floor(random() * 3)]!;
  return {
    alert_type: random() < 0.5 ? ALERT_TYPES[Math.floor(random() * 4)] : undefined,
    symbol: random() < 0.5 ? tickers[Math.floor(random() * tickers.length)] : undefined,
    max_count: [10, 50, 100][Math.floor(random() * 3)],
    start_time: formatAlertTimestamp(new Date(end - windowMs)),
    end_time: formatAlertTimestamp(new Date(end)),
  };
});

async function seed(db: Database, count: number): Promise<void> {
  console.log(`Inserting ${count.toLocaleString('en-US')} alerts...`);
  await db.execute(
    sql.raw(`
    insert into alerts (ticker, alert_type, message, timestamp, source)
    select (array['${tickers.join("','")}'])[1 + (n % ${tickers.length})],
           (array['${ALERT_TYPES.join("','")}'])[1 + ((n / ${tickers.length}) % 4)],
           'Benchmark alert ' || n,
           to_timestamp(${(now - spanMs) / 1000} + (n::double precision * ${spanMs / 1000 / count})),
           'demo'
    from generate_series(1, ${count}) as n`),
  );
  await db.execute(sql`analyze alerts`);
}

/** The statement queryAlerts sends, as text for the database's own client. */
function directStatement(query: AlertQuery): { text: string; params: unknown[] } {
  const params: unknown[] = [parseAlertTimestamp(query.start_time!), parseAlertTimestamp(query.end_time!)];
  let where = 'timestamp >= $1 and timestamp <= $2';
  if (query.alert_type) where += ` and alert_type = $${params.push(query.alert_type)}`;
  if (query.symbol) where += ` and ticker = $${params.push(query.symbol)}`;
  const limit = `$${params.push(query.max_count)}`;
  return {
    text: `select ticker, alert_type, message, timestamp from alerts where ${where} order by timestamp desc, id desc limit ${limit}`,
    params,
  };
}

type DirectClient = { query(text: string, params: unknown[]): Promise<unknown> };

async function measure(db: Database, label: string, alerts: number): Promise<void> {
  const client = (db as unknown as { $client: DirectClient }).$client;
  const statements = queries.map(directStatement);
  // One untimed round of each first (statement caches, the index pages).
  for (const query of queries.slice(0, 30)) await queryAlerts(db, query, new Date(now));
  for (const statement of statements.slice(0, 30)) await client.query(statement.text, statement.params);
  const ours: number[] = [];
  const direct: number[] = [];
  // Alternating, so a busy moment of the machine falls on both.
  for (let index = 0; index < queries.length; index++) {
    let started = performance.now();
    await queryAlerts(db, queries[index]!, new Date(now));
    ours.push(performance.now() - started);
    started = performance.now();
    await client.query(statements[index]!.text, statements[index]!.params);
    direct.push(performance.now() - started);
  }
  const plan = await client.query(`explain analyze ${statements[0]!.text}`, statements[0]!.params);
  console.log(`\nPlan of the first query (${JSON.stringify(queries[0])}):`);
  for (const row of (plan as { rows: Array<Record<string, string>> }).rows) console.log(`  ${Object.values(row)[0]}`);

  const p95 = percentile(ours, 0.95);
  const directP95 = percentile(direct, 0.95);
  console.log(`\n${QUERIES} filtered alert-log queries over ${alerts.toLocaleString('en-US')} alerts, ${label}`);
  console.log('                                   p50 ms   p95 ms');
  console.log(`queryAlerts (records)    ${percentile(ours, 0.5).toFixed(2).padStart(9)} ${p95.toFixed(2).padStart(8)}`);
  console.log(
    `peer: same SQL, direct client  ${percentile(direct, 0.5).toFixed(2).padStart(9)} ${directP95.toFixed(2).padStart(8)}`,
  );
  console.log(`target p95 < ${TARGET_MS} ms: ${p95 < TARGET_MS ? 'met' : 'NOT met'}`);
  report({
    figure: `alert-log query p95 (${alerts.toLocaleString('en-US')} alerts, ${label})`,
    target: `< ${TARGET_MS} ms`,
    measured: `${p95.toFixed(2)} ms (p50 ${percentile(ours, 0.5).toFixed(2)} ms)`,
    peer: `same SQL on the direct client ${directP95.toFixed(2)} ms`,
    ratio: p95 / directP95,
    pass: p95 < TARGET_MS,
  });
}

const PGLITE_ALERTS = 1_000_000;
const database = await openDatabase({});
await database.migrate();
await seed(database.db, PGLITE_ALERTS);
await measure(database.db, 'PGlite', PGLITE_ALERTS);

// For scale: the same filters by scanning every alert in memory.
const memory = Array.from({ length: PGLITE_ALERTS }, (_, index) => {
  const n = index + 1;
  return {
    ticker: tickers[n % tickers.length],
    alertType: ALERT_TYPES[Math.floor(n / tickers.length) % 4],
    timestamp: now - spanMs + n * (spanMs / PGLITE_ALERTS),
  };
});
const scan: number[] = [];
for (const query of queries) {
  const started = performance.now();
  const start = parseAlertTimestamp(query.start_time!).getTime();
  const end = parseAlertTimestamp(query.end_time!).getTime();
  memory
    .filter(
      (alert) =>
        alert.timestamp >= start &&
        alert.timestamp <= end &&
        (!query.alert_type || alert.alertType === query.alert_type) &&
        (!query.symbol || alert.ticker === query.symbol),
    )
    .sort((a, b) => b.timestamp - a.timestamp)
    .slice(0, query.max_count);
  scan.push(performance.now() - started);
}
console.log(
  `in-memory full scan (for scale)    ${percentile(scan, 0.5).toFixed(2).padStart(6)} ${percentile(scan, 0.95).toFixed(2).padStart(8)}`,
);
await database.close();

if (process.env.TEST_DATABASE_URL) {
  const POSTGRES_ALERTS = 5_000_000;
  const postgres = await openTestDatabase('postgres');
  try {
    await seed(postgres.db, POSTGRES_ALERTS);
    await measure(postgres.db, 'PostgreSQL', POSTGRES_ALERTS);
  } finally {
    await postgres.close();
  }
} else {
  console.log('\nTEST_DATABASE_URL is not set: the PostgreSQL run (5,000,000 alerts) is skipped.');
}
