// The rule delivery queue with real parts: pg-boss on a PGlite test database, webhooks to a
// local receiver (checked with the documented verification snippet's logic), Web Push to the
// local fake push service (VAPID checked, body decrypted), e-mail to the outbox and to a real
// SMTP server. Retries use pg-boss's own backoff with a small base delay.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql, type SQL } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { alertRules, outbox, pushSubscriptions, ruleDeliveries, ruleFirings, user } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { createMailer, type Mailer } from '../mail/service.ts';
import { startFakePushService, type FakePushService } from '../testing/fakePushService.ts';
import { waitFor } from '../testing/waitFor.ts';
import type { RuleChannel } from '../../shared/schemas/alertRules.ts';
import {
  DELIVERY_DEAD_LETTER_QUEUE,
  DELIVERY_QUEUE,
  deliveryJobId,
  openDeliveryQueue,
  type DeliveryPolicy,
  type DeliveryQueue,
} from './delivery.ts';
import { createPushSender, savePushSubscription } from './push.ts';
import { getOrCreateWebhookSecret, verifyWebhookSignature } from './webhook.ts';

const USER = 'trader-1';
const EMAIL = 'trader@example.com';
const PUBLIC_URL = 'http://desk.test:5173';
const quiet = { info: () => undefined, warn: () => undefined };
/** No waiting between attempts: retries at once (pg-boss without backoff). */
const fast: DeliveryPolicy = { retryLimit: 2, baseDelaySeconds: 0, pollSeconds: 0.5, concurrency: 2 };

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

describe('rule delivery queue', () => {
  let database: TestDatabase;
  let receiver: Server;
  let receiverUrl = '';
  let pushService: FakePushService;
  let outboxMailer: Mailer;
  const hits = new Map<string, Hit[]>();
  /** Per path: the statuses to answer in turn (the last one repeats); 204 when none. */
  const script = new Map<string, number[]>();
  const vapid = { ...webpush.generateVAPIDKeys(), subject: 'mailto:desk@watos.test' };
  const push = createPushSender(vapid, { allowPrivateTargets: true, timeoutMs: 2000 });
  let nextKey = 1;

  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.insert(user).values({ id: USER, name: 'Trader', email: EMAIL });
    receiver = createServer((request, response: ServerResponse) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        const list = hits.get(path) ?? [];
        list.push({ headers: request.headers, body });
        hits.set(path, list);
        const statuses = script.get(path) ?? [204];
        const status = statuses.length > 1 ? (statuses.shift() as number) : statuses[0]!;
        response.writeHead(status).end(status >= 400 ? `answer ${status}` : '');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    pushService = await startFakePushService();
    pushService.expectVapidKey(vapid.publicKey);
    outboxMailer = await createMailer(loadConfig({}), database, quiet, { deliver: false });
  });

  afterAll(async () => {
    await pushService?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await database?.close();
  });

  async function open(
    options: { policy?: DeliveryPolicy; mailer?: Mailer; work?: boolean } = {},
  ): Promise<DeliveryQueue> {
    return openDeliveryQueue({
      database,
      mailer: options.mailer ?? outboxMailer,
      log: quiet,
      policy: options.policy ?? fast,
      webhook: { timeoutMs: 2000, allowPrivateTargets: true },
      push,
      publicUrl: PUBLIC_URL,
      work: options.work ?? true,
    });
  }

  /** A rule, one firing of it and one pending delivery per channel; returns the delivery ids. */
  async function fire(
    channels: RuleChannel[],
    rule: { name?: string; webhookPath?: string } = {},
  ): Promise<{ firingId: number; ruleId: number; ids: Record<string, number> }> {
    const db = database.db;
    const [created] = await db
      .insert(alertRules)
      .values({
        userId: USER,
        name: rule.name ?? 'AAPL breakout',
        symbol: 'AAPL',
        timeframe: '1h',
        condition: { kind: 'price_cross', direction: 'above', level: 190 },
        trigger: 'every_time',
        channels,
        webhookUrl: rule.webhookPath ? `${receiverUrl}${rule.webhookPath}` : null,
      })
      .returning({ id: alertRules.id });
    const [firing] = await db
      .insert(ruleFirings)
      .values({
        ruleId: created!.id,
        userId: USER,
        symbol: 'AAPL',
        triggerKey: nextKey++,
        barTime: new Date('2026-11-20T15:30:00Z'),
        price: 190.42,
        message: 'AAPL crossed above 190 at 190.42',
        source: 'demo',
      })
      .returning({ id: ruleFirings.id });
    const rows = await db
      .insert(ruleDeliveries)
      .values(channels.map((channel) => ({ firingId: firing!.id, userId: USER, channel })))
      .returning({ id: ruleDeliveries.id, channel: ruleDeliveries.channel });
    return {
      firingId: firing!.id,
      ruleId: created!.id,
      ids: Object.fromEntries(rows.map((row) => [row.channel, row.id])),
    };
  }

  async function row(id: number) {
    const [found] = await database.db.select().from(ruleDeliveries).where(eq(ruleDeliveries.id, id));
    return found;
  }

  const settled = (id: number, timeoutMs = 10_000) =>
    waitFor(
      async () => {
        const current = await row(id);
        return ['delivered', 'failed', 'skipped'].includes(current!.status) ? current : null;
      },
      `delivery ${id} to settle`,
      timeoutMs,
    );

  async function query<T>(statement: SQL): Promise<T[]> {
    const result: unknown = await database.db.execute(statement);
    return (result as { rows: T[] }).rows;
  }

  async function deadLettered(id: number): Promise<number> {
    const rows = await query<{ count: string }>(
      sql`select count(*)::text as count from pgboss.job where name = ${DELIVERY_DEAD_LETTER_QUEUE} and (data->>'deliveryId')::bigint = ${id}`,
    );
    return Number(rows[0]!.count);
  }

  it('delivers a signed webhook once, with the firing in the body', async () => {
    const queue = await open();
    try {
      const { firingId, ruleId, ids } = await fire(['webhook'], { webhookPath: '/ok', name: 'Breakout' });
      await queue.enqueue([ids.webhook!]);
      const done = await settled(ids.webhook!);
      expect(done).toMatchObject({ status: 'delivered', attempts: 1, lastError: null, target: receiverUrl.slice(7) });
      expect(done.deliveredAt).toBeInstanceOf(Date);
      expect(done.latencyMs).toBeGreaterThanOrEqual(0);
      const [hit] = hits.get('/ok') ?? [];
      const secret = await getOrCreateWebhookSecret(database.db, USER);
      expect(verifyWebhookSignature(secret, hit!.body, String(hit!.headers['x-watos-signature']))).toBe(true);
      expect(hit!.headers['x-watos-delivery']).toBe(`${firingId}-webhook`);
      expect(hit!.headers['user-agent']).toBe('WATOS-Alerts/1.0');
      expect(JSON.parse(hit!.body)).toMatchObject({
        deliveryId: `${firingId}-webhook`,
        firingId,
        rule: { id: ruleId, name: 'Breakout', description: 'AAPL crosses above 190' },
        symbol: 'AAPL',
        ticker: 'AAPL',
        timeframe: '1h',
        price: 190.42,
        time: '2026-11-20T15:30:00.000Z',
        message: 'AAPL crossed above 190 at 190.42',
        source: 'demo',
      });
      expect(hits.get('/ok')).toHaveLength(1);
    } finally {
      await queue.close();
    }
  });

  it('retries a receiver that answers 500 twice (with backoff) and records attempt 3 as delivered', async () => {
    script.set('/flaky', [500, 500, 200]);
    const queue = await open({ policy: { retryLimit: 3, baseDelaySeconds: 1, pollSeconds: 0.5 } });
    try {
      const { ids } = await fire(['webhook'], { webhookPath: '/flaky' });
      const started = Date.now();
      await queue.enqueue([ids.webhook!]);
      const retrying = await waitFor(async () => {
        const current = await row(ids.webhook!);
        return current!.status === 'retrying' ? current : null;
      }, 'the first failure');
      expect(retrying).toMatchObject({ attempts: 1, lastError: 'The receiver answered 500: answer 500' });
      const done = await settled(ids.webhook!, 15_000);
      expect(done).toMatchObject({ status: 'delivered', attempts: 3, lastError: null });
      // Backoff of 1 s base: at least 1 s before the 2nd attempt and 2 s before the 3rd.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
      const flaky = hits.get('/flaky') ?? [];
      expect(flaky).toHaveLength(3);
      expect(new Set(flaky.map((hit) => hit.headers['x-watos-delivery'])).size).toBe(1);
      expect(await deadLettered(ids.webhook!)).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it('does not retry a 400, and dead-letters it', async () => {
    script.set('/bad', [400]);
    const queue = await open();
    try {
      const { ids } = await fire(['webhook'], { webhookPath: '/bad' });
      await queue.enqueue([ids.webhook!]);
      const done = await settled(ids.webhook!);
      expect(done).toMatchObject({ status: 'failed', attempts: 1, lastError: 'The receiver answered 400: answer 400' });
      expect(done.deliveredAt).toBeNull();
      await waitFor(async () => (await deadLettered(ids.webhook!)) === 1, 'the dead letter');
      // Retries would come at once with this policy: give them time to show up.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hits.get('/bad')).toHaveLength(1);
      expect((await row(ids.webhook!))!.attempts).toBe(1);
    } finally {
      await queue.close();
    }
  });

  it('gives up when the retry budget is spent', async () => {
    script.set('/down', [503]);
    const queue = await open();
    try {
      const { ids } = await fire(['webhook'], { webhookPath: '/down' });
      await queue.enqueue([ids.webhook!]);
      const done = await settled(ids.webhook!);
      expect(done).toMatchObject({ status: 'failed', attempts: 3, lastError: 'The receiver answered 503: answer 503' });
      await waitFor(async () => (await deadLettered(ids.webhook!)) === 1, 'the dead letter');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(hits.get('/down')).toHaveLength(3);
    } finally {
      await queue.close();
    }
  });

  it('spends the whole budget of every failing delivery when many fail at once across workers', async () => {
    // With immediate retries another worker fetches a failed job again at once. pg-boss
    // completes a batch after its handler: that must not complete the next attempt's job,
    // which would lose its retries and its dead letter. Deliveries that succeed in the same
    // batches complete once.
    script.set('/storm', [503]);
    const queue = await open({ policy: { ...fast, concurrency: 8, workers: 4 } });
    try {
      const failing: number[] = [];
      const passing: number[] = [];
      for (let index = 0; index < 32; index += 1) {
        const { ids } = await fire(['webhook'], { webhookPath: index % 4 === 3 ? '/calm' : '/storm' });
        (index % 4 === 3 ? passing : failing).push(ids.webhook!);
      }
      await queue.enqueue([...failing, ...passing].sort((a, b) => a - b));
      for (const id of failing) {
        expect(await settled(id, 20_000)).toMatchObject({ status: 'failed', attempts: 3 });
        await waitFor(async () => (await deadLettered(id)) === 1, `the dead letter of ${id}`);
      }
      for (const id of passing) expect(await settled(id)).toMatchObject({ status: 'delivered', attempts: 1 });
      const states = async (ids: number[]) =>
        query<{ state: string; count: string }>(
          sql`select state::text as state, count(*)::text as count from pgboss.job
            where name = ${DELIVERY_QUEUE} and id = any(${`{${ids.map(deliveryJobId).join(',')}}`}::uuid[]) group by state`,
        );
      expect(await states(failing)).toEqual([{ state: 'failed', count: String(failing.length) }]);
      await waitFor(async () => (await states(passing))[0]?.state === 'completed', 'the passing jobs to complete');
      expect(await states(passing)).toEqual([{ state: 'completed', count: String(passing.length) }]);
      expect(hits.get('/storm')).toHaveLength(3 * failing.length);
      expect(hits.get('/calm')).toHaveLength(passing.length);
    } finally {
      await queue.close();
    }
  });

  it('refuses a private webhook target on a public deployment without retrying', async () => {
    const queue = await openDeliveryQueue({
      database,
      mailer: outboxMailer,
      log: quiet,
      policy: fast,
      webhook: { timeoutMs: 2000, allowPrivateTargets: false },
      push,
      publicUrl: PUBLIC_URL,
      work: true,
    });
    try {
      const { ids } = await fire(['webhook'], { webhookPath: '/private' });
      await queue.enqueue([ids.webhook!]);
      const done = await settled(ids.webhook!);
      expect(done).toMatchObject({ status: 'failed', attempts: 1, lastError: 'Webhook URL must start with https://' });
      expect(hits.get('/private')).toBeUndefined();
    } finally {
      await queue.close();
    }
  });

  it('e-mails the alert through the outbox', async () => {
    const queue = await open();
    try {
      const { ids } = await fire(['email'], { name: 'Apple over 190' });
      await queue.enqueue([ids.email!]);
      const done = await settled(ids.email!);
      expect(done).toMatchObject({ status: 'delivered', attempts: 1, target: EMAIL });
      const mails = await database.db.select().from(outbox).where(eq(outbox.to, EMAIL));
      expect(mails).toHaveLength(1);
      const [mail] = mails;
      expect(mail!.subject).toBe('Alert: Apple over 190 — AAPL');
      expect(mail!.text).toContain('AAPL crossed above 190 at 190.42');
      expect(mail!.text).toContain('Price: 190.42');
      expect(mail!.text).toContain('Time: 2026-11-20 15:30 UTC');
      expect(mail!.text).toContain(`${PUBLIC_URL}/dashboard`);
      expect(mail!.html).toContain(`href="${PUBLIC_URL}/dashboard"`);
    } finally {
      await queue.close();
    }
  });

  it('e-mails the alert to a real SMTP server', async () => {
    const received: Array<{ to: string[]; raw: string }> = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const smtpMailer = await createMailer(
      loadConfig({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Desk <desk@watos.test>' }),
      database,
      quiet,
      {
        deliver: true,
        retry: { baseDelaySeconds: 1, maxDelaySeconds: 1, retryWindowSeconds: 60, pollSeconds: 0.5 },
      },
    );
    const queue = await open({ mailer: smtpMailer });
    try {
      const { ids } = await fire(['email'], { name: 'SMTP rule' });
      await queue.enqueue([ids.email!]);
      expect(await settled(ids.email!)).toMatchObject({ status: 'delivered', target: EMAIL });
      await waitFor(() => received.length === 1, 'the SMTP message');
      expect(received[0]!.to).toEqual([EMAIL]);
      const raw = received[0]!.raw.replace(/=\r?\n/g, '');
      expect(raw).toMatch(/Subject: Alert: SMTP rule =\?UTF-8\?|Subject: =\?UTF-8\?[BQ]\?|Subject: Alert: SMTP rule/);
      expect(raw).toContain('AAPL crossed above 190 at 190.42');
      expect(raw).toContain(`${PUBLIC_URL}/dashboard`);
    } finally {
      await queue.close();
      await smtpMailer.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('pushes to every subscribed browser, drops a gone one, and skips when none is left', async () => {
    const db = database.db;
    await db.delete(pushSubscriptions);
    const alive = pushService.subscribe();
    const gone = pushService.subscribe();
    pushService.answer(gone.id, 410);
    for (const subscription of [alive, gone])
      await savePushSubscription(
        db,
        USER,
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        { allowPrivateTargets: true },
      );
    const queue = await open();
    try {
      const { firingId, ruleId, ids } = await fire(['push'], { name: 'Push rule' });
      await queue.enqueue([ids.push!]);
      expect(await settled(ids.push!)).toMatchObject({ status: 'delivered', attempts: 1, target: '1 browser' });
      const messages = pushService.received.filter((message) => message.subscriptionId === alive.id);
      expect(messages).toHaveLength(1);
      expect(messages[0]!.payload).toEqual({
        title: 'Alert: Push rule — AAPL',
        body: 'AAPL crossed above 190 at 190.42',
        url: '/dashboard',
        tag: `rule-${ruleId}`,
        firingId,
      });
      const left = await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, USER));
      expect(left.map((subscription) => subscription.endpoint)).toEqual([alive.endpoint]);

      await db.delete(pushSubscriptions);
      const second = await fire(['push']);
      await queue.enqueue([second.ids.push!]);
      expect(await settled(second.ids.push!)).toMatchObject({
        status: 'skipped',
        attempts: 1,
        lastError: 'No browser is subscribed to push alerts',
      });
    } finally {
      await queue.close();
    }
  });

  it("pushes a user's firing to that user's browsers only, one shared with another account included", async () => {
    const db = database.db;
    await db.delete(pushSubscriptions);
    await db.insert(user).values({ id: 'trader-2', name: 'Other', email: 'other@example.com' }).onConflictDoNothing();
    const register = (userId: string, subscription: ReturnType<FakePushService['subscribe']>) =>
      savePushSubscription(
        db,
        userId,
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        { allowPrivateTargets: true },
      );
    // One browser both accounts signed in on (the other account last), and one only the other uses.
    const shared = pushService.subscribe();
    const othersOnly = pushService.subscribe();
    await register(USER, shared);
    await register('trader-2', shared);
    await register('trader-2', othersOnly);
    const queue = await open();
    try {
      const { firingId, ids } = await fire(['push']);
      await queue.enqueue([ids.push!]);
      expect(await settled(ids.push!)).toMatchObject({ status: 'delivered', target: '1 browser' });
      const sentTo = pushService.received
        .filter((message) => (message.payload as { firingId?: number }).firingId === firingId)
        .map((message) => message.subscriptionId);
      expect(sentTo).toEqual([shared.id]);
    } finally {
      await queue.close();
      await db.delete(pushSubscriptions);
    }
  });

  it('queues a delivery once however often it is enqueued, and never sends a finished one', async () => {
    const queue = await open({ work: false });
    const { ids } = await fire(['webhook'], { webhookPath: '/once' });
    await Promise.all([queue.enqueue([ids.webhook!]), queue.enqueue([ids.webhook!, ids.webhook!])]);
    await queue.enqueue([ids.webhook!]);
    const rows = await query<{ count: string }>(
      sql`select count(*)::text as count from pgboss.job where name = ${DELIVERY_QUEUE} and id = ${deliveryJobId(ids.webhook!)}::uuid`,
    );
    expect(rows[0]!.count).toBe('1');
    await queue.close();

    // A row already delivered (the worker's guard): its job runs and sends nothing.
    const finished = await fire(['webhook'], { webhookPath: '/finished' });
    await database.db
      .update(ruleDeliveries)
      .set({ status: 'delivered', deliveredAt: new Date() })
      .where(eq(ruleDeliveries.id, finished.ids.webhook!));
    const worker = await open();
    try {
      await worker.enqueue([finished.ids.webhook!]);
      await settled(ids.webhook!);
      await waitFor(async () => {
        const jobs = await query<{ state: string }>(
          sql`select state::text as state from pgboss.job where name = ${DELIVERY_QUEUE} and id = ${deliveryJobId(finished.ids.webhook!)}::uuid`,
        );
        return jobs[0]?.state === 'completed';
      }, 'the finished delivery job to complete');
      expect(hits.get('/once')).toHaveLength(1);
      expect(hits.get('/finished')).toBeUndefined();
      expect((await row(finished.ids.webhook!))!.attempts).toBe(0);
    } finally {
      await worker.close();
    }
  });

  it('delivers each exactly once across a restart, and the sweep queues what was never queued', async () => {
    const first = await open();
    const done = await fire(['webhook'], { webhookPath: '/restart-done' });
    await first.enqueue([done.ids.webhook!]);
    await settled(done.ids.webhook!);
    // One delivery queued but not sent when the server stops, one committed but never queued.
    const waiting = await fire(['webhook'], { webhookPath: '/restart-waiting' });
    const lost = await fire(['webhook'], { webhookPath: '/restart-lost' });
    await first.close();
    const enqueuer = await open({ work: false });
    await enqueuer.enqueue([waiting.ids.webhook!, done.ids.webhook!]);
    await enqueuer.close();
    expect((await row(waiting.ids.webhook!))!.status).toBe('pending');

    const second = await open();
    try {
      expect(await second.sweep()).toBe(1);
      expect(await second.sweep()).toBe(0);
      await settled(waiting.ids.webhook!);
      await settled(lost.ids.webhook!);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(hits.get('/restart-done')).toHaveLength(1);
      expect(hits.get('/restart-waiting')).toHaveLength(1);
      expect(hits.get('/restart-lost')).toHaveLength(1);
      for (const id of [done.ids.webhook, waiting.ids.webhook, lost.ids.webhook])
        expect(await row(id!)).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await second.close();
    }
  });
  it('marks failed what the sweep finds stale or abandoned by pg-boss', async () => {
    const queue = await open({ work: false });
    try {
      // Committed two days ago and never queued: too late to send.
      const stale = await fire(['webhook'], { webhookPath: '/stale' });
      await database.db
        .update(ruleDeliveries)
        .set({ createdAt: new Date(Date.now() - 2 * 86_400_000) })
        .where(eq(ruleDeliveries.id, stale.ids.webhook!));
      // Its job failed for good while the row still says retrying (the instance died).
      const abandoned = await fire(['webhook'], { webhookPath: '/abandoned' });
      await queue.enqueue([abandoned.ids.webhook!]);
      await database.db
        .update(ruleDeliveries)
        .set({ status: 'retrying', attempts: 3, lastError: 'The receiver answered 503' })
        .where(eq(ruleDeliveries.id, abandoned.ids.webhook!));
      await query(
        sql`update pgboss.job set state = 'failed', completed_on = now() where name = ${DELIVERY_QUEUE} and id = ${deliveryJobId(abandoned.ids.webhook!)}::uuid`,
      );
      expect(await queue.sweep()).toBe(0);
      expect(await row(stale.ids.webhook!)).toMatchObject({
        status: 'failed',
        attempts: 0,
        lastError: 'Not queued for delivery within 24 hours (the server stopped before queueing it)',
      });
      expect(await row(abandoned.ids.webhook!)).toMatchObject({
        status: 'failed',
        attempts: 3,
        lastError: 'The receiver answered 503',
      });
      expect(hits.get('/stale')).toBeUndefined();
    } finally {
      await queue.close();
    }
  });
});
