// The real e-mail path: with SMTP_URL set, sign-up sends the verification e-mail over SMTP
// (to a local SMTP server here) instead of only storing it in the outbox.
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser } from '../testing/http.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

describe('SMTP delivery', () => {
  const received: Received[] = [];
  let server: SMTPServer;
  let test: TestApp;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    test = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Desk <desk@watos.test>' });
  });

  afterAll(async () => {
    await test?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the verification e-mail as text and HTML with the link', async () => {
    const browser = new Browser(test.app, test.config.publicUrl);
    const response = await browser.post('/api/auth/register', {
      email: 'smtp@example.com',
      password: 'secret-password',
      username: 'smtp',
    });
    expect(response.statusCode).toBe(200);
    // Sign-up only queues the message; the worker sends it right after (mail/queue.ts).
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    const [mail] = received;
    expect(mail!.from).toBe('desk@watos.test');
    expect(mail!.to).toEqual(['smtp@example.com']);
    expect(mail!.raw).toContain('Subject: Confirm your e-mail address');
    expect(mail!.raw).toContain('text/plain');
    expect(mail!.raw).toContain('text/html');
    expect(mail!.raw.replace(/=\r?\n/g, '')).toContain('/api/auth/verify-email?token=3D');
  });
});
