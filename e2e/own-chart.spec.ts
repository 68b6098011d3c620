// The own candle chart, grown up (issue 17 item 2), at 1440x900 and 390x844 against the real
// server on the demo feed: opened from a chart watchlist chip, switched between timeframes
// (UTC-aligned bars in the legend), with its volume and RSI panes, an overlay picked, the
// trader's alert rule drawn as a level, and sized to its panel: no sideways scroll and the
// whole chart within the screen's height.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

async function interceptThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

/** Creates a price-cross rule on AAPL 5% above its last close through the API; returns its level. */
async function createRule(page: Page): Promise<number> {
  const candles = await page.request.get('/api/market/candles?symbol=AAPL&timeframe=1h&limit=10');
  expect(candles.ok()).toBe(true);
  const last = ((await candles.json()) as { candles: Array<{ close: number }> }).candles.at(-1)!.close;
  const level = Math.round(last * 1.05);
  const response = await page.request.post('/api/alert-rules', {
    data: {
      name: 'AAPL breakout',
      symbol: 'NASDAQ:AAPL',
      condition: { kind: 'price_cross', direction: 'above', level },
    },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return level;
}

const noSidewaysScroll = (page: Page, width: number) =>
  expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`the own chart at ${viewport.width}x${viewport.height}: timeframes, volume and RSI panes, alert levels, fits`, async ({
    subscribedPage: page,
  }, testInfo) => {
    await page.setViewportSize(viewport);
    await interceptThirdParties(page);
    const level = await createRule(page);
    await page.reload();

    // The chart action of the watchlist's row (the table, its default view).
    await page
      .getByRole('table', { name: 'Chart watchlist' })
      .getByRole('button', { name: 'Open the NASDAQ:AAPL chart' })
      .click();
    await expect(page.getByRole('tab', { name: 'Exchange Data', exact: true })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    const chart = page.getByRole('dialog', { name: 'AAPL chart' });
    const canvasArea = chart.getByTestId('candle-chart');
    await expect(canvasArea.locator('canvas').first()).toBeVisible();
    const legend = chart.getByTestId('chart-legend');

    // 1h first, with the volume and the RSI 14 values of the last bar in the legend.
    const timeframes = chart.getByRole('group', { name: 'Timeframe' });
    await expect(timeframes.getByRole('button', { name: '1h', exact: true })).toHaveAttribute('aria-pressed', 'true');
    await expect(legend).toContainText(/V [\d.]+[KMB]?/);
    await expect(legend).toContainText(/RSI 14 \d+\.\d\d/);
    await expect(legend).toContainText(/SMA 20 [\d.]+/);
    // Three panes (price, volume, RSI): lightweight-charts draws each in its own table row.
    expect(
      await canvasArea.evaluate((element) => element.querySelectorAll('table tr td:nth-child(2) canvas').length),
    ).toBeGreaterThanOrEqual(3 * 2);

    // The trader's rule on AAPL, drawn as a labelled level.
    await expect(chart.getByRole('list', { name: 'Your alert levels' })).toContainText(
      `AAPL breakout (above): ${level.toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    );

    // 4h bars open at 00, 04, 08 ... UTC and 1D bars at midnight UTC.
    await timeframes.getByRole('button', { name: '4h', exact: true }).click();
    await expect(timeframes.getByRole('button', { name: '4h', exact: true })).toHaveAttribute('aria-pressed', 'true');
    await expect(legend).toContainText(/ (00|04|08|12|16|20):00 UTC/);
    await timeframes.getByRole('button', { name: '1D', exact: true }).click();
    await expect(legend).toContainText(/ 00:00 UTC/);
    await timeframes.getByRole('button', { name: '5m', exact: true }).click();
    await expect(legend).toContainText(/ \d\d:[0-5][05] UTC/);

    // Bollinger bands picked: their three lines come with the bars.
    await chart.getByRole('group', { name: 'Overlays' }).getByRole('button', { name: 'BB 20,2' }).click();
    await expect(legend).toContainText(/BB upper [\d.]+/);
    await expect(legend).toContainText(/BB lower [\d.]+/);

    // Sized to its panel: never wider than the screen, and the whole chart within its height.
    await noSidewaysScroll(page, viewport.width);
    const box = (await canvasArea.boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(viewport.width);
    expect(box.height).toBeLessThanOrEqual(viewport.height);
    await canvasArea.evaluate((element) => element.scrollIntoView({ block: 'end' }));
    const shown = (await canvasArea.boundingBox())!;
    expect(shown.y).toBeGreaterThanOrEqual(0);
    expect(shown.y + shown.height).toBeLessThanOrEqual(viewport.height);
    await page.screenshot({ path: testInfo.outputPath(`own-chart-${viewport.width}.png`) });

    // The dialog's controls, legend and levels list: no serious or critical accessibility violation.
    const results = await new AxeBuilder({ page })
      .include('[role="dialog"][aria-label="AAPL chart"]')
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(
      results.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${violation.id}: ${violation.help}`),
    ).toEqual([]);
  });
}

test('at 1440x900 the exchange view chart shows its latest bars without scrolling', async ({
  subscribedPage: page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await interceptThirdParties(page);
  await page.getByRole('tab', { name: 'Exchange Data', exact: true }).click();
  await page.getByTestId('price-card').filter({ hasText: 'ETH' }).first().click();
  const chart = page.getByRole('dialog', { name: 'ETH-USD chart' });
  await expect(chart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = (await chart.getByTestId('candle-chart').boundingBox())!;
  expect(box.y).toBeGreaterThan(0);
  expect(box.y + box.height).toBeLessThanOrEqual(900);
  await noSidewaysScroll(page, 1440);
});
