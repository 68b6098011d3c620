// One rule, every channel, through the real app: a browser's push subscription registered
// with the API (a local push service that verifies VAPID and decrypts), a webhook receiver on
// loopback checking the signature with the user's secret from the API, the outbox for e-mail,
// and the test hook moving the price so the rule fires. The delivery log shows each channel
// delivered once; the webhook test-send and the secret rotation work from the API too.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestOutboxMessages } from '../mail/service.ts';
import { startFakePushService, type FakePushService } from '../testing/fakePushService.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody, parseJson } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { storeFlatMinutes } from '../testing/candles.ts';
import type { AlertRule, RuleDelivery, RuleFiring } from '../../shared/schemas/alertRules.ts';
import { verifyWebhookSignature } from './webhook.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let test: TestApp;
let push: FakePushService;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  test = await createTestApp({ TEST_HOOKS: 'true', DELIVERY_RETRY_BASE_SECONDS: '1' });
  push = await startFakePushService();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/watos`;
});
afterAll(async () => {
  await test?.close();
  await push?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('alert rule channels through the API', () => {
  it('delivers one firing in the app, by e-mail, as a push and as a signed webhook', async () => {
    const { browser } = await subscribedUser(test, 'channels@example.com');
    // The engine's last bars of AAPL: a close of 100 a minute ago.
    await storeFlatMinutes(test.database.db, 'AAPL', 100);

    const key = jsonBody<{ publicKey: string }>(await browser.get('/api/push/key')).publicKey;
    push.expectVapidKey(key);
    const subscription = push.subscribe();
    const registered = await browser.post('/api/push/subscriptions', {
      endpoint: subscription.endpoint,
      expirationTime: null,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    });
    expect(jsonBody<{ count: number }>(registered)).toEqual({ count: 1 });
    const badKeys = await browser.post('/api/push/subscriptions', {
      endpoint: `${subscription.endpoint}-2`,
      keys: { p256dh: 'AAAA', auth: subscription.auth },
    });
    expect(badKeys.statusCode).toBe(400);

    const first = jsonBody<{ secret: string; header: string }>(await browser.get('/api/alert-rules/webhook'));
    expect(first.header).toBe('X-Watos-Signature');
    const rotated = jsonBody<{ secret: string }>(await browser.post('/api/alert-rules/webhook/rotate'));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(first.secret);

    const sample = jsonBody<{ ok: boolean; status: number }>(
      await browser.post('/api/alert-rules/webhook/test', { url: receiverUrl }),
    );
    expect(sample).toMatchObject({ ok: true, status: 204 });
    expect(JSON.parse(received[0]!.body)).toMatchObject({ test: true });
    expect(
      verifyWebhookSignature(rotated.secret, received[0]!.body, received[0]!.headers['x-watos-signature'] as string),
    ).toBe(true);
    expect(
      verifyWebhookSignature(first.secret, received[0]!.body, received[0]!.headers['x-watos-signature'] as string),
    ).toBe(false);

    // Test sends are rate-limited per user: the tenth of a minute goes out, the eleventh does not.
    for (let sent = 1; sent < 10; sent += 1)
      expect((await browser.post('/api/alert-rules/webhook/test', { url: receiverUrl })).statusCode).toBe(200);
    const refused = await browser.post('/api/alert-rules/webhook/test', { url: receiverUrl });
    expect(refused.statusCode).toBe(429);
    expect(jsonBody<{ error: string }>(refused).error).toMatch(/^At most 10 webhook tests a minute\. Please wait/);
    received.length = 0;

    const rule = jsonBody<AlertRule>(
      await browser.post('/api/alert-rules', {
        symbol: 'AAPL',
        timeframe: '5m',
        condition: { kind: 'price_cross', direction: 'above', level: 102 },
        channels: ['in_app', 'email', 'push', 'webhook'],
        webhookUrl: receiverUrl,
        message: '{{ticker}} broke {{close}}',
      }),
    );
    const below = jsonBody<{ fired: number }>(
      await browser.post('/api/test/rules/price', { symbol: 'AAPL', price: 101 }),
    );
    expect(below.fired).toBe(0);
    const fired = jsonBody<{ fired: number }>(
      await browser.post('/api/test/rules/price', { symbol: 'NASDAQ:AAPL', price: 105 }),
    );
    expect(fired.fired).toBe(1);
    // Once per 5-minute bar: a second crossing fires only when it falls in another bar.
    await browser.post('/api/test/rules/price', { symbol: 'AAPL', price: 99 });
    await browser.post('/api/test/rules/price', { symbol: 'AAPL', price: 106 });
    const all = jsonBody<{ firings: RuleFiring[] }>(await browser.get('/api/alert-rules/triggered')).firings;
    const buckets = all.map((entry) => Math.floor(Date.parse(entry.barTime) / 300_000));
    expect(new Set(buckets).size).toBe(all.length);

    const firing = all.at(-1)!;
    expect(firing).toMatchObject({ ruleId: rule.id, ticker: 'AAPL', message: 'AAPL broke 105.00', source: 'demo' });

    // Every firing's deliveries (two when the test ran across a 5-minute boundary), so that the
    // counts below do not race the queue.
    const firingIds = new Set(all.map((entry) => entry.id));
    await expect
      .poll(
        async () => {
          const log = jsonBody<{ deliveries: RuleDelivery[] }>(await browser.get('/api/alert-rules/deliveries'));
          return log.deliveries
            .filter((row) => firingIds.has(row.firingId))
            .map((row) => `${row.channel}:${row.status}:${row.attempts}`)
            .sort();
        },
        { timeout: 20_000, interval: 250 },
      )
      .toEqual(
        all
          .flatMap(() => ['email:delivered:1', 'in_app:delivered:1', 'push:delivered:1', 'webhook:delivered:1'])
          .sort(),
      );

    const hook = received.find((entry) => parseJson<{ firingId?: number }>(entry.body).firingId === firing.id)!;
    expect(verifyWebhookSignature(rotated.secret, hook.body, hook.headers['x-watos-signature'] as string)).toBe(true);
    expect(hook.headers['x-watos-delivery']).toBe(`${firing.id}-webhook`);
    expect(JSON.parse(hook.body)).toMatchObject({
      firingId: firing.id,
      rule: { id: rule.id, name: 'AAPL crosses above 102' },
      symbol: 'AAPL',
      ticker: 'AAPL',
      price: 105,
      message: 'AAPL broke 105.00',
      source: 'demo',
    });

    expect(push.rejected).toEqual([]);
    expect(push.received).toHaveLength(all.length);
    const firstPush = push.received.find((entry) => JSON.stringify(entry.payload).includes('AAPL broke 105.00'));
    expect(firstPush?.payload).toMatchObject({ url: '/dashboard', tag: `rule-${rule.id}` });

    const mails = (await latestOutboxMessages(test.database.db, 'channels@example.com')).filter((mail) =>
      mail.subject.startsWith('Alert:'),
    );
    expect(mails).toHaveLength(all.length);
    expect(mails[0]!.subject).toBe('Alert: AAPL crosses above 102 — AAPL');

    const removed = await browser.delete('/api/push/subscriptions', { endpoint: subscription.endpoint });
    expect(jsonBody<{ count: number }>(removed)).toEqual({ count: 0 });
  });
});
