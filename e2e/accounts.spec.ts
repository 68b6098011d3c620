// Accounts journeys: sign-up with e-mail verification, logout and login (with a wrong
// password first), forgot/reset password, and the plan cards' log-in prompt.
import type { Page } from '@playwright/test';
import { expect, linkFromOutbox, registerUser, test, uniqueEmail } from './fixtures.ts';

/**
 * Opens the landing with its scripts held back (the prerendered page only, as a visitor on a slow
 * network sees it first); the returned function lets them load.
 */
async function openLandingBeforeScripts(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/*.js', async (route) => {
    await released;
    await route.continue();
  });
  // Not waiting for the load event: it waits for the held scripts.
  await page.goto('/', { waitUntil: 'domcontentloaded' });
  return release;
}

test('create account, verify by e-mail, see the plans; log out; wrong then right password', async ({ page }) => {
  const email = uniqueEmail('signup');
  await page.goto('/');
  await expect(page.getByText('Real-time market alerts')).toBeVisible();
  await expect(page.getByText('AI-powered trading assistant')).toBeVisible();
  await expect(page.getByText('Advanced chart analysis')).toBeVisible();

  await page.getByRole('tab', { name: 'Create Account' }).click();
  await expect(page.getByRole('link', { name: 'Forgot password?' })).toHaveCount(0);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('trader-password');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByRole('alert')).toHaveText('Username is required');
  await page.getByLabel('Username').fill('alice');
  await page.getByRole('button', { name: 'Create Account' }).click();

  await expect(page.getByRole('heading', { name: 'Check Your Email' })).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  await expect(page.getByText('Check your spam folder')).toBeVisible();

  await page.goto(await linkFromOutbox(page.request, email, 'Confirm your e-mail address'));
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'Choose your plan' })).toBeVisible();
  await expect(page.locator('[data-testid^="plan-"]')).toHaveCount(3);
  await expect(page.getByTestId('nav-user')).toHaveText('alice');
  await expect(page.getByTestId('subscription-status')).toHaveText('No subscription');
  // The tour shows the dashboard, which needs a plan: 'Take Tour' says so and points at the plans.
  await page.getByRole('button', { name: 'Take Tour' }).click();
  const notice = page.getByRole('alert').filter({ hasText: 'The guided tour walks through the dashboard' });
  await expect(notice).toContainText('Choose a plan below, then press Take Tour.');
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);

  await page.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page.getByRole('tab', { name: 'Login' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not-my-password');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');

  await page.getByLabel('Password').fill('trader-password');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Choose your plan' })).toBeVisible();
});

test('what a visitor types into the landing form before its script has run is kept by the hydration', async ({
  page,
}) => {
  const email = uniqueEmail('early');
  await registerUser(page.request, new URL(test.info().project.use.baseURL!).origin, email, 'trader-password', 'erin');
  // Hold the page's scripts until the prerendered form has been filled in.
  const release = await openLandingBeforeScripts(page);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('trader-password');
  // A click now, before the scripts: nothing may be sent (no page request with the form's fields).
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  release();
  // Hydrated: the page clicks Login again itself, and its own handler answers (an unverified
  // account, a new link sent).
  await expect(page.getByRole('alert')).toHaveText(
    `Your e-mail is not verified yet. We sent a new verification link to ${email}.`,
    { timeout: 30_000 },
  );
  await expect(page.getByLabel('Email')).toHaveValue(email);
  expect(new URL(page.url()).search).toBe('');
});

test('the Create Account tab clicked before the landing script has run opens once it has', async ({ page }) => {
  const release = await openLandingBeforeScripts(page);
  await page.getByRole('tab', { name: 'Create Account' }).click();
  await expect(page.getByLabel('Username')).toHaveCount(0);
  release();
  await expect(page.getByLabel('Username')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('tab', { name: 'Create Account' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('[data-early-click]')).toHaveCount(0);
});

test('logging in before verifying says a new verification link was sent, and that link signs in', async ({ page }) => {
  const email = uniqueEmail('unverified');
  await registerUser(page.request, new URL(test.info().project.use.baseURL!).origin, email, 'trader-password', 'carol');
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('trader-password');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(
    `Your e-mail is not verified yet. We sent a new verification link to ${email}.`,
  );

  const outbox = await page.request.get(`/api/test/outbox?to=${encodeURIComponent(email)}`);
  const { messages } = (await outbox.json()) as { messages: Array<{ subject: string }> };
  expect(messages.filter((message) => message.subject === 'Confirm your e-mail address')).toHaveLength(2);
  await page.goto(await linkFromOutbox(page.request, email, 'Confirm your e-mail address'));
  await expect(page.getByRole('heading', { name: 'Choose your plan' })).toBeVisible();
  await expect(page.getByTestId('nav-user')).toHaveText('carol');
});

test('a visitor clicking a plan is asked to log in first', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText('You should login first to subscribe')).toBeVisible();
  await page.getByTestId('plan-monthly').getByRole('button').click();
  await expect(page.getByRole('alert')).toHaveText('Please log in first to subscribe');
  await expect(page.getByTestId('plan-monthly')).toContainText('POPULAR');
});

test('forgot password: e-mailed link, short and mismatched passwords refused, then updated and redirected', async ({
  page,
}) => {
  const email = uniqueEmail('reset');
  await registerUser(page.request, new URL(test.info().project.use.baseURL!).origin, email, 'first-password', 'bob');
  await page.goto(await linkFromOutbox(page.request, email, 'Confirm your e-mail address'));
  await page.getByRole('button', { name: 'Sign Out' }).click();

  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(
    page.getByText('Password reset email sent! Check your inbox and follow the instructions.'),
  ).toBeVisible();
  await expect(page.getByLabel('Email')).toHaveCount(0);

  const resetLink = await linkFromOutbox(page.request, email, 'Reset your password');
  await page.goto(resetLink);
  await expect(page).toHaveURL(/\/reset-password\?token=/);
  await page.getByLabel('New password', { exact: true }).fill('short');
  await page.getByLabel('Confirm new password').fill('short');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('alert')).toHaveText('Password must be at least 6 characters long');

  await page.getByLabel('New password', { exact: true }).fill('second-password');
  await page.getByLabel('Confirm new password').fill('different-password');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('alert')).toHaveText('Passwords do not match');

  await page.getByLabel('Confirm new password').fill('second-password');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByText('Password updated successfully!')).toBeVisible();
  // Two seconds later it heads for /dashboard; without a plan the guard sends the user to the plans.
  await expect(page.getByRole('heading', { name: 'Choose your plan' })).toBeVisible({ timeout: 10_000 });

  await page.getByRole('button', { name: 'Sign Out' }).click();
  // Signed out once the server has answered (the button goes): only then is the link opened,
  // or the navigation could cancel the sign-out and the page would greet a signed-in user.
  await expect(page.getByRole('button', { name: 'Sign Out' })).toHaveCount(0);
  // The used link lands on the login form saying why, with a way to ask for a new one.
  await page.goto(resetLink);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('alert')).toContainText('This password reset link has expired or was already used.');
  await expect(page.getByRole('link', { name: 'Request a new link' })).toHaveAttribute('href', '/forgot-password');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('second-password');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Choose your plan' })).toBeVisible();
});

test('/reset-password without a token or session goes to /', async ({ page }) => {
  await page.goto('/reset-password');
  await expect(page).toHaveURL(/\/$/);
  await page.goto('/reset-password?token=forged-token');
  await expect(page).toHaveURL(/\/$/);
});
