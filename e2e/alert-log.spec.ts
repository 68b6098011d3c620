// The alert log's filter form (issue 17, items 5 and 6): docs/SPEC.md's max-count rule applied
// and told in one line, one request a click, the window the list covers in words, and date
// fields wide enough to read on a desktop and on a phone.
import { expect, test } from './fixtures.ts';

test('max count is capped and told, each Apply Filters is one request, the window is named', async ({
  subscribedPage: page,
}) => {
  const log = page.getByRole('region', { name: 'All-Market Alert Log' });
  await expect(log.getByTestId('alert-window')).toHaveText('Showing the last hour');
  const requests: URL[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/external-api/alert' && url.searchParams.get('max_count') !== '3') requests.push(url);
  });

  await log.getByLabel('Max count').fill('150');
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(log.getByRole('status')).toHaveText('Max count is at most 100; showing 100.');
  await expect(log.getByLabel('Max count')).toHaveValue('100');
  await expect.poll(() => requests.length).toBe(1);
  expect(requests[0]?.searchParams.get('max_count')).toBe('100');

  await log.getByLabel('Symbol').fill('BTC');
  await log.getByLabel('Start time').fill('2026-01-01T09:30');
  await log.getByLabel('End time').fill('2026-01-01T10:30');
  await log.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(log.getByTestId('alert-window')).toHaveText('Showing 2026-01-01 09:30 to 2026-01-01 10:30');
  await expect(log.getByText('No alerts found')).toBeVisible();
  await expect(log.getByRole('status')).toHaveCount(0);
  await page.waitForTimeout(500);
  expect(requests).toHaveLength(2);
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`the alert log date fields show the whole date and time at ${viewport.width}x${viewport.height}`, async ({
    subscribedPage: page,
  }, testInfo) => {
    await page.setViewportSize(viewport);
    // Below 1024px the dashboard is tabs: the alert log is on the Alerts tab.
    if (viewport.width < 1024) {
      await page.getByRole('tablist', { name: 'Dashboard sections' }).getByRole('tab', { name: 'Alerts' }).click();
    }
    const log = page.getByRole('region', { name: 'All-Market Alert Log' });
    await log.scrollIntoViewIfNeeded();
    for (const name of ['Start time', 'End time']) {
      const field = log.getByLabel(name);
      await field.fill('2026-12-31T23:59');
      // Chromium's 'mm/dd/yyyy, --:-- --' needs about 210px of a 14px font; narrower cuts it off.
      const box = (await field.boundingBox())!;
      expect(box.width, `${name} width`).toBeGreaterThanOrEqual(210);
      expect(await field.evaluate((input) => input.scrollWidth <= input.clientWidth)).toBe(true);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await log.screenshot({ path: testInfo.outputPath(`alert-log-${viewport.width}.png`) });
  });
}
