// The track record journey (issue 20) on the demo feed: WATOS grid cards requested so their
// statements are recorded as forecasts, resolved past their horizon through the test hook
// (which stores the demo feed's bars up to a later `now`, as the engine would have), then the
// dashboard's Track record panel shows the reliability diagram and the scores with counts,
// labelled "Demo data"; a backtest runs and is marked as one; the view passes axe (WCAG 2.1 A
// and AA, no serious or critical violation) and fits 1440x900 and 390x844 (in the AI tab).
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

const THIRD_PARTIES = /^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//;
const HOUR = 3_600_000;

interface Card {
  available: boolean;
  lastBarTime: string;
  signals: Array<{ active: boolean; odds: { probability: number | null } | null }>;
}

async function blockThirdParties(page: Page) {
  await page.route(THIRD_PARTIES, (route) => route.abort('blockedbyclient'));
}

async function seriousViolations(page: Page, scope: string): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(scope)
    .analyze();
  expect(results.passes.length).toBeGreaterThan(0);
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
}

async function expectNoSidewaysScroll(page: Page, where: string) {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), {
      message: `horizontal overflow on ${where}`,
    })
    .toBe(0);
}

test('forecasts from the grid are resolved and scored in the Track record view, with a backtest', async ({
  subscribedPage: page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await blockThirdParties(page);

  // Grid cards whose signals state odds are recorded as forecasts (the demo feed moves with the
  // clock, so a few markets are asked until some state a probability). Crypto only: their 24
  // hourly bars are 24 hours on any day, where a stock's statement made on a weekend is due
  // days later.
  let latestBar = 0;
  let stated = 0;
  for (const symbol of ['BTC', 'ETH', 'SOL', 'AVAX', 'DOGE', 'XRP', 'ADA', 'LINK', 'DOT', 'LTC']) {
    const response = await page.request.get(`/api/watos/${symbol}?timeframe=1h`);
    expect(response.ok()).toBe(true);
    const card = (await response.json()) as Card;
    if (!card.available) continue;
    stated += card.signals.filter((signal) => signal.active && signal.odds?.probability != null).length;
    latestBar = Math.max(latestBar, Date.parse(card.lastBarTime));
    if (stated >= 3) break;
  }
  expect(stated).toBeGreaterThan(0);

  // A day and a bit past the statements' bar (the 1h horizon is 24 bars): every one settles.
  const later = new Date(latestBar + HOUR + 26 * HOUR).toISOString();
  const resolve = await page.request.post('/api/test/forecasts/resolve', {
    data: { now: later },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(resolve.ok()).toBe(true);
  const settled = (await resolve.json()) as { resolved: number; storedBars: number };
  expect(settled.storedBars).toBeGreaterThan(0);
  expect(settled.resolved).toBeGreaterThanOrEqual(stated);

  await page.reload();
  const section = page.getByRole('region', { name: 'Track record' });
  await section.getByRole('button', { name: 'Show track record' }).click();
  const live = section.getByTestId('track-record-live');
  await expect(live.getByRole('heading', { name: 'Live record' })).toBeVisible();
  await expect(live.getByTestId('track-record-demo')).toHaveText('Demo data');
  // The counts, the scores and the diagram with its points and table.
  await expect(live.getByTestId('count-resolved')).not.toHaveText('0');
  const resolved = Number((await live.getByTestId('count-resolved').textContent())!.replace(/,/g, ''));
  expect(resolved).toBeGreaterThanOrEqual(stated);
  await expect(live.getByTestId('track-record-scores')).toContainText('Brier score');
  await expect(live.getByTestId('track-record-verdict')).toContainText(
    new RegExp(`the base rate over ${resolved.toLocaleString('en-US')} resolved forecasts?`),
  );
  const diagram = live.getByTestId('reliability-diagram');
  await expect(diagram.getByRole('img', { name: /^Reliability diagram/ })).toBeVisible();
  await expect(diagram.getByTestId('reliability-diagonal')).toBeAttached();
  const points = diagram.getByTestId('reliability-point');
  expect(await points.count()).toBeGreaterThan(0);
  const pointCounts = await points.evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('data-count'))));
  expect(pointCounts.reduce((sum, count) => sum + count, 0)).toBe(resolved);
  await expect(diagram.getByRole('table').getByRole('row')).toHaveCount(pointCounts.length + 1);
  await expect(live.getByTestId('track-record-signal').first()).toContainText('Hit rate');

  // A backtest of the chosen market, marked as one.
  await section.getByRole('button', { name: 'Run backtest' }).click();
  const backtest = section.getByTestId('track-record-backtest');
  await expect(
    backtest.getByRole('heading', { name: 'Backtest (walk-forward over stored history, not live forecasts)' }),
  ).toBeVisible();
  await expect(backtest.getByTestId('reliability-diagram')).toBeVisible({ timeout: 60_000 });
  await expect(backtest.getByTestId('track-record-demo')).toHaveText('Demo data');
  await expect(backtest.getByTestId('count-resolved')).not.toHaveText('0');

  expect(await seriousViolations(page, '[data-testid="track-record"]'), 'axe at 1440x900').toEqual([]);
  await expectNoSidewaysScroll(page, 'the Track record view at 1440x900');

  // The phone: the view lives in the AI tab, fits the width and passes axe too.
  await page.setViewportSize({ width: 390, height: 844 });
  const tabs = page.getByRole('tablist', { name: 'Dashboard sections' });
  await tabs.getByRole('tab', { name: 'AI' }).click();
  await expect(section).toBeVisible();
  await section.scrollIntoViewIfNeeded();
  await expect(diagram).toBeVisible();
  await expect(backtest.getByTestId('reliability-diagram')).toBeVisible();
  await expectNoSidewaysScroll(page, 'the Track record view at 390x844');
  expect(await seriousViolations(page, '[data-testid="track-record"]'), 'axe at 390x844').toEqual([]);
  // Another tab hides it.
  await tabs.getByRole('tab', { name: 'Files' }).click();
  await expect(section).toBeHidden();
});
