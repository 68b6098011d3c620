// Password changes on the real app and database (issue 14, item 5): a signed-in change needs
// the current password; every change ends every other session and every outstanding reset
// link; the same rules hold on Better Auth's own /api/auth/change-password and
// /api/auth/reset-password; a reset of a not-yet-verified account answers what happened.
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { user, verification } from '../db/schema.ts';
import { latestOutboxMessages } from '../mail/mailer.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { signedInUser } from '../testing/users.ts';

let test: TestApp;

beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});
beforeEach(async () => {
  await test.database.truncateAll();
});

const newBrowser = () => new Browser(test.app, test.config.publicUrl);

/** A second device of the same trader: a separate sign-in, so a separate session. */
async function secondDevice(email: string, password: string) {
  const browser = newBrowser();
  const signIn = await browser.post('/api/auth/sign-in/email', { email, password });
  expect(signIn.statusCode).toBe(200);
  return browser;
}

async function signedInEmail(browser: Browser): Promise<string | null> {
  const me = jsonBody<{ user: { email: string } | null }>(await browser.get('/api/me'));
  return me.user?.email ?? null;
}

async function signInStatus(email: string, password: string) {
  return (await newBrowser().post('/api/auth/sign-in/email', { email, password })).statusCode;
}

/** Asks for a reset link and returns its token (the e-mailed link is /api/auth/reset-password/<token>?...). */
async function resetToken(email: string): Promise<string> {
  const ask = await newBrowser().post('/api/auth/request-password-reset', {
    email,
    redirectTo: `${test.config.publicUrl}/reset-password`,
  });
  expect(ask.statusCode).toBe(200);
  const [mail] = await latestOutboxMessages(test.database.db, email);
  expect(mail!.subject).toBe('Reset your password');
  const link = new URL(mail!.text.match(/https?:\/\/\S+/)![0]);
  const token = link.pathname.split('/').at(-1)!;
  expect(token.length).toBeGreaterThan(10);
  return token;
}

async function outstandingResetTokens(userId: string) {
  return test.database.db
    .select({ identifier: verification.identifier })
    .from(verification)
    .where(and(like(verification.identifier, 'reset-password:%'), eq(verification.value, userId)));
}

describe('signed-in password change (/api/account/reset-password without a token)', () => {
  it('requires the current password: missing is 400, wrong is 403, and the password stays', async () => {
    const { browser } = await signedInUser(test, 'cur@example.com', 'first-password');

    const missing = await browser.post('/api/account/reset-password', { newPassword: 'second-password' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: 'Please enter your current password to choose a new one.' });

    const wrong = await browser.post('/api/account/reset-password', {
      newPassword: 'second-password',
      currentPassword: 'not-my-password',
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toEqual({ error: 'Your current password is incorrect.' });

    const tooLong = await browser.post('/api/account/reset-password', {
      newPassword: 'second-password',
      currentPassword: 'x'.repeat(129),
    });
    expect(tooLong.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(tooLong).error).toMatch(/^currentPassword: /);

    expect(await signInStatus('cur@example.com', 'second-password')).toBe(401);
    expect(await signInStatus('cur@example.com', 'first-password')).toBe(200);
    expect(await signedInEmail(browser)).toBe('cur@example.com');
  });

  it('keeps this session, ends every other one and every outstanding reset link', async () => {
    const { browser, userId } = await signedInUser(test, 'keep@example.com', 'first-password');
    const other = await secondDevice('keep@example.com', 'first-password');
    const token = await resetToken('keep@example.com');
    const copiedCookie = browser.cookieHeader;

    const change = await browser.post('/api/account/reset-password', {
      newPassword: 'second-password',
      currentPassword: 'first-password',
    });
    expect(change.statusCode).toBe(200);
    expect(change.json()).toEqual({ success: true });

    expect(await signedInEmail(browser)).toBe('keep@example.com');
    expect(await signedInEmail(other)).toBeNull();
    // The caller continues on a fresh session: a copy of its old cookie is worth nothing.
    expect(browser.cookieHeader).not.toBe(copiedCookie);
    const replay = await test.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: copiedCookie } });
    expect(jsonBody<{ user: { email: string } | null }>(replay).user).toBeNull();
    expect(await outstandingResetTokens(userId)).toEqual([]);
    const stale = await newBrowser().post('/api/account/reset-password', { newPassword: 'attacker-password', token });
    expect(stale.statusCode).toBe(400);
    expect(await signInStatus('keep@example.com', 'attacker-password')).toBe(401);
    expect(await signInStatus('keep@example.com', 'second-password')).toBe(200);
  });
});

describe('guessing the current password with a session (a stolen cookie)', () => {
  it('gets 10 wrong guesses in 15 minutes over both change paths, then 429 even for the right one', async () => {
    const { browser } = await signedInUser(test, 'guess@example.com', 'first-password');
    for (let guess = 0; guess < 5; guess += 1) {
      const ours = await browser.post('/api/account/reset-password', {
        newPassword: 'second-password',
        currentPassword: `guess-${guess}-password`,
      });
      expect(ours.statusCode).toBe(403);
      const theirs = await browser.post('/api/auth/change-password', {
        newPassword: 'second-password',
        currentPassword: `other-${guess}-password`,
      });
      expect(theirs.statusCode).toBeGreaterThanOrEqual(400);
      expect(theirs.statusCode).toBeLessThan(429);
    }
    const right = await browser.post('/api/auth/change-password', {
      newPassword: 'second-password',
      currentPassword: 'first-password',
    });
    expect(right.statusCode).toBe(429);
    expect(jsonBody<{ message: string }>(right).message).toMatch(
      /^Too many attempts\. Please wait \d+ minutes and try again\.$/,
    );
    const ours = await browser.post('/api/account/reset-password', {
      newPassword: 'second-password',
      currentPassword: 'first-password',
    });
    expect(ours.statusCode).toBe(429);
    expect(await signInStatus('guess@example.com', 'second-password')).toBe(401);

    // The owner, signing in afresh on another device, is not locked out by the stolen cookie.
    const owner = await secondDevice('guess@example.com', 'first-password');
    const change = await owner.post('/api/account/reset-password', {
      newPassword: 'second-password',
      currentPassword: 'first-password',
    });
    expect(change.statusCode).toBe(200);
    expect(await signedInEmail(browser)).toBeNull();
  });
});

describe('reset with an e-mailed token', () => {
  it('ends every other outstanding reset link of the account (an older link no longer works)', async () => {
    const { userId } = await signedInUser(test, 'two@example.com', 'first-password');
    const older = await resetToken('two@example.com');
    const newer = await resetToken('two@example.com');
    // Another account's link is not touched.
    await signedInUser(test, 'bystander@example.com', 'bystander-password');
    const bystanders = await resetToken('bystander@example.com');

    const reset = await newBrowser().post('/api/account/reset-password', {
      newPassword: 'second-password',
      token: newer,
    });
    expect(reset.statusCode).toBe(200);
    expect(await outstandingResetTokens(userId)).toEqual([]);

    const stale = await newBrowser().post('/api/account/reset-password', {
      newPassword: 'third-password',
      token: older,
    });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toEqual({ error: 'This reset link is invalid or has expired. Please request a new one.' });
    expect(await signInStatus('two@example.com', 'second-password')).toBe(200);
    expect((await newBrowser().get(`/api/account/reset-token?token=${bystanders}`)).json()).toEqual({ valid: true });
  });

  it('resets a not-yet-verified account, verifies its e-mail (the link proves the mailbox) and signs in', async () => {
    const browser = newBrowser();
    const registered = await browser.post('/api/auth/register', {
      email: 'unverified@example.com',
      password: 'first-password',
      username: 'unv',
    });
    expect(registered.statusCode).toBe(200);
    const token = await resetToken('unverified@example.com');

    const reset = await browser.post('/api/account/reset-password', { newPassword: 'second-password', token });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ success: true });
    expect(await signedInEmail(browser)).toBe('unverified@example.com');
    const [stored] = await test.database.db
      .select({ emailVerified: user.emailVerified })
      .from(user)
      .where(eq(user.email, 'unverified@example.com'));
    expect(stored!.emailVerified).toBe(true);
    expect(await signInStatus('unverified@example.com', 'first-password')).toBe(401);
    expect(await signInStatus('unverified@example.com', 'second-password')).toBe(200);
  });
});

describe("Better Auth's own endpoints follow the same rules", () => {
  it('/api/auth/change-password ends other sessions and reset links even without revokeOtherSessions', async () => {
    const { browser, userId } = await signedInUser(test, 'ba@example.com', 'first-password');
    const other = await secondDevice('ba@example.com', 'first-password');
    const token = await resetToken('ba@example.com');

    const change = await browser.post('/api/auth/change-password', {
      currentPassword: 'first-password',
      newPassword: 'second-password',
    });
    expect(change.statusCode).toBe(200);

    expect(await signedInEmail(browser)).toBe('ba@example.com');
    expect(await signedInEmail(other)).toBeNull();
    expect(await outstandingResetTokens(userId)).toEqual([]);
    expect(
      (await newBrowser().post('/api/auth/reset-password', { newPassword: 'attacker-password', token })).statusCode,
    ).toBe(400);
    expect(await signInStatus('ba@example.com', 'second-password')).toBe(200);
  });

  it('/api/auth/change-password with a wrong current password changes nothing', async () => {
    const { browser, userId } = await signedInUser(test, 'bawrong@example.com', 'first-password');
    const other = await secondDevice('bawrong@example.com', 'first-password');
    await resetToken('bawrong@example.com');
    const change = await browser.post('/api/auth/change-password', {
      currentPassword: 'guess',
      newPassword: 'second-password',
    });
    expect(change.statusCode).toBe(400);
    expect(await signedInEmail(other)).toBe('bawrong@example.com');
    expect(await outstandingResetTokens(userId)).toHaveLength(1);
  });

  it('/api/auth/reset-password ends every other outstanding reset link', async () => {
    const { userId } = await signedInUser(test, 'bareset@example.com', 'first-password');
    const other = await secondDevice('bareset@example.com', 'first-password');
    const older = await resetToken('bareset@example.com');
    const newer = await resetToken('bareset@example.com');

    const reset = await newBrowser().post('/api/auth/reset-password', { newPassword: 'second-password', token: newer });
    expect(reset.statusCode).toBe(200);
    expect(await signedInEmail(other)).toBeNull();
    expect(await outstandingResetTokens(userId)).toEqual([]);
    expect(
      (await newBrowser().post('/api/auth/reset-password', { newPassword: 'third-password', token: older })).statusCode,
    ).toBe(400);
    expect(await signInStatus('bareset@example.com', 'second-password')).toBe(200);
  });
});
