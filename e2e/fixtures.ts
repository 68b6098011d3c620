// Shared journey fixtures: unique users created through the real flows (register, the
// e-mailed verification link from the embedded outbox, the TEST MODE checkout), and
// `subscribedPage`, a page signed in with an active 3-Day Access plan (bought through the API
// calls the checkout makes), on /dashboard.
import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';

export { expect };

/** The guided tour's step titles in order: docs/SPEC.md's eight, then the alert rules (issue 16). */
export const TOUR_TITLES = [
  'Chart Analysis Hub',
  'Platform Switcher',
  'Professional Charting',
  'Watchlist Management',
  'Watchlist Alerts',
  'Market Alert Log',
  'AI Assistant',
  'Prompt Catalog & File Management',
  'Alert Rules',
];

/** Every route a visitor can open without signing in (the 404 page included). */
export const OPEN_ROUTES = [
  '/',
  '/ai-trading-intelligence',
  '/crypto-analytics-ai',
  '/futures-micro-futures-ai',
  '/forgot-password',
  '/reset-password',
  '/success',
  '/no-such-page',
];

let counter = 0;
export function uniqueEmail(prefix = 'trader'): string {
  counter += 1;
  return `${prefix}-${Date.now()}-${counter}-${Math.random().toString(36).slice(2, 7)}@example.com`;
}

function originOf(page: Page): string {
  return new URL(page.url() === 'about:blank' ? (process.env.E2E_BASE_URL ?? 'http://127.0.0.1:4173') : page.url())
    .origin;
}

/** The first link of the newest outbox e-mail to `to` with this subject. */
export async function linkFromOutbox(request: APIRequestContext, to: string, subject: string): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(async () => {
      const response = await request.get(`/api/test/outbox?to=${encodeURIComponent(to)}`);
      const { messages } = (await response.json()) as { messages: Array<{ subject: string; text: string }> };
      found = messages.find((message) => message.subject === subject)?.text.match(/https?:\/\/\S+/)?.[0];
      return found;
    })
    .toBeTruthy();
  return found!;
}

/** Registers and verifies a user through the API and the e-mailed link; the page ends signed in. */
export async function createVerifiedUser(
  page: Page,
  email = uniqueEmail(),
  password = 'trader-password',
  username = 'trader',
) {
  await page.goto('/ai-trading-intelligence');
  await registerUser(page.request, originOf(page), email, password, username);
  await page.goto(await linkFromOutbox(page.request, email, 'Confirm your e-mail address'));
  return { email, password, username };
}

/** Registers a user through the API (not verified: the e-mailed link is left in the outbox). */
export async function registerUser(
  request: APIRequestContext,
  origin: string,
  email: string,
  password = 'trader-password',
  username = 'trader',
) {
  const registered = await request.post('/api/auth/register', {
    data: { email, password, username },
    headers: { origin },
  });
  expect(registered.ok()).toBe(true);
}

/** Buys a plan on the TEST MODE checkout with a working card, through the page itself. */
export async function buyPlan(page: Page, planName: string) {
  await page.goto('/');
  await page.getByTestId(`plan-${planName}`).getByRole('button', { name: 'Subscribe' }).click();
  await expect(page.getByText('TEST MODE', { exact: false }).first()).toBeVisible();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry (MM/YY)').fill('12/39');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page.getByRole('heading', { name: 'Subscription Successful!' })).toBeVisible();
}

/**
 * Buys a plan for the page's signed-in user with the calls the pricing page and the TEST MODE
 * checkout make (create-checkout, then the checkout form's post with a working card), without
 * drawing those pages: the journeys through them are billing.spec.ts's.
 */
async function subscribe(page: Page, origin: string, priceId = 'three-day') {
  const headers = { origin };
  const me = (await (await page.request.get('/api/me')).json()) as { user: { id: string; email: string } | null };
  expect(me.user).not.toBeNull();
  const checkout = await page.request.post('/api/subscriptions/create-checkout', {
    data: { priceId, userId: me.user!.id, email: me.user!.email },
    headers,
  });
  expect(checkout.ok()).toBe(true);
  const { url } = (await checkout.json()) as { url: string };
  const paid = await page.request.post(url, {
    form: { card: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' },
    headers,
    maxRedirects: 0,
  });
  expect(paid.status()).toBe(303);
}

export const test = base.extend<{ subscribedPage: Page }>({
  subscribedPage: async ({ page, baseURL }, use) => {
    const origin = new URL(baseURL!).origin;
    const email = uniqueEmail();
    await registerUser(page.request, origin, email);
    // The e-mailed link is followed by the page's own request context, whose cookies are the
    // page's: it signs the page in without drawing the landing page the link ends on (the
    // journey through the browser is accounts.spec.ts's). Two page loads fewer a journey.
    const verified = await page.request.get(await linkFromOutbox(page.request, email, 'Confirm your e-mail address'));
    expect(verified.ok()).toBe(true);
    await subscribe(page, origin, 'three-day');
    await page.goto('/dashboard');
    await expect(page.getByTestId('subscription-status')).toContainText('Active');
    await use(page);
  },
});
