// Fault journey: the market-data upstream misbehaves. A second server runs in
// MARKET_DATA=coinbase mode against the local fake Coinbase (COINBASE_*_API_URL), which
// first answers garbage JSON and 5xx for every product, then recovers. The exchange view
// must show docs/SPEC.md's texts for what failed ('Error' prices, the failed count), never a
// made-up number and never a crash, and show real prices again once upstream is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startFakeCoinbase, type FakeCoinbase } from '../src/server/testing/fakeCoinbase.ts';
import { startServerProcess } from '../src/server/testing/serverProcess.ts';
import { buyPlan, createVerifiedUser } from './fixtures.ts';

let fake: FakeCoinbase;
let stopServer: (() => Promise<unknown>) | undefined;
let baseURL: string;
let dataDir: string;

test.beforeAll(async () => {
  fake = await startFakeCoinbase({ 'BTC-USD': 64_000.5, 'ETH-USD': 3_100.25 });
  fake.behave('*', 'garbage');
  dataDir = mkdtempSync(join(tmpdir(), 'watos-faults-'));
  const server = await startServerProcess({
    dataDir,
    env: {
      MARKET_DATA: 'coinbase',
      COINBASE_PRICE_API_URL: fake.url,
      COINBASE_EXCHANGE_API_URL: fake.url,
      // Refresh Data reaches upstream again after 1 s, not the default 10 s.
      EXCHANGE_QUOTE_CACHE_SECONDS: '1',
    },
  });
  stopServer = () => server.stop();
  baseURL = server.origin;
});

test.afterAll(async () => {
  await stopServer?.();
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('garbage and 5xx from upstream show as failures, then real prices return', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await createVerifiedUser(page);
  await buyPlan(page, 'three-day');
  await page.goto('/dashboard');
  await page.getByRole('tab', { name: 'Exchange Data' }).click();

  const view = page.getByTestId('exchange-view');
  const summary = (label: string) =>
    view
      .locator('dl > div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
      .locator('dd');
  const card = (symbol: string) => view.getByTestId('price-card').filter({ hasText: symbol });
  await expect(view.getByRole('heading', { name: 'Coinbase Market Data' })).toBeVisible();
  const btc = card('BTC');
  await expect(btc).toContainText('Error');
  await expect(summary('Failed')).toHaveText('28');
  await expect(summary('Successful')).toHaveText('0');
  await expect(view).not.toContainText('Demo data');

  // Upstream now fails with 503s: still failures, still no crash.
  fake.behave('*', 'server-error');
  const asked = fake.requests.length;
  // The server's snapshot (1 s here) has expired: Refresh Data asks upstream again, which
  // answers 503 (retried with backoff); the view shows that answer once the button is back.
  await page.waitForTimeout(1_500);
  await view.getByRole('button', { name: 'Refresh Data' }).click();
  await expect.poll(() => fake.requests.length).toBeGreaterThan(asked);
  await expect(view.getByRole('button', { name: 'Refresh Data' })).toBeVisible({ timeout: 30_000 });
  await expect(summary('Failed')).toHaveText('28');
  await expect(btc).toContainText('Error');

  // Upstream recovers: the real (fake-upstream) prices appear; unknown products stay failed.
  // (A refresh may still join a fetch that began while upstream failed: the trader refreshes
  // again, as the journey does until the prices show.)
  fake.behave('*', 'ok');
  await expect(async () => {
    await view.getByRole('button', { name: 'Refresh Data' }).click();
    await expect(btc).toContainText('64,000.50', { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  await expect(card('ETH')).toContainText('3,100.25');
  await expect(summary('Successful')).toHaveText('2');
  await expect(summary('Failed')).toHaveText('26');
  await context.close();
});
