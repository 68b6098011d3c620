// The watchlists as tables (issue 17, items 3 and 7) in a real browser on the demo feed, at
// 1440x900 and 390x844: the chart watchlist's default symbols with the prices the candle store
// holds, sorting by % Change, a row (clicked, or reached with the arrow keys and Enter) that
// makes the TradingView main chart, the alerts panel's row that opens its own chart, the
// Table / Chips choice surviving a reload, and no horizontal page scroll.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { DEFAULT_CHART_WATCHLIST } from '../src/shared/constants.ts';
import { formatPrice } from '../src/shared/format.ts';
import type { WatchlistQuotesResponse } from '../src/shared/schemas/market.ts';
import { expect, test } from './fixtures.ts';

async function interceptThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

/** axe (WCAG 2.1 A and AA) on every watchlist table on the page: no violations at all. */
async function expectAccessibleTables(page: Page) {
  const results = await new AxeBuilder({ page })
    .include('[data-testid="watchlist-table"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}

async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, viewport } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(viewport);
}

/**
 * Records the page's own answers of GET /api/market/watchlist for the chart watchlist: the
 * figures its table sorts on. The table sorts on the figures re-read each minute, not on the
 * ticks shown between re-reads (rows do not jump with every tick), so the shown % can drift a
 * little from the order. A route disables the browser's HTTP cache, so each re-read is a whole
 * answer (never a 304 without a body).
 */
async function recordChartQuotes(page: Page): Promise<() => WatchlistQuotesResponse | null> {
  let latest: WatchlistQuotesResponse | null = null;
  await page.route(/\/api\/market\/watchlist\?/, async (route) => {
    const response = await route.fetch();
    const asked = new URL(route.request().url()).searchParams.get('symbols');
    if (response.ok() && asked === DEFAULT_CHART_WATCHLIST.join(',')) {
      latest = (await response.json()) as WatchlistQuotesResponse;
    }
    await route.fulfill({ response });
  });
  return () => latest;
}

/** The chart watchlist's symbols in % change order (no figure last, ties in watchlist order), as the page's last answer gives it. */
function byChangePercent(answer: WatchlistQuotesResponse | null, direction: 'ascending' | 'descending'): string[] {
  const factor = direction === 'ascending' ? 1 : -1;
  return (answer?.entries ?? [])
    .map((entry, index) => ({
      query: entry.query,
      index,
      value: entry.status === 'priced' ? entry.changePercent : null,
    }))
    .sort((a, b) => {
      if (a.value === null || b.value === null)
        return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      return a.value === b.value ? a.index - b.index : (a.value - b.value) * factor;
    })
    .map((entry) => entry.query);
}

/** On a phone the dashboard is tabs: open the one holding the panels (nothing to do on a desktop). */
async function showSection(page: Page, name: 'Chart' | 'Alerts') {
  const tabs = page.getByRole('tablist', { name: 'Dashboard sections' });
  if (await tabs.isVisible()) await tabs.getByRole('tab', { name }).click();
}

/** The TradingView widget's main symbol, from the configuration its script was given. */
async function mainChartSymbol(page: Page): Promise<string> {
  const config = await page.getByTestId('tradingview-container').locator('script').textContent();
  return (JSON.parse(config ?? '{}') as { symbol: string }).symbol;
}

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size });

    test('the chart watchlist table shows the stored prices, sorts, opens the chart and fits the screen', async ({
      subscribedPage: page,
    }) => {
      await interceptThirdParties(page);
      const quotes = await recordChartQuotes(page);
      await page.reload();
      const table = page.getByRole('table', { name: /^Chart watchlist/ });
      const rows = table.locator('tbody tr');
      await expect(rows).toHaveCount(DEFAULT_CHART_WATCHLIST.length);
      await expect(rows.first()).toHaveAttribute('aria-current', 'true');

      // Every default symbol gets a price once the engine has stored its bars; each is the
      // server's own figure (the close of the newest stored one-minute bar), never a made-up one.
      // (A server that has just started may still be storing them: the page re-reads in 10 s.)
      await expect(table.getByTestId('watchlist-change-percent')).toHaveCount(DEFAULT_CHART_WATCHLIST.length, {
        timeout: 30_000,
      });
      await expect(table.getByTestId('watchlist-no-data')).toHaveCount(0);
      const answer = await page.request.get(
        `/api/market/watchlist?symbols=${encodeURIComponent(DEFAULT_CHART_WATCHLIST.join(','))}`,
      );
      const { entries } = (await answer.json()) as WatchlistQuotesResponse;
      for (const [index, entry] of entries.entries()) {
        expect(entry.status, entry.query).toBe('priced');
        if (entry.status !== 'priced') continue;
        expect(entry.source).toBe('demo');
        const row = rows.nth(index);
        await expect(row).toHaveAttribute('data-symbol', DEFAULT_CHART_WATCHLIST[index]!);
        await expect(row.getByRole('rowheader')).toContainText(entry.ticker);
        // Ticks keep the price live: it is within 2% of the store's last minute close. The cell
        // also holds the row's state label (Live, Demo, Stale, Delayed N min) after the price.
        const shown = (await row.getByRole('cell').first().textContent())?.replace(
          /(D|Live|Demo|Stale|Delayed \d+ min)$/,
          '',
        );
        expect(shown).toMatch(/^\d[\d,]*\.\d{2,8}$/);
        expect(Math.abs(Number(shown?.replace(/,/g, '')) - (entry.last ?? 0)) / (entry.last ?? 1)).toBeLessThan(0.02);
        expect(shown).toBe(formatPrice(Number(shown?.replace(/,/g, ''))));
        await expect(row.getByRole('img', { name: new RegExp(`^${entry.ticker} last hour`) })).toBeVisible();
      }
      await expect(page.getByText('Demo data.', { exact: false }).first()).toBeVisible();
      await expectAccessibleTables(page);

      // Sorting by % Change: ascending, then descending, on the figures the page re-read.
      const header = table.getByRole('columnheader', { name: /% Change/ });
      const shownOrder = () => rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-symbol')));
      expect(quotes()?.entries).toHaveLength(DEFAULT_CHART_WATCHLIST.length);
      await header.getByRole('button').click();
      await expect(header).toHaveAttribute('aria-sort', 'ascending');
      await expect(async () => expect(await shownOrder()).toEqual(byChangePercent(quotes(), 'ascending'))).toPass();
      await header.getByRole('button').click();
      await expect(header).toHaveAttribute('aria-sort', 'descending');
      await expect(async () => expect(await shownOrder()).toEqual(byChangePercent(quotes(), 'descending'))).toPass();
      // The figures are not all equal, so a sort that did nothing would fail one of the two.
      expect(byChangePercent(quotes(), 'ascending')).not.toEqual(byChangePercent(quotes(), 'descending'));
      await header.getByRole('button').click();
      await expect(header).toHaveAttribute('aria-sort', 'none');

      // A click on a row makes it the TradingView main chart; the saved order stays.
      expect(await mainChartSymbol(page)).toBe('NASDAQ:AAPL');
      await table.locator('tr[data-symbol="NASDAQ:TSLA"]').getByRole('rowheader').click();
      await expect(table.locator('tr[data-symbol="NASDAQ:TSLA"]')).toHaveAttribute('aria-current', 'true');
      await expect.poll(() => mainChartSymbol(page)).toBe('NASDAQ:TSLA');
      await expect(rows.first()).toHaveAttribute('data-symbol', 'NASDAQ:AAPL');

      // The keyboard: arrow keys between rows, Enter opens.
      await table.locator('tr[data-symbol="NASDAQ:TSLA"]').focus();
      await page.keyboard.press('ArrowDown');
      await expect(table.locator('tr[data-symbol="NASDAQ:MSFT"]')).toBeFocused();
      await page.keyboard.press('End');
      await expect(table.locator('tr[data-symbol="BINANCE:ETHUSDT"]')).toBeFocused();
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      await expect.poll(() => mainChartSymbol(page)).toBe('BINANCE:BTCUSDT');

      await expectNoHorizontalScroll(page);
      await page.screenshot({ path: test.info().outputPath(`watchlist-table-${size.width}.png`), fullPage: false });

      // The compact chips, remembered over a reload.
      await page.getByRole('group', { name: 'Chart watchlist view' }).getByRole('button', { name: 'Chips' }).click();
      await expect(table).toHaveCount(0);
      await page.reload();
      await expect(page.getByRole('list', { name: 'Chart watchlist' }).getByRole('listitem')).toHaveCount(
        DEFAULT_CHART_WATCHLIST.length,
      );
      await expect(page.getByRole('table', { name: /^Chart watchlist/ })).toHaveCount(0);
      await expectNoHorizontalScroll(page);
    });

    test('the alerts panel table opens the own chart of a row and fits the screen', async ({
      subscribedPage: page,
    }) => {
      await interceptThirdParties(page);
      await showSection(page, 'Alerts');
      const panel = page.getByRole('region', { name: 'Watchlist Alerts' });
      const table = panel.getByRole('table', { name: /^Alert watchlist/ });
      await expect(table.locator('tbody tr')).toHaveCount(4);
      await expect(table.getByTestId('watchlist-change-percent')).toHaveCount(4, { timeout: 30_000 });
      await expect(table.getByTestId('watchlist-no-data')).toHaveCount(0);
      await expect(table.getByRole('button', { name: 'Alert on BTC' })).toBeVisible();
      await expectNoHorizontalScroll(page);

      await table.locator('tr[data-symbol="BTC"]').getByRole('rowheader').click();
      const chart = page.getByRole('dialog', { name: 'BTC-USD chart' });
      await expect(chart).toBeVisible();
      await expect(chart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();
      await chart.getByRole('button', { name: 'Close chart' }).click();

      // Opening a chart shows the Chart section; back to the alerts for the keyboard.
      await showSection(page, 'Alerts');
      await table.locator('tr[data-symbol="AAPL"]').focus();
      await page.keyboard.press('Enter');
      await expect(page.getByRole('dialog', { name: 'AAPL chart' })).toBeVisible();
      await expectNoHorizontalScroll(page);
    });
  });
}
