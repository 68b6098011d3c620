// A user's text in a mail's subject (a rule's name) cannot forge anything (issue 33, item 4):
// the embedded outbox prints it escaped on its own line, and over SMTP a real, independent
// server (Python's aiosmtpd) receives no header the app did not write. The rule's name is
// written straight into the table, as a row stored before names were checked would be.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import { alertRules } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { aiosmtpdAvailable, startAiosmtpd, type ReceivedMail, type SmtpPeer } from '../testing/aiosmtpd.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { payOnTestCheckout } from '../testing/users.ts';
import { storeFlatMinutes } from '../testing/candles.ts';
import type { AlertRule } from '../../shared/schemas/alertRules.ts';
import { createMailer, type MailLog } from './mailer.ts';

const HOSTILE_NAME = 'n\r\nBcc: evil@x.test\r\nX-Injected: yes\r\n\r\n[outbox] http://evil.test/reset';
const quietLog: MailLog = { info: () => undefined, warn: () => undefined };

describe('the embedded outbox', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase('pglite');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('prints a subject holding CR, LF and escapes on its own line, so no [outbox] line is forged', async () => {
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: '.data-test/unit', LOG_LEVEL: 'silent' });
    const mailer = await createMailer(config, database, quietLog, { deliver: false });
    const printed: string[] = [];
    const print = vi.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
    try {
      await mailer.send({
        to: 'trader@example.com',
        subject: `Alert: ${HOSTILE_NAME}\u2028\u001b[1A\u001b[2K — AAPL`,
        text: 'Open the dashboard: http://127.0.0.1:3000/dashboard',
        html: '',
      });
    } finally {
      print.mockRestore();
    }
    const lines = printed.join('\n').split('\n').filter(Boolean);
    expect(lines).toEqual([
      '[outbox] To: trader@example.com',
      '[outbox] Subject: Alert: n\\u{D}\\u{A}Bcc: evil@x.test\\u{D}\\u{A}X-Injected: yes\\u{D}\\u{A}\\u{D}\\u{A}[outbox] http://evil.test/reset\\u{2028}\\u{1B}[1A\\u{1B}[2K — AAPL',
      '[outbox] http://127.0.0.1:3000/dashboard',
    ]);
  });
});

describe.skipIf(!aiosmtpdAvailable())('SMTP delivery to aiosmtpd (needs python3-aiosmtpd)', () => {
  let peer: SmtpPeer;
  let test: TestApp;

  beforeAll(async () => {
    peer = await startAiosmtpd();
    test = await createTestApp({
      SMTP_URL: peer.url,
      MAIL_FROM: 'Desk <desk@watos.test>',
      TEST_HOOKS: 'true',
      DELIVERY_RETRY_BASE_SECONDS: '1',
    });
  });
  afterAll(async () => {
    await test?.close();
    await peer?.close();
  });

  async function nextMail(to: string, subject: RegExp): Promise<ReceivedMail> {
    let found: ReceivedMail | undefined;
    await expect
      .poll(
        () =>
          (found = peer.received.find(
            (mail) =>
              mail.to.includes(to) && mail.headers.some(([name, value]) => name === 'Subject' && subject.test(value)),
          )),
        { timeout: 20_000, interval: 100 },
      )
      .toBeDefined();
    return found!;
  }

  it('sends a rule firing whose stored name holds a Bcc header: no header is added, the subject stays one header', async () => {
    const email = 'smtp-rule@example.com';
    const browser = new Browser(test.app, test.config.publicUrl);
    const registered = await browser.post('/api/auth/register', {
      email,
      password: 'secret-password',
      username: 'smtp',
    });
    expect(registered.statusCode).toBe(200);
    const verification = await nextMail(email, /^Confirm your e-mail address$/);
    const link = new URL(verification.text.match(/https?:\/\/\S+/)![0]);
    await browser.get(`${link.pathname}${link.search}`);
    const userId = jsonBody<{ user: { id: string } }>(await browser.get('/api/me')).user.id;
    expect((await payOnTestCheckout(browser, userId, 'three-day')).response.statusCode).toBe(303);

    await storeFlatMinutes(test.database.db, 'AAPL', 100);
    const created = await browser.post('/api/alert-rules', {
      name: 'Breakout',
      symbol: 'AAPL',
      timeframe: '5m',
      condition: { kind: 'price_cross', direction: 'above', level: 102 },
      channels: ['email'],
    });
    expect(created.statusCode).toBe(201);
    const rule = jsonBody<AlertRule>(created);
    await test.database.db.update(alertRules).set({ name: HOSTILE_NAME }).where(eq(alertRules.id, rule.id));
    const fired = jsonBody<{ fired: number }>(
      await browser.post('/api/test/rules/price', { symbol: 'AAPL', price: 105 }),
    );
    expect(fired.fired).toBe(1);

    const alert = await nextMail(email, /^Alert: /);
    expect(alert.to).toEqual([email]);
    const names = alert.headers.map(([name]) => name.toLowerCase());
    expect(names).not.toContain('bcc');
    expect(names).not.toContain('x-injected');
    expect(names.filter((name) => name === 'subject')).toHaveLength(1);
    const subject = alert.headers.find(([name]) => name === 'Subject')![1];
    expect(subject).not.toMatch(/[\r\n]/);
    expect(subject).toMatch(
      /^Alert: n\s*Bcc: evil@x\.test\s*X-Injected: yes\s*\[outbox\] http:\/\/evil\.test\/reset — AAPL$/,
    );
    // On the wire: no header line of the message's own starts with Bcc or X-Injected, and the
    // body begins only after the app's own headers.
    const head = alert.raw.slice(0, alert.raw.indexOf('\r\n\r\n'));
    expect(head).not.toMatch(/^(bcc|x-injected):/im);
    expect(head).toMatch(/^Subject: /m);
    expect(peer.received.every((mail) => !mail.to.includes('evil@x.test'))).toBe(true);
  });
});
