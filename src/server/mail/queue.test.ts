// The durable mail queue against a real SMTP server (smtp-server) that the tests stop and
// start: a sign-up while SMTP is down still answers 200, the message waits in the queue with
// the error recorded, and it is delivered exactly once when SMTP is back. Also the backoff
// schedule, the end of the retry window, and two workers on one database. Runs on PGlite and,
// when TEST_DATABASE_URL is set, on PostgreSQL.
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { Browser } from '../testing/http.ts';
import { freePort } from '../testing/ports.ts';
import { waitFor } from '../testing/waitFor.ts';
import { createMailer, latestOutboxMessages, mailRetryPolicy, type MailLog, type Mailer } from './mailer.ts';
import { openMailQueue, retryDelaySeconds, type MailMessage, type MailRetryPolicy } from './queue.ts';

interface Received {
  to: string[];
  raw: string;
  at: number;
}

/** A real SMTP server on a fixed port that can be stopped and started again. */
class TestSmtp {
  readonly received: Received[] = [];
  /** Each delivery attempt that reached RCPT TO (accepted or not), as a time. */
  readonly attempts: number[] = [];
  /** How many more attempts to answer with a temporary failure (451). */
  refuse = 0;
  private server: SMTPServer | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (_address, _session, callback) => {
        this.attempts.push(Date.now());
        if (this.refuse > 0) {
          this.refuse -= 1;
          return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
        }
        callback();
      },
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          this.received.push({
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw,
            at: Date.now(),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  subjects(): string[] {
    return this.received.map((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1] ?? '');
  }
}

const fast: MailRetryPolicy = { baseDelaySeconds: 1, maxDelaySeconds: 2, retryWindowSeconds: 60, pollSeconds: 0.5 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quietLog = { info: () => undefined, warn: () => undefined };

describe('retry schedule', () => {
  it('doubles from the base delay and stops growing at the cap', () => {
    const policy = { ...fast, baseDelaySeconds: 30, maxDelaySeconds: 3600 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempts) => retryDelaySeconds(policy, attempts))).toEqual([
      30, 60, 120, 240, 480, 960, 1920, 3600, 3600,
    ]);
  });
});

describe('mail configuration', () => {
  const base = { NODE_ENV: 'test', DATA_DIR: '.data-test/unit' };

  it('defaults to 30 s, doubling to at most an hour, for 24 hours; empty values count as unset', () => {
    const config = loadConfig({
      ...base,
      MAIL_RETRY_HOURS: '',
      MAIL_RETRY_BASE_SECONDS: '',
      MAIL_RETRY_MAX_SECONDS: '',
    });
    expect(mailRetryPolicy(config)).toEqual({
      baseDelaySeconds: 30,
      maxDelaySeconds: 3600,
      retryWindowSeconds: 86_400,
      pollSeconds: 2,
    });
    expect(mailRetryPolicy(loadConfig({ ...base, MAIL_RETRY_HOURS: '0.5' })).retryWindowSeconds).toBe(1800);
  });

  it('refuses bad values, naming the variable', () => {
    expect(() => loadConfig({ ...base, MAIL_RETRY_HOURS: '0' })).toThrow(/MAIL_RETRY_HOURS/);
    expect(() => loadConfig({ ...base, MAIL_RETRY_BASE_SECONDS: '1.5' })).toThrow(/MAIL_RETRY_BASE_SECONDS/);
    expect(() => loadConfig({ ...base, MAIL_RETRY_MAX_SECONDS: 'soon' })).toThrow(/MAIL_RETRY_MAX_SECONDS/);
  });
});

const drivers: Array<'pglite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

describe.each(drivers)('mail queue on %s', (driver) => {
  let database: TestDatabase;
  let smtp: TestSmtp;
  let config: Config;
  const open: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    database = await openTestDatabase(driver);
    smtp = new TestSmtp(await freePort());
    config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: '.data-test/unit',
      LOG_LEVEL: 'silent',
      MARKET_DATA: 'demo',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Desk <desk@watos.test>',
      MAIL_RETRY_BASE_SECONDS: '1',
      MAIL_RETRY_MAX_SECONDS: '2',
    });
  });

  afterEach(async () => {
    while (open.length > 0) await open.pop()?.close();
    await smtp.stop();
    await database.truncateAll();
    await database.db.execute(sql.raw('truncate pgboss.job, pgboss.archive'));
    smtp.received.length = 0;
    smtp.attempts.length = 0;
    smtp.refuse = 0;
  });

  afterAll(async () => {
    await database?.close();
  });

  async function mailer(retry: MailRetryPolicy = fast, log: MailLog = quietLog): Promise<Mailer> {
    const created = await createMailer(config, database, log, { deliver: true, retry });
    open.push(created);
    return created;
  }

  it(
    'queues the verification e-mail while SMTP is down and delivers it once SMTP is back',
    { timeout: 60_000 },
    async () => {
      const app: App = await buildApp({ config, database, webRoot: null, logger: false });
      open.push(app);
      await app.ready();
      const queue = app.services.mailer.queue!;

      const browser = new Browser(app, config.publicUrl);
      const response = await browser.post('/api/auth/register', {
        email: 'down@example.com',
        password: 'secret-password',
        username: 'down',
      });
      expect(response.statusCode).toBe(200);

      const [waiting] = await waitFor(async () => {
        const entries = await queue.list();
        return entries.length === 1 && entries[0]!.attempts >= 1 && entries[0]!.lastError ? entries : null;
      }, 'a failed first attempt');
      expect(waiting).toMatchObject({
        state: 'pending',
        to: 'down@example.com',
        subject: 'Confirm your e-mail address',
      });
      expect(waiting!.lastError).toContain('ECONNREFUSED');
      expect(smtp.received).toEqual([]);

      await smtp.start();
      await waitFor(() => smtp.received.length === 1, 'the delivery after SMTP came back', 15_000);
      expect(smtp.received[0]!.to).toEqual(['down@example.com']);
      expect(smtp.received[0]!.raw.replace(/=\r?\n/g, '')).toContain('/api/auth/verify-email?token=3D');
      const [sent] = await waitFor(async () => {
        const entries = await queue.list();
        return entries[0]?.state === 'sent' ? entries : null;
      }, 'the job marked sent');
      expect(sent!.attempts).toBeGreaterThanOrEqual(2);
      expect(sent!.lastError).toBeNull();
      // The audit copy in `outbox` holds the headers, not the verification link.
      const [copy] = await latestOutboxMessages(database.db, 'down@example.com');
      expect(copy).toMatchObject({ subject: 'Confirm your e-mail address', text: '[sent over SMTP]' });

      // The queue keeps the headers of sent mail, not the live verification link.
      const stored = await database.db.execute<{ data: { message: Record<string, unknown> } }>(
        sql`select data from pgboss.job where id = ${sent!.id}`,
      );
      const [job] = (stored as { rows: Array<{ data: { message: Record<string, unknown> } }> }).rows;
      expect(Object.keys(job!.data.message).sort()).toEqual(['subject', 'to']);

      // Exactly once: a few more retry periods bring no second copy.
      await sleep(3000);
      expect(smtp.received).toHaveLength(1);
    },
  );

  it('backs off exponentially up to the cap between attempts', { timeout: 60_000 }, async () => {
    await smtp.start();
    smtp.refuse = 3;
    const { send, queue } = await mailer({ ...fast, baseDelaySeconds: 1, maxDelaySeconds: 2 });
    await send({ to: 'busy@example.com', subject: 'Backoff', text: 'x', html: '<p>x</p>' });
    await waitFor(() => smtp.received.length === 1, 'the delivery after three refusals', 30_000);
    expect(smtp.attempts).toHaveLength(4);
    const gaps = smtp.attempts.slice(1).map((at, index) => (at - smtp.attempts[index]!) / 1000);
    // 1 s, 2 s, then capped at 2 s (plus up to one poll interval each).
    expect(gaps[0]).toBeGreaterThanOrEqual(0.9);
    expect(gaps[1]).toBeGreaterThanOrEqual(1.9);
    expect(gaps[2]).toBeGreaterThanOrEqual(1.9);
    for (const gap of gaps) expect(gap).toBeLessThan(2 + 1.5);
    const [entry] = await waitFor(async () => {
      const entries = await queue!.list({ state: 'sent' });
      return entries.length === 1 ? entries : null;
    }, 'the job marked sent');
    expect(entry!.attempts).toBe(4);
  });

  it(
    'stops retrying when the retry window ends, marks the message failed, and mail-retry revives it',
    { timeout: 60_000 },
    async () => {
      const { send, queue } = await mailer({ ...fast, maxDelaySeconds: 1, retryWindowSeconds: 3 });
      await send({ to: 'late@example.com', subject: 'Expiring', text: 'x', html: '<p>x</p>' });
      const [failed] = await waitFor(
        async () => {
          const entries = await queue!.list({ state: 'failed' });
          return entries.length === 1 ? entries : null;
        },
        'the message marked failed',
        20_000,
      );
      expect(failed!.lastError).toMatch(
        /^Not sent within the retry window after \d+ attempt\(s\); last error: .*ECONNREFUSED/,
      );
      expect(failed!.attempts).toBeGreaterThanOrEqual(2);
      expect(await queue!.list({ state: 'pending' })).toEqual([]);

      // No further attempts once failed, even with the server back.
      await smtp.start();
      await sleep(2500);
      expect(smtp.attempts).toEqual([]);
      const [still] = await queue!.list();
      expect(still).toMatchObject({ state: 'failed', attempts: failed!.attempts });

      // The operator's retry gives it a fresh window and it goes out.
      expect(await queue!.retryNow(failed!.id)).toBe(true);
      await waitFor(() => smtp.received.length === 1, 'the delivery after mail-retry', 15_000);
      expect(await queue!.retryNow('00000000-0000-0000-0000-000000000000')).toBe(false);
    },
  );

  it(
    'sends a burst queued faster than it is sent without waiting a poll per message',
    { timeout: 60_000 },
    async () => {
      // One worker and a poll far beyond the test's wait: only the self-wake after each job can
      // send the burst in time (before it, each message after the first waited a full poll).
      const queue = await openMailQueue(database, { ...fast, pollSeconds: 600, concurrency: 1 }, quietLog, {
        supervise: true,
      });
      open.push(queue);
      const sent: string[] = [];
      await queue.work((message) => {
        sent.push(message.subject);
        return Promise.resolve();
      });
      const subjects = Array.from({ length: 8 }, (_, index) => `Burst ${index}`);
      await Promise.all(
        subjects.map((subject) => queue.enqueue({ to: 'burst@example.com', subject, text: 'x', html: '' })),
      );
      await waitFor(() => sent.length === subjects.length, 'every message of the burst sent', 20_000);
      expect([...sent].sort()).toEqual([...subjects].sort());
    },
  );

  it('hands several messages to the SMTP server at once, up to its concurrency', { timeout: 60_000 }, async () => {
    const queue = await openMailQueue(database, { ...fast, concurrency: 4 }, quietLog, { supervise: true });
    open.push(queue);
    // Each send waits until four are in flight together: only four parallel workers get past it.
    const inFlight: Array<() => void> = [];
    const sent: MailMessage[] = [];
    let most = 0;
    await queue.work(
      (message) =>
        new Promise<void>((resolve) => {
          inFlight.push(() => {
            sent.push(message);
            resolve();
          });
          most = Math.max(most, inFlight.length);
          if (inFlight.length === 4) for (const release of inFlight.splice(0)) release();
        }),
    );
    for (let index = 0; index < 4; index += 1)
      await queue.enqueue({ to: `parallel${index}@example.com`, subject: `Parallel ${index}`, text: 'x', html: '' });
    await waitFor(() => sent.length === 4, 'four messages sent together', 20_000);
    expect(most).toBe(4);
    expect(sent.map((message) => message.to).sort()).toEqual(
      [0, 1, 2, 3].map((index) => `parallel${index}@example.com`),
    );
  });

  it('delivers each message exactly once with two workers on one database', { timeout: 60_000 }, async () => {
    await smtp.start();
    const sentBy = [0, 0];
    const counting = (index: number) => ({
      ...quietLog,
      info: (_details: object, message: string) => void (message === 'e-mail sent' && (sentBy[index]! += 1)),
    });
    const first = await mailer(fast, counting(0));
    const second = await mailer(fast, counting(1));
    const subjects = Array.from({ length: 12 }, (_, index) => `Message ${index}`);
    await Promise.all(
      subjects.map((subject, index) =>
        (index % 2 ? first : second).send({ to: `many${index}@example.com`, subject, text: 'x', html: '<p>x</p>' }),
      ),
    );
    await waitFor(() => smtp.received.length >= subjects.length, 'every message delivered', 30_000);
    await sleep(2500);
    expect(smtp.subjects().sort()).toEqual([...subjects].sort());
    // Both workers took part (so "once" is not just one worker doing everything).
    expect(sentBy[0]! + sentBy[1]!).toBe(subjects.length);
    expect(Math.min(...sentBy)).toBeGreaterThan(0);
  });
});
