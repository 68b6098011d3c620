// Entry point: read the configuration, open and migrate the database, build the app, listen.
// SIGINT/SIGTERM (and, through close-with-grace, SIGHUP, SIGQUIT and an uncaught error) close
// the server and then the database, so PGlite's directory is always left consistent; a second
// signal forces the exit.
import { join, resolve } from 'node:path';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, startupWarnings, type Config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { createAlertEngine } from './alerts/routes.ts';
import { scheduleOrphanReclaim } from './files/service.ts';
import { applyHttpTimeouts } from './http/timeouts.ts';
import { createAllShards, createPostgresShards, startLivePath, type ShardLeases } from './live/service.ts';

/** A warning framed so it stands out in a scrolling terminal. */
function framedWarning(text: string): string {
  const rule = '!'.repeat(100);
  return [rule, ...text.split('\n').map((line) => `!! ${line}`), rule].join('\n');
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    pgliteDir: join(config.dataDir, 'db'),
  });
  await database.migrate();

  const app = await buildApp({ config, database, webRoot: resolve('dist/web') });
  // Header, body, idle and whole-request limits against slow clients (http/timeouts.ts).
  applyHttpTimeouts(app.server, config.httpTimeouts, app.log);
  const { alertBus, market, fileStorage, rules, deliveries, forecasts, live, metrics } = app.services;
  let engine: ReturnType<typeof createAlertEngine> | null = null;
  let shards: ShardLeases | null = null;
  const stopReclaim = scheduleOrphanReclaim(database.db, fileStorage, app.log);
  app.addHook('preClose', async () => {
    stopReclaim();
    await live.path?.close();
    live.path = null;
    await engine?.stop();
    // Last: no other instance takes this one's symbols while it may still be writing them.
    await shards?.close();
  });

  // The server, then the database (PGlite's directory is left whole), once, whoever asks.
  let closing: Promise<void> | null = null;
  const closeAll = () =>
    (closing ??= (async () => {
      await app.close();
      await database.close();
    })());

  // SIGINT and SIGTERM are ours (ADR 0016): `npm start` forwards signals to this process, which
  // may also get the terminal's own Ctrl-C, so a repeat within a second is the same request and
  // a later one means "force it".
  let closingSince = 0;
  const shutdown = async (signal: string) => {
    if (closingSince !== 0) {
      if (Date.now() - closingSince < 1000) return;
      console.error(`${signal} again: exiting now.`);
      process.exit(1);
    }
    closingSince = Date.now();
    app.log.info({ signal }, 'shutting down');
    try {
      await closeAll();
      console.log('Stopped cleanly.');
      process.exit(0);
    } catch (error) {
      console.error('Shutdown failed', error);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Every other ending close-with-grace turns into the same close, with 10 s to finish it: a
  // closed terminal (SIGHUP), SIGQUIT, and an uncaught exception or unhandled rejection (then
  // exit code 1), which would otherwise end the process with PGlite's directory left open.
  closeWithGrace({ delay: 10_000, skip: ['SIGINT', 'SIGTERM', 'beforeExit'] }, async ({ signal, err }) => {
    closingSince ||= Date.now();
    if (err) console.error('Stopping after an uncaught error:', err);
    else app.log.info({ signal }, 'shutting down');
    await closeAll();
    console.log(err ? 'Stopped after the error; the database closed cleanly.' : 'Stopped cleanly.');
  });
  // Every clean stop ends in process.exit. An event loop that empties first means the shutdown
  // awaited something nothing could finish: say so, and not with exit code 0.
  process.on('beforeExit', () => {
    console.error(
      closingSince !== 0
        ? 'The shutdown stopped halfway: nothing was left to finish it.'
        : 'The server stopped: nothing was left to run.',
    );
    process.exitCode = 1;
  });

  // A deeper accept queue than Node's 511: when a thousand browsers connect at once (a market
  // open, a restart behind a load balancer) and the event loop is busy, an overflowing queue
  // drops connections the client already counts as open, and their first request ends in
  // ECONNRESET (the load bench saw 15-81 of them). The kernel caps it at net.core.somaxconn.
  await app.listen({ host: config.HOST, port: config.PORT, backlog: 4096 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const shownHost = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  console.log(`\nWATOS Dashboard is running at http://${shownHost}:${port}`);
  console.log(
    `Database: ${database.driver === 'pglite' ? `PGlite in ${join(config.dataDir, 'db')}` : 'PostgreSQL (DATABASE_URL)'}`,
  );
  if (config.embedded.length > 0) {
    console.log('Embedded defaults in use:');
    for (const line of config.embedded) console.log(`  - ${line}`);
  }
  for (const warning of startupWarnings(config)) {
    app.log.warn(warning);
    console.warn(`\n${framedWarning(warning)}\n`);
  }

  // The engine's candles come from one source per provider for the life of the process, so a
  // symbol's stored bars never mix real and simulated prices: Coinbase and Yahoo Finance when
  // they answer at start-up (or are forced), the demo feed otherwise. Alerts say which. Decided
  // after listening, so a slow network never delays the app.
  const provider = await market.pinned();
  if (closingSince !== 0) return;
  // The shards this instance holds (live/shards.ts): the engine and the live path carry the same
  // symbols. PostgreSQL leases shared by the deployment's instances; every shard with PGlite.
  shards = config.DATABASE_URL
    ? createPostgresShards({
        databaseUrl: config.DATABASE_URL,
        group: config.redisPrefix.replace(/:$/, ''),
        log: app.log,
      })
    : createAllShards();
  // The holder of shard 0 also settles the track record's due forecasts after each pass; after a
  // failover the shard's next holder picks up whatever is still pending.
  engine = createAlertEngine({
    database,
    shards,
    provider,
    bus: alertBus,
    log: app.log,
    rules,
    afterPass: () => forecasts.resolveDue(),
  });
  // Opens the delivery queue (its workers pick up retries left by an earlier run) and queues
  // deliveries whose job was never queued (an instance died between recording and queueing).
  void deliveries
    .sweep()
    .then((queued) => queued > 0 && app.log.info({ queued }, 'alert rules: queued deliveries left pending'))
    .catch((error: unknown) => app.log.warn({ err: error }, 'alert rules: delivery sweep failed'));
  engine.start();
  // The live path: this instance's shards' feeds, ticks and tick rules, from the same sources.
  live.path = startLivePath({
    config,
    sourceOf: (symbol) => provider.sourceOf(symbol),
    bus: alertBus,
    rules,
    shards,
    ...(metrics ? { metrics } : {}),
    log: app.log,
  });
  const label = (source: string) =>
    source === 'coinbase'
      ? 'Coinbase'
      : source === 'yahoo'
        ? 'Yahoo Finance (delayed)'
        : 'demo feed (labelled "Demo data")';
  console.log(
    `Market data: crypto from ${label(provider.sourceOf('BTC-USD'))}, stocks, ETFs, indices and futures from ${label(provider.sourceOf('AAPL'))}; the alert engine is backfilling in the background.`,
  );
}

main().catch((error: unknown) => {
  console.error('Start-up failed:', error);
  process.exit(1);
});
