// File versions in My Stuff (docs/SPEC.md tour step 8's "version control"), in a real browser
// against the real server: upload a CSV, upload a changed CSV with the same name, open the
// file's versions, download the first and check its content; then the same list on a phone
// (390x844) without sideways scrolling. axe finds no WCAG 2.1 A/AA violation in 'Your Files'
// with the versions open.
import { readFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

const FIRST = 'date,symbol,close\n2026-01-02,BTC-USD,97000\n';
const CHANGED = 'date,symbol,close\n2026-01-02,BTC-USD,97000\n2026-01-03,BTC-USD,98250\n';

function yourFiles(page: Page) {
  return page.getByRole('region', { name: 'My Stuff' }).getByRole('region', { name: 'Your Files' });
}

async function expectAccessibleFiles(page: Page) {
  const results = await new AxeBuilder({ page })
    .include('[data-tour="files"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(
    results.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} ${node.failureSummary}`),
    ),
  ).toEqual([]);
}

async function uploadCsv(page: Page, content: string) {
  await page
    .getByRole('region', { name: 'My Stuff' })
    .getByLabel('Choose a CSV or Excel file to upload')
    .setInputFiles({ name: 'closes.csv', mimeType: 'text/csv', buffer: Buffer.from(content) });
  await expect(yourFiles(page).getByRole('status')).toHaveText('Upload successful!');
}

test('uploading a changed CSV under the same name keeps the first as version 1, downloadable', async ({
  subscribedPage: page,
}) => {
  const yours = yourFiles(page);
  await uploadCsv(page, FIRST);
  const row = yours.getByTestId('file-row').filter({ hasText: 'closes.csv' });
  await expect(row.getByTestId('file-size')).toHaveText(`${Buffer.byteLength(FIRST)} Bytes`);
  // One version: no versions toggle.
  await expect(row.getByRole('button', { name: /versions/ })).toHaveCount(0);

  await uploadCsv(page, CHANGED);
  // Still one file, now at version 2 with the changed size.
  await expect(yours.getByTestId('file-row')).toHaveCount(1);
  await expect(row.getByTestId('file-size')).toHaveText(`${Buffer.byteLength(CHANGED)} Bytes`);
  const toggle = row.getByRole('button', { name: 'v2 · 2 versions of closes.csv' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');

  const versions = row.getByRole('list', { name: 'Versions of closes.csv' });
  const items = versions.getByRole('listitem');
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toContainText('v2');
  await expect(items.nth(0)).toContainText('current');
  await expect(items.nth(0)).toContainText(`${Buffer.byteLength(CHANGED)} Bytes`);
  await expect(items.nth(1)).toContainText('v1');
  await expect(items.nth(1)).toContainText(`${Buffer.byteLength(FIRST)} Bytes`);
  // Each version shows the date and time it was uploaded.
  for (const index of [0, 1]) {
    const when = await items.nth(index).locator('time').getAttribute('datetime');
    expect(Date.now() - Date.parse(when ?? '')).toBeLessThan(5 * 60_000);
  }
  await expectAccessibleFiles(page);

  const downloading = page.waitForEvent('download');
  await versions.getByRole('link', { name: 'Download version 1 of closes.csv' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('closes.csv');
  expect(await readFile(await download.path(), 'utf8')).toBe(FIRST);

  // The file's own Download is the current version.
  const current = page.waitForEvent('download');
  await row.getByRole('link', { name: 'Download closes.csv' }).click();
  expect(await readFile(await (await current).path(), 'utf8')).toBe(CHANGED);

  // The list comes from the server: still two versions after a reload; deleting the file
  // asks about every version and removes them all.
  await page.reload();
  await expect(row.getByRole('button', { name: 'v2 · 2 versions of closes.csv' })).toBeVisible();
  await row.getByRole('button', { name: 'Delete closes.csv' }).click();
  await expect(row.getByText('Delete this file and all 2 versions?')).toBeVisible();
  await row.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(yours.getByText('No files uploaded yet')).toBeVisible();
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the versions list fits the screen, and an earlier version can be deleted', async ({ subscribedPage: page }) => {
    await page.getByRole('tablist', { name: 'Dashboard sections' }).getByRole('tab', { name: 'Files' }).click();
    await uploadCsv(page, FIRST);
    await uploadCsv(page, CHANGED);
    const row = yourFiles(page).getByTestId('file-row').filter({ hasText: 'closes.csv' });
    await row.getByRole('button', { name: 'v2 · 2 versions of closes.csv' }).click();
    const versions = row.getByRole('list', { name: 'Versions of closes.csv' });
    await expect(versions.getByRole('listitem')).toHaveCount(2);
    await expect(versions.getByRole('link', { name: 'Download version 1 of closes.csv' })).toBeInViewport();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth))
      .toBe(0);
    await expectAccessibleFiles(page);

    await versions.getByRole('button', { name: 'Delete version 1 of closes.csv' }).click();
    await versions.getByRole('button', { name: 'Delete', exact: true }).click();
    // One version left: the toggle and its list go, the file stays at version 2.
    await expect(row.getByRole('button', { name: /versions of closes\.csv/ })).toHaveCount(0);
    await expect(row.getByTestId('file-size')).toHaveText(`${Buffer.byteLength(CHANGED)} Bytes`);
  });
});
