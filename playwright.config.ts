import { availableParallelism } from 'node:os';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './src/server/testing/chromium.ts';

// Journeys run against the real built server on its embedded defaults (PGlite in a fresh
// data dir, outbox e-mail, test checkout, demo-capable market data), in Debian's Chromium.
const port = Number(process.env.E2E_PORT ?? 4173);
export const baseURL = `http://127.0.0.1:${port}`;
export const e2eDataDir = '.data-test/e2e';

export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Spec files run side by side, one per core beyond the server's (each journey makes its own
  // users, so they share the one server); the tests of a file run in order. On 2 cores that is
  // one: two Chromiums beside the server kept a 2-core machine at load 12 and journeys ran past
  // their limits.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? Math.max(1, Math.min(4, availableParallelism() - 1))),
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS },
  },
  webServer: {
    command: `rm -rf ${e2eDataDir} && node --import tsx src/server/main.ts`,
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: e2eDataDir,
      MARKET_DATA: 'demo',
      LOG_LEVEL: 'warn',
      TEST_HOOKS: 'true',
    },
  },
});
