// Dashboard shell journeys with third-party scripts intercepted: the TradingView embed built
// from the watchlist, the watchlist rules and persistence, the Barchart form and widget
// lifecycle, switching among the five sources, and the guided tour.
import type { Page } from '@playwright/test';
import { expect, test, TOUR_TITLES } from './fixtures.ts';

async function interceptThirdParties(page: Page) {
  const requested: string[] = [];
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) => {
    requested.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' });
  });
  return requested;
}

/** The chart watchlist's rows: a table by default (issue 17), its saved form in each row's data-symbol. */
function chartWatchlistRows(page: Page) {
  return page.getByRole('table', { name: /^Chart watchlist/ }).locator('tbody tr');
}

function chartWatchlistRow(page: Page, symbol: string) {
  return chartWatchlistRows(page).and(page.locator(`[data-symbol="${symbol}"]`));
}

async function embeddedConfig(page: Page) {
  const text = await page.getByTestId('tradingview-container').locator('script').textContent();
  return JSON.parse(text ?? '{}') as Record<string, unknown>;
}

test('the TradingView chart is built from the watchlist and reloads on every change', async ({
  subscribedPage: page,
}) => {
  const requested = await interceptThirdParties(page);
  await page.reload();
  await expect.poll(() => requested.filter((url) => url.includes('embed-widget-advanced-chart.js')).length).toBe(1);
  expect(await embeddedConfig(page)).toEqual({
    width: '100%',
    height: 650,
    symbol: 'NASDAQ:AAPL',
    watchlist: ['NASDAQ:TSLA', 'NASDAQ:MSFT', 'NASDAQ:GOOG', 'BINANCE:BTCUSDT', 'BINANCE:ETHUSDT'],
    interval: 'D',
    timezone: 'Etc/UTC',
    theme: 'dark',
    style: '1',
    locale: 'en',
    studies: ['STD;SMA'],
    details: true,
    hotlist: true,
    calendar: false,
    allow_symbol_change: true,
    support_host: 'https://www.tradingview.com',
  });

  const input = page.getByLabel('Add symbol to the chart watchlist');
  await input.fill('  nasdaq:nvda ');
  await input.press('Enter');
  await expect(chartWatchlistRow(page, 'NASDAQ:NVDA')).toBeVisible();
  await expect.poll(() => requested.filter((url) => url.includes('embed-widget-advanced-chart.js')).length).toBe(2);
  expect((await embeddedConfig(page)).watchlist).toContain('NASDAQ:NVDA');
  await expect(page.getByTestId('tradingview-container').locator('script')).toHaveCount(1);
});

test('watchlist rules, and the list follows the trader across a reload and another browser', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  const input = page.getByLabel('Add symbol to the chart watchlist');
  const chips = chartWatchlistRows(page);
  await expect(chips).toHaveCount(6);

  await input.fill('AAPL');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(
    page.getByRole('alert').filter({ hasText: 'Please use format EXCHANGE:SYMBOL (e.g., NASDAQ:AAPL)' }),
  ).toBeVisible();
  await expect(chips).toHaveCount(6);
  await expect(input).toHaveValue('AAPL');

  await input.fill('nasdaq:aapl');
  await input.press('Enter');
  await input.fill('   ');
  await input.press('Enter');
  await expect(chips).toHaveCount(6);

  await input.fill('amex:spy');
  await input.press('Enter');
  await expect(chips).toHaveCount(7);
  await page.getByRole('button', { name: 'Remove NASDAQ:AAPL' }).click();
  await expect(chips).toHaveCount(6);
  await expect(chips.first()).toHaveAttribute('data-symbol', 'NASDAQ:TSLA');

  await page.reload();
  await expect(chips.first()).toHaveAttribute('data-symbol', 'NASDAQ:TSLA');
  await expect(chartWatchlistRow(page, 'AMEX:SPY')).toBeVisible();

  const other = await page
    .context()
    .browser()!
    .newContext({ storageState: await page.context().storageState() });
  const otherPage = await other.newPage();
  await interceptThirdParties(otherPage);
  await otherPage.goto('/dashboard');
  await expect(chartWatchlistRow(otherPage, 'AMEX:SPY')).toBeVisible();
  await expect(chartWatchlistRow(otherPage, 'NASDAQ:AAPL')).toHaveCount(0);
  await other.close();
});

test('the type-ahead adds a future by name to the chart watchlist and a ticker to the alerts panel', async ({
  subscribedPage: page,
}) => {
  const requested = await interceptThirdParties(page);
  await page.reload();
  const input = page.getByRole('combobox', { name: 'Add symbol to the chart watchlist' });
  await input.fill('Micro E-mini');
  const suggestions = page.getByRole('listbox', { name: 'Symbol suggestions' });
  await expect(suggestions).toBeVisible();
  await expect(input).toHaveAttribute('aria-expanded', 'true');
  await suggestions.getByRole('option', { name: /CME_MINI:MES1!/ }).click();
  await expect(chartWatchlistRow(page, 'CME_MINI:MES1!')).toBeVisible();
  await expect(input).toHaveValue('');
  await expect.poll(() => requested.filter((url) => url.includes('embed-widget-advanced-chart.js')).length).toBe(2);
  expect((await embeddedConfig(page)).watchlist).toContain('CME_MINI:MES1!');

  // Keyboard: Down chooses the first suggestion, Enter adds its chart form.
  await input.fill('micro gold');
  await expect(suggestions.getByRole('option').first()).toContainText('COMEX:MGC1!');
  await input.press('ArrowDown');
  await input.press('Enter');
  await expect(chartWatchlistRow(page, 'COMEX:MGC1!')).toBeVisible();

  // The alerts panel: an unknown symbol is explained and not added; a pick adds the plain ticker.
  const panel = page.getByRole('region', { name: 'Watchlist Alerts' });
  const alertChips = panel.getByRole('table', { name: /^Alert watchlist/ }).locator('tbody');
  await panel.getByRole('button', { name: 'Add symbol', exact: true }).click();
  const draft = panel.getByRole('combobox', { name: 'Symbol to add' });
  await draft.fill('zzqx');
  await panel.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(panel.getByRole('alert').filter({ hasText: 'No market data for ZZQX' })).toBeVisible();
  await expect(alertChips).not.toContainText('ZZQX');
  await draft.fill('Micro E-mini S');
  await panel.getByRole('option', { name: /^MES/ }).click();
  await expect(alertChips).toContainText('MES');
  await expect(draft).toBeHidden();
});

test('switching among the five sources keeps each panel, and the Barchart widget loads once and unloads', async ({
  subscribedPage: page,
}) => {
  const requested = await interceptThirdParties(page);
  const tab = (name: string) => page.getByRole('tab', { name, exact: true });

  await tab('Barchart').click();
  const form = page.getByRole('form', { name: 'Barchart widget setup' });
  await expect(form.getByRole('note')).toContainText('This widget needs your own Barchart API credentials');
  await expect(form.getByRole('link', { name: 'Sign up for a Barchart API key' })).toBeVisible();
  await expect(form.getByLabel('Password (optional)')).toHaveAttribute('type', 'password');
  await form.getByRole('button', { name: 'Load Barchart Widget' }).click();
  await expect(form.getByRole('alert')).toHaveText('API Key is required');
  await form.getByLabel('API Key').fill('my-key-123');

  for (const name of ['TradingView', 'Exchange Data', 'Spreadsheet', 'Demo Trading']) {
    await tab(name).click();
    await expect(tab(name)).toHaveAttribute('aria-selected', 'true');
  }
  await expect(page.getByTestId('chart-panel-demo-trading')).toContainText(
    'No demo trading platform is linked to this dashboard yet. Ask your administrator to set one up.',
  );
  await expect(page.getByTestId('chart-panel-demo-trading')).not.toContainText('EMBED_URL');
  await tab('Spreadsheet').click();
  await expect(page.getByTestId('chart-panel-spreadsheet')).toContainText(
    'No spreadsheet is linked to this dashboard yet. Ask your administrator to set one up.',
  );
  await expect(page.getByTestId('chart-panel-spreadsheet')).not.toContainText('EMBED_URL');
  await tab('Exchange Data').click();
  await expect(page.getByTestId('price-card')).toHaveCount(28);

  await tab('Barchart').click();
  await expect(form.getByLabel('API Key')).toHaveValue('my-key-123');
  await form.getByRole('button', { name: 'Load Barchart Widget' }).click();
  await expect(page.getByTestId('barchart-widget')).toBeVisible();
  await expect.poll(() => requested.filter((url) => url.includes('barchart.com/widget.js')).length).toBe(1);
  await expect(page.locator('script[data-barchart-widget]')).toHaveCount(1);

  await tab('TradingView').click();
  await expect(page.locator('script[data-barchart-widget]')).toHaveCount(0);
  await tab('Barchart').click();
  await expect(page.locator('script[data-barchart-widget]')).toHaveCount(1);
  await page.getByRole('button', { name: 'Change credentials' }).click();
  await expect(page.locator('script[data-barchart-widget]')).toHaveCount(0);
  await expect(form.getByLabel('API Key')).toHaveValue('my-key-123');
});

test("the guided tour runs docs/SPEC.md's eight steps in order then the alert rules step, skip ends it, and a restart begins at step 1", async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  const titles = TOUR_TITLES;
  const tooltip = page.getByRole('alertdialog');
  await page.getByRole('button', { name: 'Take Tour' }).click();
  for (const [index, title] of titles.entries()) {
    await expect(tooltip.getByText(title, { exact: true })).toBeVisible();
    const last = index === titles.length - 1;
    // Progress shows on the Next button, and on the last step's Finish button too.
    const progress = `(${index + 1} of ${titles.length})`;
    const button = tooltip.getByRole('button', { name: last ? `Finish ${progress}` : `Next ${progress}` });
    await expect(button).toBeVisible();
    await button.click();
  }
  await expect(tooltip).toHaveCount(0);

  await page.getByRole('button', { name: 'Take Tour' }).click();
  await expect(tooltip.getByText('Chart Analysis Hub', { exact: true })).toBeVisible();
  await tooltip.getByRole('button', { name: /Next/ }).click();
  await expect(tooltip.getByText('Platform Switcher', { exact: true })).toBeVisible();
  await tooltip.getByRole('button', { name: 'Skip tour' }).click();
  await expect(tooltip).toHaveCount(0);
  await page.getByRole('button', { name: 'Take Tour' }).click();
  await expect(tooltip.getByText('Chart Analysis Hub', { exact: true })).toBeVisible();
});

test("'Take Tour' on a marketing page takes a subscriber to the dashboard and starts the tour there", async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  await page.goto('/crypto-analytics-ai');
  await page.getByRole('button', { name: 'Take Tour' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  const tooltip = page.getByRole('alertdialog');
  await expect(tooltip.getByText('Chart Analysis Hub', { exact: true })).toBeVisible();
  await tooltip.getByRole('button', { name: 'Skip tour' }).click();
  await expect(tooltip).toHaveCount(0);
  // The tour started once: reloading the dashboard does not start it again.
  await page.reload();
  await expect(page.getByTestId('dashboard')).toBeVisible();
  await expect(page.getByTestId('subscription-status')).toContainText('Active');
  await expect(tooltip).toHaveCount(0);
});

test("the dashboard's HTML asks for GET /api/me itself, and the app takes that answer instead of asking again", async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  // Every same-origin request in the order the browser sent them.
  const sent: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === new URL(page.url()).origin) sent.push(url.pathname);
  });
  await page.reload();
  await expect(page.getByTestId('tradingview-container')).toBeAttached();
  await expect(page.getByTestId('nav-user')).toBeAttached();
  const html = await (await page.request.get('/dashboard')).text();
  const entry = /<script data-entry="([^"]+)"/.exec(html)?.[1];
  expect(entry).toMatch(/^\/assets\/index-.+\.js$/);
  // Asked for once, with the HTML: before the entry script, which the boot script asks for once
  // the loading text is painted (without the preload the app would ask after its code had run).
  expect(sent.filter((path) => path === '/api/me')).toHaveLength(1);
  expect(sent.indexOf('/api/me')).toBeGreaterThan(sent.indexOf('/dashboard'));
  expect(sent.indexOf('/api/me')).toBeLessThan(sent.indexOf(entry!));
});
