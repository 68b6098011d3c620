// Session journeys: a dashboard whose session is ended from elsewhere (another device signs
// out every other session) leaves the dashboard at once, through the tab's live connection the
// server ends, instead of showing a subscriber's screen until the next 5-minute auth refresh.
import { buyPlan, createVerifiedUser, expect, test } from './fixtures.ts';

test('a session revoked from another device leaves the dashboard at once', async ({ page, browser, baseURL }) => {
  const { email, password } = await createVerifiedUser(page);
  await buyPlan(page, 'three-day');
  const streamOpened = page.waitForResponse(
    (response) => response.url().includes('/api/live') && response.status() === 200,
  );
  await page.goto('/dashboard');
  await expect(page.getByTestId('subscription-status')).toContainText('Active');
  await streamOpened;

  // The trader's phone: signs in, then signs out every other session (this browser's).
  const phone = await browser.newContext({ baseURL });
  try {
    const headers = { origin: new URL(baseURL!).origin };
    const signedIn = await phone.request.post('/api/auth/sign-in/email', { data: { email, password }, headers });
    expect(signedIn.ok()).toBe(true);
    const revoked = await phone.request.post('/api/auth/revoke-other-sessions', { data: {}, headers });
    expect(revoked.ok()).toBe(true);
  } finally {
    await phone.close();
  }

  // The stream ends with reason signed-out; the page re-reads /api/me and its guard leaves.
  await expect(page).toHaveURL(`${baseURL}/`, { timeout: 10_000 });
  await expect(page.getByRole('tab', { name: 'Create Account' })).toBeVisible();
});
