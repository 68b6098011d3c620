// Billing journeys on the TEST MODE checkout: pay and land on the dashboard, a declined
// card, and an expired subscription sent back to the plans.
import { buyPlan, createVerifiedUser, expect, test } from './fixtures.ts';

test('verified user buys 3-Day Access with 4242 and lands on the dashboard after 3 s', async ({ page }) => {
  await createVerifiedUser(page);
  await buyPlan(page, 'three-day');
  await expect(page).toHaveURL(/\/success\?session_id=cs_test_/);
  await expect(page.getByRole('link', { name: 'Start Trading with AI' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to Home' })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 8_000 });
  await expect(page.getByTestId('subscription-status')).toHaveText(/^Active until /);
  await expect(page.getByRole('link', { name: 'Dashboard' })).toHaveCount(0);
  await page.goto('/crypto-analytics-ai');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' })).toBeVisible();
});

test('a declined card shows a clear error and grants nothing', async ({ page }) => {
  await createVerifiedUser(page);
  await page.goto('/');
  await page.getByTestId('plan-monthly').getByRole('button', { name: 'Subscribe' }).click();
  await page.getByLabel('Card number').fill('4000 0000 0000 0002');
  await page.getByLabel('Expiry (MM/YY)').fill('12/39');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page.getByRole('alert')).toContainText('Your card was declined.');
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId('subscription-status')).toHaveText('No subscription');
});

test('an expired subscription sends the trader from /dashboard to the plans', async ({ page }) => {
  await createVerifiedUser(page);
  await buyPlan(page, 'live-test');
  // Two days later the one-day Live Test has run out.
  await page.clock.install({ time: Date.now() + 2 * 86_400_000 });
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'Choose your plan' })).toBeVisible();
});
