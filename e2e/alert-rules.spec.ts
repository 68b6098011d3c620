// A trader's own alert rules (issue 16), in a real browser against the real server: a price
// alert created from a watchlist chip's bell (prefilled at the last price), fired by the test
// hook moving the demo price across it, seen as a toast, in the Triggered list and in the
// delivery log (in-app and e-mail delivered), then paused and deleted; and an alert created
// from the own candle chart at a price, with the form's errors, the webhook test send and the
// push permission refused; and a list longer than a page read on with "Load more rules".
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

async function interceptThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

/** The test hook: a price update for a symbol, as if the demo feed moved there. */
async function movePrice(page: Page, symbol: string, price: number): Promise<number> {
  const response = await page.request.post('/api/test/rules/price', {
    data: { symbol, price },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { fired: number }).fired;
}

test('a price alert from a watchlist chip fires, shows in Triggered and the delivery log, pauses and deletes', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  const panel = page.getByTestId('alert-rules-panel');
  await expect(panel.getByRole('heading', { name: 'Alert rules' })).toBeVisible();
  await expect(panel.getByTestId('rule-cap')).toHaveText('0 of 50 active');
  await expect(panel.getByText(/No alert rules yet/)).toBeVisible();

  // The bell on the BTC row of the watchlist table opens the form for BTC at its last price.
  await page
    .getByRole('table', { name: /^Alert watchlist/ })
    .getByRole('button', { name: 'Alert on BTC' })
    .click();
  const form = page.getByRole('dialog', { name: 'New alert rule' });
  await expect(form).toBeVisible();
  await expect(form.getByRole('combobox', { name: 'Symbol' })).toHaveValue('BTC');
  await expect(form.getByLabel('Condition')).toHaveValue('price_cross');
  const levelInput = form.getByLabel('Price level');
  await expect(levelInput).toHaveValue(/^\d+(\.\d+)?$/);
  // A level twice the market's: the demo feed's own BTC ticks (4 a second, through the same
  // rules) then stay below it and cannot cross it between the two moves below.
  const level = Math.round(Number(await levelInput.inputValue()) * 2);
  await levelInput.fill(String(level));
  await form.getByLabel('Trigger').selectOption('every_time');
  await form.getByRole('checkbox', { name: 'E-mail' }).check();
  await form.getByLabel('Message (optional)').fill('{{ticker}} crossed {{close}}');
  await form.getByRole('button', { name: 'Create alert' }).click();
  await expect(form).toHaveCount(0);

  const row = panel.getByTestId('rule-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`BTC crosses above ${level.toLocaleString('en-US')}`);
  await expect(row).toContainText('Every time');
  await expect(row).toContainText('In app, E-mail');
  await expect(row).toContainText('Active');
  await expect(panel.getByTestId('rule-cap')).toHaveText('1 of 50 active');

  // Below the level, then above it: the rule fires.
  await movePrice(page, 'BTC', level * 0.9);
  // At least this rule fires (a repeat of this journey on the same server may hold one too).
  expect(await movePrice(page, 'BTC', level * 1.1)).toBeGreaterThanOrEqual(1);

  const toast = page.getByRole('status', { name: 'Triggered alerts' }).getByTestId('rule-toast');
  await expect(toast.first()).toContainText('BTC alert');
  await expect(toast.first()).toContainText(`BTC crossed`);

  await panel.getByRole('tab', { name: 'Triggered' }).click();
  const firing = panel.getByTestId('firing-row').first();
  await expect(firing).toContainText('BTC crossed');

  await panel.getByRole('tab', { name: 'Delivery log' }).click();
  const deliveries = panel.getByTestId('delivery-row');
  await expect(deliveries.and(page.locator('[data-channel="in_app"]')).first()).toHaveAttribute(
    'data-status',
    'delivered',
  );
  await expect(deliveries.and(page.locator('[data-channel="email"]')).first()).toHaveAttribute(
    'data-status',
    'delivered',
    { timeout: 30_000 },
  );
  await expect(deliveries.and(page.locator('[data-channel="email"]')).first()).toContainText('Attempts');

  // Pause, then delete after the confirm.
  await panel.getByRole('tab', { name: 'Rules' }).click();
  await expect(row).toContainText('Last triggered');
  await expect(row).not.toContainText('never');
  await row.getByRole('button', { name: /^Pause / }).click();
  await expect(row).toContainText('Paused');
  await expect(panel.getByTestId('rule-cap')).toHaveText('0 of 50 active');
  await row.getByRole('button', { name: /^Resume / }).click();
  await expect(row).toContainText('Active');
  await row.getByRole('button', { name: /^Delete / }).click();
  await row.getByRole('button', { name: 'Yes, delete' }).click();
  await expect(panel.getByTestId('rule-row')).toHaveCount(0);
  await expect(panel.getByText(/No alert rules yet/)).toBeVisible();
});

test('an alert at a price from the own candle chart, and the form explains a bad rule', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  await page.getByRole('tab', { name: 'Exchange Data', exact: true }).click();
  await page.getByTestId('price-card').filter({ hasText: 'ETH' }).first().click();
  const chart = page.getByRole('dialog', { name: 'ETH-USD chart' });
  await expect(chart.getByTestId('candle-chart').locator('canvas').first()).toBeVisible();

  // A click on the chart picks a price there.
  const before = await chart.getByRole('button', { name: /^Alert at / }).textContent();
  const box = (await chart.getByTestId('candle-chart').boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.2);
  await expect(chart.getByRole('button', { name: /^Alert at / })).not.toHaveText(before ?? '');
  const label = (await chart.getByRole('button', { name: /^Alert at / }).textContent()) ?? '';
  const picked = label.replace(/^Alert at /, '').replaceAll(',', '');
  await chart.getByRole('button', { name: /^Alert at / }).click();

  const form = page.getByRole('dialog', { name: 'New alert rule' });
  await expect(form.getByRole('combobox', { name: 'Symbol' })).toHaveValue('ETH-USD');
  await expect(form.getByLabel('Price level')).toHaveValue(String(Number(picked)));

  // The shared schema's errors, before anything is sent.
  await form.getByLabel('Condition').selectOption('ema_cross');
  await form.getByLabel('Fast EMA period').fill('21');
  await form.getByRole('checkbox', { name: 'Webhook' }).check();
  await form.getByRole('button', { name: 'Create alert' }).click();
  await expect(form.getByText('fast and slow must differ')).toBeVisible();
  await expect(form.getByText('A webhook rule needs a webhook URL')).toBeVisible();
  await expect(form.getByLabel('Webhook signing secret')).not.toHaveValue('');
  // "Send test" posts to the typed URL through the server and says how it went (this server's
  // own health check answers a POST with 404).
  await form.getByLabel('Webhook URL').fill(`${new URL(page.url()).origin}/healthz`);
  await form.getByRole('button', { name: 'Send test' }).click();
  await expect(form.getByText(/^Test (delivered|failed|not sent)/)).toBeVisible();

  // Push asks the browser; this headless one refuses notifications, and the form says so plainly.
  const push = form.getByRole('checkbox', { name: 'Push' });
  await push.click();
  await expect(
    form.getByText(
      "Notifications are blocked for this site: allow them in the browser's site settings to get push alerts",
    ),
  ).toBeVisible();
  await expect(push).not.toBeChecked();
  // The service worker the Push channel registers is served from the site's root.
  const worker = await page.request.get('/sw.js');
  expect(worker.headers()['content-type']).toContain('javascript');

  await form.getByLabel('Fast EMA period').fill('9');
  await form.getByRole('checkbox', { name: 'Webhook' }).uncheck();
  await form.getByRole('button', { name: 'Create alert' }).click();
  await expect(form).toHaveCount(0);
  await chart.getByRole('button', { name: 'Close chart' }).click();
  await expect(page.getByTestId('alert-rules-panel').getByTestId('rule-row')).toContainText(
    'ETH EMA(9) crosses above EMA(21)',
  );
});

test('the rules list shows its newest page and reads the next with Load more', async ({ subscribedPage: page }) => {
  await interceptThirdParties(page);
  const headers = { origin: new URL(page.url()).origin };
  // 51 rules, one more than a page; each paused at once, so the active cap does not bite.
  for (let level = 1; level <= 51; level += 1) {
    const created = await page.request.post('/api/alert-rules', {
      data: { symbol: 'AAPL', condition: { kind: 'price_cross', direction: 'above', level } },
      headers,
    });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: number };
    expect((await page.request.patch(`/api/alert-rules/${id}`, { data: { status: 'paused' }, headers })).ok()).toBe(
      true,
    );
  }
  await page.reload();
  const panel = page.getByTestId('alert-rules-panel');
  const rows = panel.getByTestId('rule-row');
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('AAPL crosses above 51');
  await expect(panel.getByTestId('rule-cap')).toHaveText('0 of 50 active');
  await panel.getByRole('button', { name: 'Load more rules' }).click();
  await expect(rows).toHaveCount(51);
  await expect(rows.last()).toContainText('AAPL crosses above 1 (1h)');
  await expect(panel.getByRole('button', { name: 'Load more rules' })).toHaveCount(0);
});

test('the rules panel and its form pass an accessibility check (axe, WCAG 2 A and AA)', async ({
  subscribedPage: page,
}) => {
  await interceptThirdParties(page);
  const panel = page.getByTestId('alert-rules-panel');
  await panel.getByRole('button', { name: 'New alert' }).click();
  const form = page.getByRole('dialog', { name: 'New alert rule' });
  await form.getByRole('combobox', { name: 'Symbol' }).fill('AAPL');
  await form.getByLabel('Price level').fill('190');
  await form.getByRole('checkbox', { name: 'Webhook' }).check();
  await expect(form.getByLabel('Webhook signing secret')).not.toHaveValue('');
  const withTags = (builder: AxeBuilder) => builder.withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  const formResults = await withTags(new AxeBuilder({ page }).include('[role="dialog"]')).analyze();
  expect(formResults.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
  // The check looked at the form: labels, contrast, roles and names were tested and passed.
  expect(formResults.passes.map((rule) => rule.id)).toEqual(expect.arrayContaining(['label', 'color-contrast']));

  await form.getByRole('checkbox', { name: 'Webhook' }).uncheck();
  await form.getByRole('button', { name: 'Create alert' }).click();
  await expect(panel.getByTestId('rule-row')).toHaveCount(1);
  for (const tab of ['Rules', 'Triggered', 'Delivery log']) {
    await panel.getByRole('tab', { name: tab }).click();
    const results = await withTags(new AxeBuilder({ page }).include('[data-testid="alert-rules-panel"]')).analyze();
    expect(results.violations.map((violation) => `${tab} ${violation.id}: ${violation.help}`)).toEqual([]);
  }
});
