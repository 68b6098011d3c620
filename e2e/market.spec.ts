// Market data and alerts journeys on the demo feed: the exchange view's 28 cards, failure
// and recovery, the alert log's filters, and an alert arriving live.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

async function openExchangeView(page: Page) {
  await page.getByRole('tab', { name: 'Exchange Data', exact: true }).click();
  await expect(page.getByTestId('exchange-view')).toBeVisible();
}

test('exchange view shows 28 labelled demo cards with summary and spreads', async ({ subscribedPage: page }) => {
  await openExchangeView(page);
  const view = page.getByTestId('exchange-view');
  await expect(view.getByRole('heading', { name: /^Coinbase Market Data/ })).toBeVisible();
  await expect(view.getByText('Real-time cryptocurrency prices and trading spreads')).toBeVisible();
  await expect(view.getByText('Demo data')).toBeVisible();
  await expect(view.getByTestId('price-card')).toHaveCount(28);
  await expect(view.getByText('Market Summary')).toBeVisible();
  await expect(view.getByText('Live Crypto Prices')).toBeVisible();
  await expect(view.getByText(/^Last Updated: /)).toBeVisible();
  const btc = view.getByTestId('price-card').filter({ hasText: 'BTC' }).first();
  await expect(btc).toContainText(/\$\d{2,3},\d{3}\.\d{2}/);
  await expect(btc).toContainText(/\d+\.\d{4}%/);
  await expect(view.getByRole('button', { name: 'Refresh Data' })).toBeVisible();
});

test('a failed price call shows the error and Retry Connection recovers', async ({ subscribedPage: page }) => {
  await openExchangeView(page);
  await page.route('**/external-api/coinbase-prices', (route) =>
    route.fulfill({ status: 503, body: '{"error":"down"}' }),
  );
  await page.getByRole('button', { name: 'Refresh Data' }).click();
  const failure = page.getByRole('alert').filter({ hasText: 'API Connection Failed' });
  await expect(failure).toBeVisible();
  await expect(failure).toContainText('HTTP error! status: 503');
  await page.unroute('**/external-api/coinbase-prices');
  await failure.getByRole('button', { name: 'Retry Connection' }).click();
  await expect(failure).toHaveCount(0);
  await expect(page.getByTestId('price-card')).toHaveCount(28);
});

test('the alert log loads, filters by symbol, and receives a new alert live', async ({ subscribedPage: page }) => {
  const log = page.getByRole('region', { name: 'All-Market Alert Log' });
  // The engine backfills on start; reload the log until it has alerts.
  await expect
    .poll(
      async () => {
        await log.getByRole('button', { name: 'Apply Filters' }).click();
        return log.getByTestId('alert-item').count();
      },
      { timeout: 60_000 },
    )
    .toBeGreaterThan(0);

  const symbol = (await log.getByTestId('alert-item').first().locator('span.font-bold').textContent())!;
  await log.getByLabel('Symbol').fill(symbol.toLowerCase());
  await log.getByLabel('Max count').fill('100');
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(log.getByTestId('alert-item').first()).toBeVisible();
  const symbols = await log.getByTestId('alert-item').locator('span.font-bold').allTextContents();
  expect(symbols.length).toBeGreaterThan(0);
  expect(new Set(symbols)).toEqual(new Set([symbol]));

  await log.getByLabel('Symbol').fill('NOTACOIN');
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(log.getByText('No alerts found')).toBeVisible();
  // The empty start and end are named: the list covers the last hour.
  await expect(log.getByTestId('alert-window')).toHaveText('Showing the last hour');
  // Above 100 the count is capped and the trader told so, not refused.
  await log.getByLabel('Max count').fill('500');
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(log.getByRole('status')).toHaveText('Max count is at most 100; showing 100.');
  await expect(log.getByLabel('Max count')).toHaveValue('100');

  await log.getByLabel('Symbol').fill('');
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(log.getByTestId('alert-item').first()).toBeVisible();
  // The engine's alerts come at market pace; the test hook stores and pushes one now through
  // the same store and live channel, and it must appear without a reload.
  const origin = new URL(page.url()).origin;
  const pushed = await page.request.post('/api/test/alerts', {
    headers: { origin },
    data: {
      ticker: 'SOL',
      alert_type: 'TrendChangeAlertGenerator',
      message: 'SOL bearish trend change: live journey check',
    },
  });
  expect(pushed.ok()).toBe(true);
  const first = log.getByTestId('alert-item').first();
  await expect(first).toContainText('SOL bearish trend change: live journey check');
  await expect(first).toHaveAttribute('data-type', 'bearish');
});

test('clicking a price card opens its candlestick chart with alerts marked', async ({ subscribedPage: page }) => {
  await openExchangeView(page);
  await page.getByTestId('price-card').filter({ hasText: 'ETH' }).first().click();
  const chart = page.getByRole('dialog', { name: 'ETH-USD chart' });
  await expect(chart).toBeVisible();
  await expect(chart.getByText('Demo data')).toBeVisible();
  await expect(chart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();
  await expect(chart.getByText(/^\d+ alerts marked$/)).toBeVisible();
  await chart.getByRole('button', { name: '1m' }).click();
  await expect(chart.getByRole('button', { name: '1m' })).toHaveAttribute('aria-pressed', 'true');
  await chart.getByRole('button', { name: 'Close chart' }).click();
  await expect(chart).toHaveCount(0);
});
