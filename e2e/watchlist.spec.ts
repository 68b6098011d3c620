// The chart watchlist's format error (issue 17): docs/SPEC.md's text beside the input, gone once
// the input changes or a later add succeeds.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

async function interceptThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

test('the watchlist format error clears when the input changes and after a successful add', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  const input = page.getByLabel('Add symbol to the chart watchlist');
  const add = page.getByRole('button', { name: 'Add', exact: true });
  // The watchlist is a table by default (issue 17): one row a symbol.
  const chips = page.getByRole('table', { name: /^Chart watchlist/ }).locator('tbody tr');
  const formatError = page
    .getByRole('alert')
    .filter({ hasText: 'Please use format EXCHANGE:SYMBOL (e.g., NASDAQ:AAPL)' });
  await expect(chips).toHaveCount(6);

  await input.fill('AAPL');
  await add.click();
  await expect(formatError).toBeVisible();
  await input.fill('AAP');
  await expect(formatError).toHaveCount(0);

  await input.fill('AAPL');
  await input.press('Enter');
  await expect(formatError).toBeVisible();
  await input.fill('amex:spy');
  await input.press('Escape');
  await add.click();
  await expect(chips).toHaveCount(7);
  await expect(formatError).toHaveCount(0);
  await page.waitForTimeout(500);
  await expect(formatError).toHaveCount(0);
});
