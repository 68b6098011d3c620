// Accounts on the real app and database: registration rules, verification, login, brute
// force, password reset (single-use, no enumeration, sessions revoked), sign-out.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { profiles, user } from '../db/schema.ts';
import { latestOutboxMessages } from '../mail/mailer.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';

let test: TestApp;
let browser: Browser;

beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});
beforeEach(async () => {
  await test.database.truncateAll();
  browser = new Browser(test.app, test.config.publicUrl);
});

async function linkFromLatestMail(to: string, subject: string): Promise<string> {
  const [message] = await latestOutboxMessages(test.database.db, to);
  expect(message?.subject).toBe(subject);
  const link = message!.text.match(/https?:\/\/\S+/)?.[0];
  expect(link).toBeDefined();
  return link!;
}

/** Follows an e-mailed link the way a browser does (the server answers with a redirect). */
async function openLink(link: string) {
  const url = new URL(link);
  return browser.get(`${url.pathname}${url.search}`);
}

async function registerVerified(email: string, password = 'correct-horse', username = 'trader') {
  const response = await browser.post('/api/auth/register', { email, password, username });
  expect(response.statusCode).toBe(200);
  const verify = await openLink(await linkFromLatestMail(email, 'Confirm your e-mail address'));
  expect(verify.statusCode).toBe(302);
  return jsonBody<unknown>(response);
}

describe('POST /api/auth/register', () => {
  it.each([
    [{ email: 'a@example.com', password: 'secret1' }, 'username: Username is required'],
    [{ email: 'a@example.com', password: 'secret1', username: '   ' }, 'username: Username is required'],
    [{ email: 'not-an-email', password: 'secret1', username: 'u' }, 'email: Please enter a valid email address'],
    [
      { email: 'a@example.com', password: '12345', username: 'u' },
      'password: Password must be at least 6 characters long',
    ],
    [{ password: 'secret1', username: 'u' }, 'email: Email is required'],
  ])('rejects %o with 400 and a clear message', async (body, message) => {
    const response = await browser.post('/api/auth/register', body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: message });
    expect(await test.database.db.select().from(user)).toEqual([]);
  });

  it('creates the user with the username on the user and in profiles, and sends a verification e-mail', async () => {
    const response = await browser.post('/api/auth/register', {
      email: 'New@Example.com',
      password: 'secret1',
      username: ' alice ',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      success: true,
      error: null,
      session: null,
      user: { email: 'new@example.com', username: 'alice' },
    });

    const [stored] = await test.database.db.select().from(user).where(eq(user.email, 'new@example.com'));
    expect(stored!.username).toBe('alice');
    expect(stored!.emailVerified).toBe(false);
    const [profile] = await test.database.db.select().from(profiles).where(eq(profiles.id, stored!.id));
    expect(profile!.username).toBe('alice');

    const [mail] = await latestOutboxMessages(test.database.db, 'new@example.com');
    expect(mail!.subject).toBe('Confirm your e-mail address');
    expect(mail!.text).toContain('Hi alice,');
    expect(mail!.html).toContain('Confirm e-mail');
    expect(mail!.text).toMatch(/\/api\/auth\/verify-email\?token=/);
  });

  it('answers a duplicate e-mail exactly like a new one, creates nothing, and tells the owner', async () => {
    await registerVerified('taken@example.com', 'original-password');
    const again = await browser.post('/api/auth/register', {
      email: 'taken@example.com',
      password: 'other-password',
      username: 'mallory',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ success: true, error: null, session: null });

    const users = await test.database.db.select().from(user).where(eq(user.email, 'taken@example.com'));
    expect(users).toHaveLength(1);
    expect(users[0]!.username).toBe('trader');
    const [mail] = await latestOutboxMessages(test.database.db, 'taken@example.com');
    expect(mail!.subject).toBe('You already have an account');

    browser.forget();
    const oldPassword = await browser.post('/api/auth/sign-in/email', {
      email: 'taken@example.com',
      password: 'original-password',
    });
    expect(oldPassword.statusCode).toBe(200);
  });
});

describe('verification and login', () => {
  it('refuses login before verification, then verification signs the user in', async () => {
    await browser.post('/api/auth/register', { email: 'v@example.com', password: 'secret1', username: 'vic' });
    const early = await browser.post('/api/auth/sign-in/email', { email: 'v@example.com', password: 'secret1' });
    expect(early.statusCode).toBe(403);
    // The refused login e-mailed a new link (Better Auth's sendOnSignIn), and says so.
    expect(jsonBody<{ error: string; code: string }>(early)).toMatchObject({
      code: 'EMAIL_NOT_VERIFIED',
      error: 'Your e-mail is not verified yet. We sent a new verification link to v@example.com.',
    });
    const mails = await latestOutboxMessages(test.database.db, 'v@example.com');
    expect(mails.filter((mail) => mail.subject === 'Confirm your e-mail address')).toHaveLength(2);

    const verify = await openLink(await linkFromLatestMail('v@example.com', 'Confirm your e-mail address'));
    expect(verify.statusCode).toBe(302);
    expect(verify.headers.location).toBe('/');
    const cookie = String(verify.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);

    const me = await browser.get('/api/me');
    expect(me.json()).toEqual({
      user: { id: expect.any(String), email: 'v@example.com', username: 'vic' },
      subscription: null,
    });
  });

  it("shows the provider's message for a wrong password and rotates the session on login", async () => {
    await registerVerified('w@example.com', 'right-password');
    const firstCookie = browser.cookieHeader;
    browser.forget();
    const wrong = await browser.post('/api/auth/sign-in/email', { email: 'w@example.com', password: 'wrong-password' });
    expect(wrong.statusCode).toBe(401);
    // docs/SPEC.md's `error` for our web app, and Better Auth's own `message` and `code` for its client.
    expect(wrong.json()).toEqual({
      error: 'Invalid email or password',
      message: 'Invalid email or password',
      code: 'INVALID_EMAIL_OR_PASSWORD',
    });

    const right = await browser.post('/api/auth/sign-in/email', { email: 'w@example.com', password: 'right-password' });
    expect(right.statusCode).toBe(200);
    expect(browser.cookieHeader).not.toBe(firstCookie);
  });

  it('answers /api/me with no user when signed out, and sign-out revokes the session', async () => {
    expect((await browser.get('/api/me')).json()).toEqual({ user: null, subscription: null });
    await registerVerified('s@example.com');
    const stolenCookie = browser.cookieHeader;
    expect(jsonBody<{ user: { email: string } }>(await browser.get('/api/me')).user.email).toBe('s@example.com');
    expect((await browser.post('/api/auth/sign-out', {})).statusCode).toBe(200);
    const replay = await test.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: stolenCookie } });
    expect(replay.json()).toEqual({ user: null, subscription: null });
  });

  it('answers brute-force logins on one account with 429 and a clear message', async () => {
    await registerVerified('bf@example.com', 'right-password');
    browser.forget();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      const response = await browser.post('/api/auth/sign-in/email', {
        email: 'bf@example.com',
        password: `guess-${attempt}`,
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        expect(jsonBody<{ error: string }>(response).error).toMatch(
          /^Too many attempts\. Please wait \d+ (seconds|minutes) and try again\.$/,
        );
        expect(response.headers['retry-after']).toBeDefined();
      }
    }
    // The registration and verification above used one attempt of this e-mail's budget.
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(8);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('password reset', () => {
  async function requestReset(email: string) {
    return browser.post('/api/auth/request-password-reset', {
      email,
      redirectTo: `${test.config.publicUrl}/reset-password`,
    });
  }

  it('answers unknown and known e-mails the same way (no enumeration)', async () => {
    await registerVerified('known@example.com');
    browser.forget();
    const known = await requestReset('known@example.com');
    const unknown = await requestReset('nobody@example.com');
    expect(known.statusCode).toBe(unknown.statusCode);
    expect(known.json()).toEqual(unknown.json());
    expect(await latestOutboxMessages(test.database.db, 'nobody@example.com')).toEqual([]);
    const [mail] = await latestOutboxMessages(test.database.db, 'known@example.com');
    expect(mail!.subject).toBe('Reset your password');
  });

  it('resets with a single-use token, revokes old sessions and signs in afresh', async () => {
    await registerVerified('r@example.com', 'old-password');
    const oldSession = browser.cookieHeader;
    await requestReset('r@example.com');
    const link = await linkFromLatestMail('r@example.com', 'Reset your password');
    const redirect = await openLink(link);
    expect(redirect.statusCode).toBe(302);
    const token = new URL(redirect.headers.location as string, test.config.publicUrl).searchParams.get('token')!;
    expect(token).toBeTruthy();
    expect((await browser.get(`/api/account/reset-token?token=${token}`)).json()).toEqual({ valid: true });

    const tooShort = await browser.post('/api/account/reset-password', { newPassword: '12345', token });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json()).toEqual({ error: 'newPassword: Password must be at least 6 characters long' });

    browser.forget();
    const reset = await browser.post('/api/account/reset-password', { newPassword: 'new-password', token });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ success: true });
    expect(jsonBody<{ user: { email: string } }>(await browser.get('/api/me')).user.email).toBe('r@example.com');

    const replay = await browser.post('/api/account/reset-password', { newPassword: 'third-password', token });
    expect(replay.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(replay).error).toBe(
      'This reset link is invalid or has expired. Please request a new one.',
    );
    expect((await browser.get(`/api/account/reset-token?token=${token}`)).json()).toEqual({ valid: false });

    const old = await test.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: oldSession } });
    expect(jsonBody<{ user: { email: string } | null }>(old).user).toBeNull();

    browser.forget();
    expect(
      (await browser.post('/api/auth/sign-in/email', { email: 'r@example.com', password: 'old-password' })).statusCode,
    ).toBe(401);
    expect(
      (await browser.post('/api/auth/sign-in/email', { email: 'r@example.com', password: 'new-password' })).statusCode,
    ).toBe(200);
  });

  it('lets a signed-in user set a new password without a token, and refuses an anonymous one', async () => {
    const anonymous = await browser.post('/api/account/reset-password', {
      newPassword: 'whatever1',
      currentPassword: 'whatever0',
    });
    expect(anonymous.statusCode).toBe(401);
    await registerVerified('p@example.com', 'first-password');
    // The current password is required (auth/passwords.test.ts covers the refusals).
    expect(
      (
        await browser.post('/api/account/reset-password', {
          newPassword: 'second-password',
          currentPassword: 'first-password',
        })
      ).statusCode,
    ).toBe(200);
    browser.forget();
    expect(
      (await browser.post('/api/auth/sign-in/email', { email: 'p@example.com', password: 'second-password' }))
        .statusCode,
    ).toBe(200);
  });
});
