// The phone layout (issue 17 item 4) at 390x844, and the desktop at 1440x900 where it differs:
// no horizontal scroll on any route or dashboard tab, the top bar's menu (a disclosure that
// Escape and an outside click close), the dashboard's tabs, and the guided tour fitting the
// screen and opening the tab that holds each step.
import type { Page } from '@playwright/test';
import { DEFAULT_CHART_WATCHLIST } from '../src/shared/constants.ts';
import { expect, OPEN_ROUTES, TOUR_TITLES, test } from './fixtures.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

/** The dashboard tab that holds each tour step's target on a phone. */
const TOUR_TABS = ['Chart', 'Chart', 'Chart', 'Chart', 'Alerts', 'Alerts', 'AI', 'AI', 'Alerts'];

async function blockThirdParties(page: Page) {
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* intercepted in tests */' }),
  );
}

/** How far the page scrolls sideways: 0 when nothing overflows. */
function sidewaysScroll(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The innermost elements that reach past the right edge, to name the culprit on a failure. */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      .filter((element) => ![...element.children].some((child) => child.getBoundingClientRect().right > width + 0.5))
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className.toString().slice(0, 80)}`);
  });
}

async function expectNoSidewaysScroll(page: Page, where: string) {
  await expect
    .poll(() => sidewaysScroll(page), { message: `horizontal overflow on ${where}` })
    .toBe(0)
    .catch(async (error: unknown) => {
      throw new Error(`${String(error)}\nReaching past the edge: ${(await overflowing(page)).join(' | ')}`);
    });
}

test.describe('at 390x844', () => {
  test.use({ viewport: PHONE });

  test('no open route scrolls sideways', async ({ page }) => {
    for (const route of OPEN_ROUTES) {
      await page.goto(route);
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
      await page.waitForLoadState('networkidle');
      await expectNoSidewaysScroll(page, route);
    }
  });

  test('the top bar is one row with a Menu button that Escape and an outside click close', async ({ page }) => {
    await page.goto('/');
    const menu = page.getByRole('button', { name: 'Menu' });
    const link = page.getByRole('link', { name: 'Crypto Analytics AI' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect((await nav.boundingBox())!.height).toBeLessThan(70);
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(link).toBeHidden();

    await menu.click();
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    await expect(link).toBeVisible();
    await expectNoSidewaysScroll(page, 'the open menu');
    await page.keyboard.press('Escape');
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(link).toBeHidden();
    await expect(menu).toBeFocused();

    await menu.click();
    await expect(link).toBeVisible();
    await page.mouse.click(200, 700);
    await expect(menu).toHaveAttribute('aria-expanded', 'false');

    await menu.click();
    await link.click();
    await expect(page).toHaveURL(/\/crypto-analytics-ai$/);
    await expect(page.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false');
  });

  test('the dashboard is five tabs, every tab and signed-in page fits the width', async ({ subscribedPage: page }) => {
    await blockThirdParties(page);
    await page.reload();
    const tabs = page.getByRole('tablist', { name: 'Dashboard sections' });
    await expect(tabs.getByRole('tab')).toHaveText(['Chart', 'Alerts', 'AI', 'Files', 'Scanner']);
    const panels = {
      Chart: page.locator('[data-tour="chart-area"]'),
      Alerts: page.locator('[data-tour="watchlist-alerts"]'),
      AI: page.locator('[data-tour="chat"]'),
      Files: page.locator('[data-tour="files"]'),
      Scanner: page.getByTestId('scanner'),
    };
    for (const name of ['Chart', 'Alerts', 'AI', 'Files', 'Scanner'] as const) {
      await tabs.getByRole('tab', { name }).click();
      await expect(tabs.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
      for (const [other, panel] of Object.entries(panels)) {
        if (other === name) await expect(panel).toBeVisible();
        else await expect(panel).toBeHidden();
      }
      await expectNoSidewaysScroll(page, `the ${name} tab`);
    }
    // The trader's alert rules (issue 16) belong to the Alerts tab.
    await tabs.getByRole('tab', { name: 'Alerts' }).click();
    await expect(page.locator('[data-tour="alert-rules"]')).toBeVisible();
    await expect(page.locator('[data-tour="alert-log"]')).toBeVisible();
    // Arrow keys move between the tabs.
    await tabs.getByRole('tab', { name: 'Alerts' }).press('ArrowRight');
    await expect(tabs.getByRole('tab', { name: 'AI' })).toBeFocused();
    await expect(panels.AI).toBeVisible();

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByText('Account', { exact: true }).click();
    await expect(page.getByRole('link', { name: 'Change password' })).toBeVisible();
    await expectNoSidewaysScroll(page, 'the open Account menu');

    for (const route of [...OPEN_ROUTES, '/dashboard']) {
      await page.goto(route);
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
      await page.waitForLoadState('networkidle');
      await expectNoSidewaysScroll(page, `${route} signed in`);
    }
  });

  test('a symbol of a long name added to the chart watchlist keeps the Chart tab within the width', async ({
    subscribedPage: page,
  }) => {
    await blockThirdParties(page);
    await page.reload();
    const input = page.getByRole('combobox', { name: 'Add symbol to the chart watchlist' });
    await input.fill('Micro E-mini S&P 500');
    await page
      .getByRole('listbox', { name: 'Symbol suggestions' })
      .getByRole('option', { name: /CME_MINI:MES1!/ })
      .click();
    const table = page.getByRole('table', { name: /^Chart watchlist/ });
    await expect(table.locator('tbody tr')).toHaveCount(DEFAULT_CHART_WATCHLIST.length + 1);
    // The table scrolls inside its own wrapper; its visually hidden "Actions" header too.
    await expectNoSidewaysScroll(page, 'the Chart tab with a long symbol added');
  });

  test("the tour fits the phone: step 1's Next is on screen and each step opens its tab", async ({
    subscribedPage: page,
  }) => {
    await blockThirdParties(page);
    await page.reload();
    await page.getByRole('tablist', { name: 'Dashboard sections' }).getByRole('tab', { name: 'Files' }).click();
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Take Tour' }).click();
    const tooltip = page.getByRole('alertdialog');
    for (const [index, title] of TOUR_TITLES.entries()) {
      await expect(tooltip.getByText(title, { exact: true })).toBeVisible();
      await expect(
        page.getByRole('tablist', { name: 'Dashboard sections' }).getByRole('tab', { name: TOUR_TABS[index] }),
      ).toHaveAttribute('aria-selected', 'true');
      const last = index === TOUR_TITLES.length - 1;
      const button = tooltip.getByRole('button', {
        name: last ? `Finish (${TOUR_TITLES.length} of ${TOUR_TITLES.length})` : `Next (${index + 1} of 9)`,
      });
      await expect(button).toBeInViewport({ ratio: 1 });
      const box = (await tooltip.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      await button.click();
    }
    await expect(tooltip).toHaveCount(0);
    await expectNoSidewaysScroll(page, 'the dashboard after the tour');
  });

  test("a step's target pushed off screen by the page growing comes back, unless the trader scrolled away", async ({
    subscribedPage: page,
  }) => {
    await blockThirdParties(page);
    await page.reload();
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Take Tour' }).click();
    const tooltip = page.getByRole('alertdialog');
    const next = tooltip.getByRole('button', { name: 'Next (1 of 9)' });
    await expect(next).toBeInViewport({ ratio: 1 });
    await next.click();
    const step2 = tooltip.getByRole('button', { name: 'Next (2 of 9)' });
    await expect(step2).toBeInViewport({ ratio: 1 });
    /** The page grows (a panel filling in) with its scroll position moved, the target off screen. */
    const growAndMoveAway = () =>
      page.evaluate(() => {
        const filler = document.createElement('div');
        filler.style.height = '400px';
        filler.className = 'test-filler';
        document.body.append(filler);
        window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' });
      });
    // Moved by the page itself (no input from the trader): the step is brought back.
    await growAndMoveAway();
    await page.evaluate(() =>
      document.body.append(Object.assign(document.createElement('div'), { style: 'height: 10px' })),
    );
    await expect(step2).toBeInViewport({ ratio: 1 });
    // The trader scrolls away with the wheel: a later change of size leaves the page where it is.
    await page.mouse.move(200, 400);
    await page.mouse.wheel(0, 3000);
    await expect(step2).not.toBeInViewport();
    const scrolled = await page.evaluate(() => window.scrollY);
    await page.evaluate(() =>
      document.body.append(Object.assign(document.createElement('div'), { style: 'height: 10px' })),
    );
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    await expect(step2).not.toBeInViewport();
  });
});

test.describe('at 1440x900', () => {
  test.use({ viewport: DESKTOP });

  test('the desktop keeps its columns and its one-row top bar, and Escape ends the tour without a beacon', async ({
    subscribedPage: page,
  }) => {
    await blockThirdParties(page);
    await page.reload();
    await expect(page.getByRole('tablist', { name: 'Dashboard sections' })).toBeHidden();
    await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden();
    for (const selector of ['chart-area', 'watchlist-alerts', 'alert-log', 'chat', 'prompt-catalog', 'files']) {
      await expect(page.locator(`[data-tour="${selector}"]`)).toBeVisible();
    }
    await expectNoSidewaysScroll(page, '/dashboard at 1440');
    // The chat is the wider part of the AI section, its input one compact row, and the Prompt
    // Catalog no taller than its form.
    const chat = (await page.locator('[data-tour="chat"]').boundingBox())!;
    const catalog = (await page.locator('[data-tour="prompt-catalog"]').boundingBox())!;
    expect(chat.width).toBeGreaterThan(catalog.width * 1.5);
    expect(catalog.height).toBeLessThanOrEqual(500);
    expect((await page.locator('#chat-input').boundingBox())!.height).toBeLessThan(50);

    await page.getByRole('button', { name: 'Take Tour' }).click();
    const tooltip = page.getByRole('alertdialog');
    await tooltip.getByRole('button', { name: 'Next (1 of 9)' }).click();
    await expect(tooltip.getByText('Platform Switcher', { exact: true })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(tooltip).toHaveCount(0);
    await page.waitForTimeout(500);
    await expect(page.getByTestId('button-beacon')).toHaveCount(0);
    await expect(page.getByTestId('overlay')).toHaveCount(0);
    // It starts again from step 1.
    await page.getByRole('button', { name: 'Take Tour' }).click();
    await expect(tooltip.getByText('Chart Analysis Hub', { exact: true })).toBeVisible();
  });
});
