// No blank chart boxes (issue 17): when a third-party chart script cannot load (here: its request
// is aborted, as an ad blocker or a dead network would), the TradingView panel shows our own
// candle chart of the first watchlist symbol with a notice and Retry, and the Barchart widget
// says it could not load with Retry. Retry with the script answered clears the notice.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

const THIRD_PARTIES = /^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//;

async function blockThirdParties(page: Page) {
  const requested: string[] = [];
  await page.route(THIRD_PARTIES, (route) => {
    requested.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  return requested;
}

async function answerThirdParties(page: Page) {
  await page.unroute(THIRD_PARTIES);
  const requested: string[] = [];
  await page.route(THIRD_PARTIES, (route) => {
    requested.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' });
  });
  return requested;
}

test('a blocked TradingView script shows our own chart of the symbol with a notice, and Retry loads it again', async ({
  subscribedPage: page,
}) => {
  const blocked = await blockThirdParties(page);
  await page.reload();
  await expect.poll(() => blocked.filter((url) => url.includes('embed-widget-advanced-chart.js')).length).toBe(1);

  const panel = page.getByTestId('chart-panel-tradingview');
  const notice = panel.getByRole('status');
  await expect(notice).toContainText('TradingView could not load (blocked or offline). Showing our own chart of AAPL.');
  const ownChart = panel.getByRole('dialog', { name: 'AAPL chart' });
  await expect(ownChart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();
  await expect(page.getByTestId('tradingview-container')).toBeHidden();

  const answered = await answerThirdParties(page);
  await notice.getByRole('button', { name: 'Retry' }).click();
  await expect.poll(() => answered.filter((url) => url.includes('embed-widget-advanced-chart.js')).length).toBe(1);
  await expect(panel.getByRole('status')).toHaveCount(0);
  await expect(ownChart).toHaveCount(0);
  await expect(page.getByTestId('tradingview-container')).toBeVisible();
  await expect(page.getByTestId('tradingview-container').locator('script')).toHaveCount(1);
});

test('a blocked Barchart script says the widget could not load, and Retry loads it again', async ({
  subscribedPage: page,
}) => {
  const blocked = await blockThirdParties(page);
  await page.getByRole('tab', { name: 'Barchart', exact: true }).click();
  const form = page.getByRole('form', { name: 'Barchart widget setup' });
  await form.getByLabel('API Key').fill('my-key-123');
  await form.getByRole('button', { name: 'Load Barchart Widget' }).click();
  await expect.poll(() => blocked.filter((url) => url.includes('barchart.com/widget.js')).length).toBe(1);

  const panel = page.getByTestId('chart-panel-barchart');
  const notice = panel.getByRole('status');
  await expect(notice).toHaveText(/The Barchart widget could not load \(blocked or offline\)\./);
  await expect(page.getByTestId('barchart-widget')).toBeHidden();

  const answered = await answerThirdParties(page);
  await notice.getByRole('button', { name: 'Retry' }).click();
  await expect.poll(() => answered.filter((url) => url.includes('barchart.com/widget.js')).length).toBe(1);
  await expect(panel.getByRole('status')).toHaveCount(0);
  await expect(page.getByTestId('barchart-widget')).toBeVisible();
  await expect(page.locator('script[data-barchart-widget]')).toHaveCount(1);
});
