// The dashboard by keyboard (issue 17, item 7) in a real browser at 1440x900 and 390x844: `/`
// focuses the chart's symbol search (from another phone tab, and from a chart source without
// one), `?` and the Account menu's entry open the "Keyboard shortcuts" dialog (a modal that
// passes axe, keeps Tab inside, closes on Escape and gives focus back), the arrow keys, Home,
// End and Enter in the watchlist table, and Escape closing the own chart.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { DEFAULT_CHART_WATCHLIST } from '../src/shared/constants.ts';
import { expect, test } from './fixtures.ts';

async function interceptThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

/** Focus on nothing in particular (the page itself), as after a click on empty space. */
async function focusNothing(page: Page) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Dashboard sections' });

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  const phone = size.width < 1024;

  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size });

    test('/ focuses the symbol search, ? lists the shortcuts in an accessible modal', async ({
      subscribedPage: page,
    }) => {
      await interceptThirdParties(page);
      await page.reload();
      const search = page.getByRole('combobox', { name: 'Add symbol to the chart watchlist' });
      await expect(search).toHaveAttribute('aria-keyshortcuts', '/');

      // From another tab of the phone layout, `/` brings the Chart tab and its search.
      if (phone) {
        await tabs(page).getByRole('tab', { name: 'Alerts' }).click();
        await expect(search).toBeHidden();
      }
      await focusNothing(page);
      await page.keyboard.press('/');
      await expect(search).toBeFocused();
      if (phone) await expect(tabs(page).getByRole('tab', { name: 'Chart' })).toHaveAttribute('aria-selected', 'true');
      // The `/` itself is not typed; what follows is, and the keys are the field's again.
      await page.keyboard.type('AAPL/?');
      await expect(search).toHaveValue('AAPL/?');
      await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toHaveCount(0);
      await search.fill('');

      // Barchart has no symbol input of ours: `/` opens Exchange Data's "Chart any symbol".
      await page.getByRole('tab', { name: 'Barchart', exact: true }).click();
      await focusNothing(page);
      await page.keyboard.press('/');
      const anySymbol = page.getByRole('combobox', { name: 'Chart any symbol' });
      await expect(anySymbol).toBeFocused();
      await expect(page.getByRole('tab', { name: 'Exchange Data', exact: true })).toHaveAttribute(
        'aria-selected',
        'true',
      );

      // `?` from the page: the dialog takes focus, keeps Tab inside, Escape closes it and
      // focus goes back where it was.
      await page.getByRole('tab', { name: 'TradingView', exact: true }).click();
      const opener = page.getByRole('tab', { name: 'TradingView', exact: true });
      await expect(opener).toBeFocused();
      await page.keyboard.press('?');
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await expect(dialog).toBeVisible();
      await expect(dialog).toHaveAttribute('aria-modal', 'true');
      const close = dialog.getByRole('button', { name: 'Close keyboard shortcuts' });
      await expect(close).toBeFocused();
      await expect(dialog.getByRole('term')).toContainText(['Slash', 'Question mark', 'Escape']);
      await expect(dialog.getByText('Search symbols: focus the chart’s symbol search')).toBeVisible();
      await page.keyboard.press('Tab');
      await expect(close).toBeFocused();
      await page.keyboard.press('Shift+Tab');
      await expect(close).toBeFocused();
      // While the dialog is open `/` does not reach the page behind it.
      await page.keyboard.press('/');
      await expect(close).toBeFocused();

      // It fits the screen and passes axe (WCAG 2.1 A and AA, and best practice).
      const box = (await dialog.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      const results = await new AxeBuilder({ page })
        .include('[data-testid="shortcuts-dialog"]')
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
        .analyze();
      // Not only nothing serious or critical: no violation at all.
      expect(results.violations.map((violation) => `${violation.impact} ${violation.id}: ${violation.help}`)).toEqual(
        [],
      );
      expect(results.passes.map((rule) => rule.id)).toEqual(
        expect.arrayContaining(['aria-dialog-name', 'color-contrast', 'button-name', 'dlitem']),
      );

      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      await expect(opener).toBeFocused();
    });

    test('the Account menu opens the shortcuts; Escape closes the dialog and leaves the menu open', async ({
      subscribedPage: page,
    }) => {
      await interceptThirdParties(page);
      await page.reload();
      if (phone) await page.getByRole('button', { name: 'Menu' }).click();
      const account = page.getByText('Account', { exact: true });
      await account.click();
      await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await expect(dialog).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      // Focus is back on the Account button; on a phone the top bar's menu holding it is still open.
      await expect(account).toBeFocused();
      if (phone) await expect(page.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'true');

      // The close button and a click beside the dialog close it too.
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
      await dialog.getByRole('button', { name: 'Close keyboard shortcuts' }).click();
      await expect(dialog).toHaveCount(0);
      await focusNothing(page);
      await page.keyboard.press('?');
      await expect(dialog).toBeVisible();
      await page.mouse.click(5, size.height - 5);
      await expect(dialog).toHaveCount(0);
    });

    test('arrow keys, Home, End and Enter in the watchlist table; Escape closes the own chart', async ({
      subscribedPage: page,
    }) => {
      await interceptThirdParties(page);
      await page.reload();
      const table = page.getByRole('table', { name: /^Chart watchlist/ });
      const rows = table.locator('tbody tr');
      await expect(rows).toHaveCount(DEFAULT_CHART_WATCHLIST.length);
      const last = DEFAULT_CHART_WATCHLIST.length - 1;

      // Tab reaches the table's one tab stop, the current row.
      await rows.nth(0).focus();
      await page.keyboard.press('ArrowDown');
      await expect(rows.nth(1)).toBeFocused();
      await page.keyboard.press('End');
      await expect(rows.nth(last)).toBeFocused();
      await page.keyboard.press('Home');
      await expect(rows.nth(0)).toBeFocused();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowUp');
      await expect(rows.nth(1)).toBeFocused();
      await expect(rows.nth(1)).toHaveAttribute('tabindex', '0');
      await expect(rows.nth(0)).toHaveAttribute('tabindex', '-1');
      // Enter opens the row's chart, as a click does: the TradingView main chart.
      await page.keyboard.press('Enter');
      await expect(rows.nth(1)).toHaveAttribute('aria-current', 'true');
      await expect(rows.nth(0)).not.toHaveAttribute('aria-current', 'true');

      // The own chart closes on Escape inside it, and right after opening it from a row (its
      // button goes with the TradingView controls, so focus is on nothing).
      const openAapl = table.getByRole('button', { name: 'Open the NASDAQ:AAPL chart' });
      await openAapl.click();
      const chart = page.getByRole('dialog', { name: 'AAPL chart' });
      await expect(chart).toBeVisible();
      await chart.getByRole('button', { name: '4h', exact: true }).click();
      await page.keyboard.press('Escape');
      await expect(chart).toHaveCount(0);

      await page.getByRole('tab', { name: 'TradingView', exact: true }).click();
      await openAapl.click();
      await expect(chart).toBeVisible();
      await expect(openAapl).toHaveCount(0);
      await page.keyboard.press('Escape');
      await expect(chart).toHaveCount(0);

      // A chart left open behind another source is not closed by an Escape it cannot show.
      await page.getByRole('tab', { name: 'TradingView', exact: true }).click();
      await openAapl.click();
      await expect(chart).toBeVisible();
      await page.getByRole('tab', { name: 'TradingView', exact: true }).click();
      await focusNothing(page);
      await page.keyboard.press('Escape');
      await page.getByRole('tab', { name: 'Exchange Data', exact: true }).click();
      await expect(chart).toBeVisible();
    });
  });
}
