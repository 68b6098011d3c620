// The README's screenshot (docs/images/dashboard.png), taken from the real product: the built
// server (src/server/main.ts) on a fresh data directory with its embedded defaults and the
// demo feed, and a new trader walking the README's "First login" in Chromium: create an
// account, open the verification link the outbox prints to the server log, buy a plan on the
// TEST MODE checkout with the 4242 card, open the dashboard. Run after `npx vite build`:
//   node --import tsx scripts/screenshot.ts [output.png]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../src/server/testing/chromium.ts';
import { startServerProcess } from '../src/server/testing/serverProcess.ts';
import { waitFor } from '../src/server/testing/waitFor.ts';

const output = process.argv[2] ?? join(import.meta.dirname, '..', 'docs', 'images', 'dashboard.png');
const email = `trader-${Date.now()}@example.com`;

async function signUp(page: Page, origin: string) {
  await page.goto(origin);
  await page.getByRole('tab', { name: 'Create Account' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Username').fill('trader');
  await page.getByLabel('Password').fill('trader-password');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
}

async function subscribe(page: Page) {
  await page.getByTestId('plan-three-day').getByRole('button', { name: 'Subscribe' }).click();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry (MM/YY)').fill('12/39');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.getByRole('heading', { name: 'Subscription Successful!' }).waitFor();
}

const dataDir = mkdtempSync(join(tmpdir(), 'watos-screenshot-'));
// No TEST_HOOKS: the link is read from the log, as the README tells a newcomer to do.
const server = await startServerProcess({ dataDir, env: { TEST_HOOKS: 'false', LOG_LEVEL: 'warn' } });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signUp(page, server.origin);
  const link = await waitFor(
    () =>
      server
        .output()
        .split('\n')
        .find((line) => line.startsWith('[outbox] http'))
        ?.slice('[outbox] '.length),
    'the verification link in the server log',
  );
  await page.goto(link);
  await page.getByRole('heading', { name: 'Choose your plan' }).waitFor();
  await subscribe(page);
  await page.goto(`${server.origin}/dashboard`);
  await page.getByTestId('subscription-status').getByText('Active').waitFor();
  // The default chart is TradingView's embed (a third party, not loaded here); the exchange
  // view is the product's own panel over the demo feed.
  await page.getByRole('tab', { name: 'Exchange Data', exact: true }).click();
  await page.getByTestId('price-card').nth(27).waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: output });
  console.log(`${output}: ${Math.round(statSync(output).size / 1024)} KB`);
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
