// The alert log query over 1,000,000 stored alerts (PGlite, the embedded database, with the
// migrations' indexes): latency of filtered queries like the All-Market Alert Log sends,
// p50/p95 against a peer measured in the same run: the same filter done by scanning all
// alerts in memory. Target: p95 under 10 ms.
import { sql } from 'drizzle-orm';
import { queryAlerts } from '../src/server/alerts/service.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { ALERT_TYPES, CRYPTO_SYMBOLS } from '../src/shared/constants.ts';
import { formatAlertTimestamp } from '../src/shared/alertDisplay.ts';
import { percentile, report } from './report.ts';

const ALERTS = 1_000_000;
const QUERIES = 300;
const tickers = CRYPTO_SYMBOLS.map((id) => id.replace(/-USD$/, ''));
const now = Date.UTC(2026, 5, 1);
const spanMs = 365 * 86_400_000;

const database = await openDatabase({});
await database.migrate();
console.log(`Inserting ${ALERTS.toLocaleString('en-US')} alerts...`);
await database.db.execute(
  sql.raw(`
  insert into alerts (ticker, alert_type, message, timestamp, source)
  select (array['${tickers.join("','")}'])[1 + (n % ${tickers.length})],
         (array['${ALERT_TYPES.join("','")}'])[1 + ((n / ${tickers.length}) % 4)],
         'Benchmark alert ' || n,
         to_timestamp(${(now - spanMs) / 1000} + (n::double precision * ${spanMs / 1000 / ALERTS})),
         'demo'
  from generate_series(1, ${ALERTS}) as n`),
);
await database.db.execute(sql`analyze alerts`);

const memory = Array.from({ length: ALERTS }, (_, index) => {
  const n = index + 1;
  return {
    ticker: tickers[n % tickers.length],
    alertType: ALERT_TYPES[Math.floor(n / tickers.length) % 4],
    timestamp: now - spanMs + n * (spanMs / ALERTS),
  };
});

let state = 9;
const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
const queries = Array.from({ length: QUERIES }, () => {
  const end = now - random() * spanMs * 0.9;
  const windowMs = [3_600_000, 86_400_000, 7 * 86_400_000][Math.floor(random() * 3)];
  return {
    alert_type: random() < 0.5 ? ALERT_TYPES[Math.floor(random() * 4)] : undefined,
    symbol: random() < 0.5 ? tickers[Math.floor(random() * tickers.length)] : undefined,
    max_count: [10, 50, 100][Math.floor(random() * 3)],
    start_time: formatAlertTimestamp(new Date(end - windowMs)),
    end_time: formatAlertTimestamp(new Date(end)),
  };
});

const ours: number[] = [];
for (const query of queries) {
  const started = performance.now();
  await queryAlerts(database.db, query, new Date(now));
  ours.push(performance.now() - started);
}
const peer: number[] = [];
for (const query of queries) {
  const started = performance.now();
  const start = Date.parse(`${query.start_time.replace(' ', 'T')}Z`);
  const end = Date.parse(`${query.end_time.replace(' ', 'T')}Z`);
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
  peer.push(performance.now() - started);
}

console.log(`\n${QUERIES} filtered alert-log queries over ${ALERTS.toLocaleString('en-US')} alerts`);
console.log('                               p50 ms   p95 ms');
console.log(
  `indexed query (PGlite)       ${percentile(ours, 0.5).toFixed(2).padStart(7)}  ${percentile(ours, 0.95).toFixed(2).padStart(7)}`,
);
console.log(
  `peer: in-memory full scan    ${percentile(peer, 0.5).toFixed(2).padStart(7)}  ${percentile(peer, 0.95).toFixed(2).padStart(7)}`,
);
console.log(`ratio peer/ours at p95: ${(percentile(peer, 0.95) / percentile(ours, 0.95)).toFixed(1)}x`);
console.log(`target p95 < 10 ms: ${percentile(ours, 0.95) < 10 ? 'met' : 'NOT met'}`);
report({
  figure: 'alert-log query p95 (1M alerts)',
  target: '< 10 ms',
  measured: `${percentile(ours, 0.95).toFixed(2)} ms`,
  peer: `in-memory full scan ${percentile(peer, 0.95).toFixed(2)} ms`,
  ratio: percentile(ours, 0.95) / percentile(peer, 0.95),
  pass: percentile(ours, 0.95) < 10,
});
await database.close();
