// Builds the real app for server tests on a shared test database (one per test file).
import type { App, AppOptions } from '../app.ts';
import { buildApp } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';

export interface TestApp {
  app: App;
  database: TestDatabase;
  config: Config;
  close(): Promise<void>;
}

/** `options.logStream` turns the request log on (into that stream); otherwise it is off. */
export async function createTestApp(
  env: Record<string, string> = {},
  options: Pick<AppOptions, 'stripeApi' | 'googleSheets' | 'logStream'> = {},
): Promise<TestApp> {
  const database = await openTestDatabase('pglite');
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: '.data-test/unit',
    LOG_LEVEL: 'silent',
    MARKET_DATA: 'demo',
    ...env,
  });
  const app = await buildApp({
    config,
    database,
    webRoot: null,
    logger: options.logStream ? undefined : false,
    ...options,
  });
  await app.ready();
  return {
    app,
    database,
    config,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
