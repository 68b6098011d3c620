// Every market (issue 15) on the demo feed, with third-party scripts intercepted: the default
// watchlist alerts panel shows the engine's real alerts for AAPL and opens its candle chart,
// the assistant's WATOS grid works for AAPL and CME_MINI:MES1!, the alert log filters by asset
// class, and the type-ahead adds a future by name to the chart watchlist and charts any market.
// Stocks make alerts only in their sessions; the engine backfills four days of minute bars for
// markets with sessions, so a Monday morning or the day after a long weekend still has the last
// sessions' alerts, which is what these checks look for.
import type { Page } from '@playwright/test';
import { assetClassOfTicker } from '../src/shared/tickers.ts';
import { expect, test } from './fixtures.ts';

const PLACEHOLDER = "Ask about a symbol, request probability forecasts, or summarize today's alerts...";
// The first answer for a symbol replays its demo history while the alert engine backfills.
const ANSWER_TIMEOUT = 45_000;
// The engine backfills every table symbol on start; the first alerts of a class take a while.
const BACKFILL_TIMEOUT = 90_000;

async function interceptThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

/** UTC 'YYYY-MM-DD HH:MM:SS', as the alert API takes times. */
const utc = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

/** Waits until the engine has stored alerts for this query (the backfill runs after start). */
async function waitForAlerts(page: Page, query: Record<string, string>) {
  await expect
    .poll(
      async () => {
        const response = await page.request.get(`/external-api/alert?${new URLSearchParams(query).toString()}`);
        return response.ok() ? ((await response.json()) as { alerts: unknown[] }).alerts.length : 0;
      },
      { timeout: BACKFILL_TIMEOUT, intervals: [2_000] },
    )
    .toBeGreaterThan(0);
}

/** Asks the assistant and returns its answer once the heading is in. */
async function ask(page: Page, question: string, heading: string) {
  const chat = page.getByRole('region', { name: 'AI Assistant' });
  const input = page.getByPlaceholder(PLACEHOLDER);
  await input.fill(question);
  await input.press('Enter');
  const answer = chat.getByTestId('assistant-message').last();
  await expect(answer.getByRole('heading', { name: heading })).toBeVisible({ timeout: ANSWER_TIMEOUT });
  return answer;
}

test('the default dashboard shows AAPL alerts and charts, and WATOS grids for AAPL and CME_MINI:MES1!', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  const panel = page.getByRole('region', { name: 'Watchlist Alerts' });
  await expect(panel.getByRole('table', { name: /^Alert watchlist/ }).getByRole('rowheader')).toHaveText([
    /^AAPL/,
    /^TSLA/,
    /^BTC/,
    /^ETH/,
  ]);

  // The engine's own alerts for AAPL (a stock, on the demo feed), then the panel shows them.
  await waitForAlerts(page, { symbol: 'AAPL', start_time: utc(new Date(Date.now() - 4 * 86_400_000)) });
  await page.reload();
  const aapl = panel.locator('[data-testid="watchlist-alert"][data-symbol="AAPL"]');
  await expect(aapl.first()).toBeVisible();
  await expect(aapl.first()).toContainText('AAPL');
  // Every default symbol is tracked: none is said to have no market data.
  await expect(panel.getByTestId('no-market-data')).toHaveCount(0);
  await expect(panel).not.toContainText('No market data');

  // The candlestick 'Chart' button (not a video icon) opens the stock's own candle chart, on demo data.
  const openChart = aapl.first().getByRole('button', { name: 'Open the AAPL chart' });
  await expect(openChart.getByText('Chart', { exact: true })).toBeVisible();
  await expect(openChart).toHaveAttribute('title', 'Open chart');
  await expect(openChart.locator('svg[data-icon="chart"]')).toBeVisible();
  await aapl.first().screenshot({ path: test.info().outputPath('watchlist-alert-chart-button.png') });
  await openChart.click();
  await expect(page.getByRole('tab', { name: 'Exchange Data', exact: true })).toHaveAttribute('aria-selected', 'true');
  const chart = page.getByRole('dialog', { name: 'AAPL chart' });
  await expect(chart).toBeVisible();
  await expect(chart.getByTestId('chart-market')).toHaveText('Apple · Stock');
  await expect(chart.getByText('Demo data', { exact: true })).toBeVisible();
  await expect(chart.getByText('Delayed', { exact: true })).toHaveCount(0);
  await expect(chart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();
  await chart.getByRole('button', { name: 'Close chart' }).click();
  // The exchange view itself stays the 28 Coinbase cards.
  await expect(page.getByTestId('price-card')).toHaveCount(28);

  // The WATOS grid under an answer that mentions WATOS: AAPL...
  const apple = await ask(page, 'What are the odds for AAPL?', 'AAPL: What Are The Odds? (WATOS, 1h)');
  const appleGrid = apple.getByTestId('watos-grid');
  await expect(appleGrid.getByRole('heading', { name: 'WATOS Grid: AAPL' })).toBeVisible();
  await expect(appleGrid.getByTestId('watos-tile')).toHaveCount(6);
  await expect(appleGrid.getByText('Demo data', { exact: true })).toBeVisible();
  await expect(appleGrid.getByText(/^Last updated: \d/)).toBeVisible();
  await expect(appleGrid.getByTestId('watos-market')).toContainText('AAPL · Apple · Stock');

  // ...and the Micro E-mini S&P 500 future by its chart symbol.
  const micro = await ask(page, 'What are the odds for CME_MINI:MES1!?', 'MES1!: What Are The Odds? (WATOS, 1h)');
  const microGrid = micro.getByTestId('watos-grid');
  // docs/SPEC.md: the grid's symbol is the answer's first run of capitals, MES of 'MES1!'.
  await expect(microGrid.getByRole('heading', { name: 'WATOS Grid: MES' })).toBeVisible();
  // The conversation's second grid starts folded to its title; the first stays open.
  await expect(microGrid.getByTestId('watos-tile')).toHaveCount(0);
  const firstGrid = page
    .getByTestId('watos-grid')
    .filter({ has: page.getByRole('heading', { name: 'WATOS Grid: AAPL' }) });
  await expect(firstGrid.getByTestId('watos-tile')).toHaveCount(6);
  await microGrid.getByRole('button', { name: 'Show signals' }).click();
  await expect(microGrid.getByTestId('watos-tile')).toHaveCount(6);
  await expect(microGrid.getByText('Demo data', { exact: true })).toBeVisible();
  await expect(microGrid.getByTestId('watos-market')).toContainText('MES1! · Micro E-mini S&P 500 · Micro future');
  // The grid's endpoint takes the chart form itself.
  const card = (await (await page.request.get(`/api/watos/${encodeURIComponent('CME_MINI:MES1!')}`)).json()) as {
    available: boolean;
    productId: string;
    source: string;
    signals: unknown[];
  };
  expect(card).toMatchObject({ available: true, productId: 'MES1!', source: 'demo' });
  expect(card.signals).toHaveLength(6);
});

test('the alert log filters by asset class', async ({ subscribedPage: page }) => {
  await interceptThirdParties(page);
  const since = new Date(Date.now() - 4 * 86_400_000);
  await waitForAlerts(page, { market: 'stock', start_time: utc(since) });

  const log = page.getByRole('region', { name: 'All-Market Alert Log' });
  const market = log.getByLabel('Market', { exact: true });
  await expect(market.locator('option')).toHaveText([
    'All markets',
    'Crypto',
    'Stocks',
    'ETFs',
    'Indices',
    'Futures',
    'Micro futures',
  ]);
  // The datetime-local field takes the browser's local time.
  const start = await page.evaluate((at) => {
    const date = new Date(at);
    const pad = (value: number) => String(value).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }, since.getTime());
  await log.getByLabel('Start time').fill(start);
  await log.getByLabel('Max count').fill('100');
  const rows = log.getByTestId('alert-item');

  for (const [label, assetClass, shown] of [
    ['Stocks', 'stock', 'Stock'],
    ['Crypto', 'crypto', 'Crypto'],
  ] as const) {
    await market.selectOption({ label });
    const answered = page.waitForResponse(
      (response) =>
        new URL(response.url()).pathname === '/external-api/alert' &&
        new URL(response.url()).searchParams.get('market') === assetClass,
    );
    await log.getByRole('button', { name: 'Apply Filters' }).click();
    const { alerts } = (await (await answered).json()) as { alerts: Array<{ ticker: string }> };
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) expect(assetClassOfTicker(alert.ticker), alert.ticker).toBe(assetClass);
    // Once the answer is shown, every row is of the chosen class (live alerts are filtered too).
    await expect
      .poll(
        async () => new Set(await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-market')))),
      )
      .toEqual(new Set([assetClass]));
    const tickers = await rows.locator('span.font-bold').allTextContents();
    expect(tickers.length).toBeGreaterThan(0);
    for (const ticker of tickers) expect(assetClassOfTicker(ticker), ticker).toBe(assetClass);
    expect(new Set(await rows.getByTestId('alert-market').allTextContents())).toEqual(new Set([shown]));
  }

  // All markets again: no market filter is sent.
  await market.selectOption({ label: 'All markets' });
  const unfiltered = page.waitForResponse((response) => {
    const url = new URL(response.url());
    return (
      url.pathname === '/external-api/alert' &&
      url.searchParams.get('max_count') === '100' &&
      !url.searchParams.has('market')
    );
  });
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  const everything = (await (await unfiltered).json()) as { alerts: Array<{ ticker: string }> };
  expect(everything.alerts.length).toBeGreaterThan(0);
  await expect(rows.first()).toBeVisible();
});

test('the type-ahead adds a future by name to the chart watchlist and charts any market', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  // The watchlist table names a symbol by ticker and name; its row keeps the saved form.
  const watchlist = page.getByRole('table', { name: /^Chart watchlist/ }).locator('tbody');
  const input = page.getByRole('combobox', { name: 'Add symbol to the chart watchlist' });
  await input.fill('Micro E-mini');
  const suggestions = page.getByRole('listbox', { name: 'Symbol suggestions' });
  await expect(suggestions).toBeVisible();
  const option = suggestions.getByRole('option', { name: /CME_MINI:MES1!/ });
  await expect(option).toContainText('Micro E-mini S&P 500');
  await expect(option).toContainText('Micro future');
  await option.click();
  const added = watchlist.locator('tr[data-symbol="CME_MINI:MES1!"]');
  await expect(added).toContainText('Micro E-mini S&P 500');
  await expect(input).toHaveValue('');
  await page.reload();
  await expect(added).toContainText('Micro E-mini S&P 500');

  // The own candle chart: any table symbol, by name, from the picker above the exchange view.
  await page.getByRole('tab', { name: 'Exchange Data', exact: true }).click();
  const picker = page.getByRole('combobox', { name: 'Chart any symbol' });
  await picker.fill('Micro E-mini');
  await page
    .getByRole('listbox', { name: 'Symbol suggestions' })
    .getByRole('option', { name: /^MES.*Micro E-mini S&P 500/ })
    .click();
  const chart = page.getByRole('dialog', { name: 'MES1! chart' });
  await expect(chart).toBeVisible();
  await expect(chart.getByTestId('chart-market')).toHaveText('Micro E-mini S&P 500 · Micro future');
  await expect(chart.getByText('Demo data', { exact: true })).toBeVisible();
  await expect(chart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();

  // A typed symbol in any form the table resolves switches the chart; an unknown one is explained.
  await picker.fill('nasdaq:aapl');
  await picker.press('Enter');
  await expect(page.getByRole('dialog', { name: 'AAPL chart' })).toBeVisible();
  await picker.fill('zzqx');
  await picker.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'No market data for zzqx' })).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'AAPL chart' })).toBeVisible();
});
