// Visual regression (issue 17): the dashboard at 1440x900 and 390x844 on the deterministic demo
// feed, compared with the committed snapshots (e2e/visual.spec.ts-snapshots/) on every
// `npm test`. What moves with the clock is masked: market values and charts (the demo feed is
// deterministic for a given minute, not across minutes), alert lists, times and the account's
// own name and dates; everything else (layout, headings, controls, forms, empty states) must
// match. Third-party chart scripts are blocked, so the TradingView panel shows our own chart.
// After an intended change: `npx playwright test e2e/visual.spec.ts --update-snapshots`.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

const THIRD_PARTIES = /^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//;

/** Everything on the dashboard whose content depends on the minute or on the user. */
function moving(page: Page): Locator[] {
  return [
    page.locator('canvas'),
    page.getByTestId('subscription-status'),
    // The watchlist tables: their figures and latest alerts set the columns' widths.
    page.getByTestId('watchlist-table'),
    page.getByRole('region', { name: 'Alerts for your watchlist', exact: true }),
    // The welcome message's WATOS grid: the latest bar's signals and odds.
    page.getByTestId('watos-grid'),
    page.getByRole('region', { name: 'Alert log results', exact: true }),
    page.getByTestId('alert-window'),
    // The own chart's header figures: its legend, the alerts marked and the last close.
    page.getByTestId('chart-legend'),
    page.getByText(/^\d+ alerts marked$/),
    page.getByRole('button', { name: /^Alert at / }),
    page.locator('time'),
  ];
}

/**
 * Reloads until the alert engine has stored the history the charts draw (a first start
 * backfills for some seconds after the server answers), then waits for the page to settle.
 */
async function withMarketData(page: Page) {
  await expect(async () => {
    await page.reload();
    await settle(page);
    await expect(page.getByText(/still filling the history/)).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 90_000 });
}

async function settle(page: Page) {
  await page.waitForLoadState('networkidle');
  // Web fonts and the lazy chart have drawn; no spinner is left.
  await page.evaluate(() => document.fonts.ready);
  await expect(page.getByText('Loading', { exact: false }).filter({ visible: true })).toHaveCount(0);
}

test.describe('at 1440x900', () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test('the dashboard looks as committed', async ({ subscribedPage: page }) => {
    await page.route(THIRD_PARTIES, (route) => route.abort('blockedbyclient'));
    await withMarketData(page);
    await expect(page).toHaveScreenshot('dashboard-desktop.png', { mask: moving(page), maxDiffPixelRatio: 0.01 });
  });
});

test.describe('at 390x844', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the dashboard tabs look as committed', async ({ subscribedPage: page }) => {
    await page.route(THIRD_PARTIES, (route) => route.abort('blockedbyclient'));
    await withMarketData(page);
    const sections = page.getByRole('tablist', { name: 'Dashboard sections' });
    for (const tab of ['Chart', 'Alerts', 'AI', 'Files']) {
      await sections.getByRole('tab', { name: tab }).click();
      await settle(page);
      await expect(page).toHaveScreenshot(`dashboard-phone-${tab.toLowerCase()}.png`, {
        mask: moving(page),
        maxDiffPixelRatio: 0.01,
      });
    }
  });
});
