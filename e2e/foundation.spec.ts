// Foundation journeys: the marketing pages, the not-found page, and the dashboard guard.
import { expect, test } from '@playwright/test';

const marketingPages = [
  { path: '/ai-trading-intelligence', heading: 'Know the odds before you place the trade', cta: 'Get started' },
  {
    path: '/crypto-analytics-ai',
    heading: 'Crypto markets never sleep. Neither do your alerts.',
    cta: 'Start with crypto',
  },
  {
    path: '/futures-micro-futures-ai',
    heading: 'Sharper decisions for futures and micro-futures traders',
    cta: 'Trade futures with AI',
  },
];

for (const page of marketingPages) {
  test(`marketing page ${page.path} renders its heading, navigation and call to action`, async ({ page: browser }) => {
    await browser.goto(page.path);
    await expect(browser.getByRole('heading', { level: 1 })).toHaveText(page.heading);
    const nav = browser.getByRole('navigation', { name: 'Main' });
    for (const path of marketingPages.map((entry) => entry.path)) {
      await expect(nav.locator(`a[href="${path}"]`)).toBeVisible();
    }
    const cta = browser.getByRole('link', { name: page.cta }).first();
    await expect(cta).toHaveAttribute('href', '/');
    await cta.click();
    await expect(browser).toHaveURL(/\/$/);
  });
}

test('the document uses the dark theme', async ({ page }) => {
  await page.goto('/crypto-analytics-ai');
  await expect(page.locator('html')).toHaveClass(/dark/);
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).not.toBe('rgb(255, 255, 255)');
});

test('an unknown route shows the not-found page', async ({ page }) => {
  const response = await page.goto('/no/such/page');
  expect(response?.status()).toBe(200);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByText('/no/such/page')).toBeVisible();
  await page.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('/dashboard without a user ends on / without keeping /dashboard in history', async ({ page }) => {
  await page.goto('/crypto-analytics-ai');
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/$/);
  await page.goBack();
  await expect(page).toHaveURL(/\/crypto-analytics-ai$/);
});

test('an unknown API path answers JSON 404, not the app shell', async ({ request }) => {
  const response = await request.get('/api/does-not-exist');
  expect(response.status()).toBe(404);
  expect(await response.json()).toEqual({ error: 'Not found: GET /api/does-not-exist' });
});

test('responses carry the security headers and a strict CSP', async ({ request }) => {
  const response = await request.get('/');
  const csp = response.headers()['content-security-policy'];
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain('https://s3.tradingview.com');
  expect(csp).toContain('https://js.stripe.com');
  expect(csp).toContain("object-src 'none'");
  expect(response.headers()['x-content-type-options']).toBe('nosniff');
});

test('loading / and /dashboard logs no React Router HydrateFallback warning', async ({ page }) => {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('HydrateFallback')) warnings.push(`${message.type()}: ${message.text()}`);
  });
  for (const path of ['/', '/dashboard']) {
    await page.goto(path);
    await expect(page.getByRole('tab', { name: 'Login' })).toBeVisible();
  }
  expect(warnings).toEqual([]);
});
