// Web Push: the VAPID keys (environment or generated once into DATA_DIR), messages that a
// local push service accepts only with a valid VAPID signature and decrypts with the
// subscription's private key, gone subscriptions, and the subscription store.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webpush from 'web-push';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pushSubscriptions, user } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { startFakePushService, type FakePushService } from '../testing/fakePushService.ts';
import {
  countPushSubscriptions,
  createPushSender,
  deletePushSubscription,
  listPushSubscriptions,
  removeGoneSubscription,
  resolveVapidKeys,
  savePushSubscription,
} from './push.ts';

const noEnv = { VAPID_PUBLIC_KEY: undefined, VAPID_PRIVATE_KEY: undefined, VAPID_SUBJECT: undefined };

describe('resolveVapidKeys', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'watos-vapid-'));
    dirs.push(dir);
    return join(dir, 'data');
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('uses the keys from the environment', () => {
    const keys = webpush.generateVAPIDKeys();
    const resolved = resolveVapidKeys({
      VAPID_PUBLIC_KEY: keys.publicKey,
      VAPID_PRIVATE_KEY: keys.privateKey,
      VAPID_SUBJECT: 'https://desk.example.com/contact',
      MAIL_FROM: 'Desk <desk@watos.test>',
      dataDir: dataDir(),
    });
    expect(resolved).toEqual({ ...keys, subject: 'https://desk.example.com/contact' });
  });

  it('generates keys once into DATA_DIR/vapid-keys.json (mode 600) and keeps them', () => {
    const dir = dataDir();
    const config = { ...noEnv, MAIL_FROM: 'Desk <desk@watos.test>', dataDir: dir };
    const first = resolveVapidKeys(config);
    expect(first.subject).toBe('mailto:desk@watos.test');
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
    const file = join(dir, 'vapid-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      publicKey: first.publicKey,
      privateKey: first.privateKey,
    });
    expect(resolveVapidKeys(config)).toEqual(first);
  });

  it('takes the subject from MAIL_FROM, else mailto:alerts@localhost', () => {
    const dir = dataDir();
    expect(resolveVapidKeys({ ...noEnv, MAIL_FROM: 'alerts@desk.example', dataDir: dir }).subject).toBe(
      'mailto:alerts@desk.example',
    );
    expect(resolveVapidKeys({ ...noEnv, MAIL_FROM: 'WATOS Dashboard', dataDir: dir }).subject).toBe(
      'mailto:alerts@localhost',
    );
  });
});

describe('push sender and store', () => {
  let service: FakePushService;
  let database: TestDatabase;
  const vapid = { ...webpush.generateVAPIDKeys(), subject: 'mailto:desk@watos.test' };
  const sender = createPushSender(vapid, { allowPrivateTargets: true, timeoutMs: 2000 });

  beforeAll(async () => {
    service = await startFakePushService();
    database = await openTestDatabase();
    await database.db.insert(user).values([
      { id: 'u1', name: 'One', email: 'one@example.com' },
      { id: 'u2', name: 'Two', email: 'two@example.com' },
    ]);
  });
  afterAll(async () => {
    await service?.close();
    await database?.close();
  });
  beforeEach(() => {
    service.received.length = 0;
    service.rejected.length = 0;
    service.expectVapidKey(vapid.publicKey);
  });

  it('delivers a message the push service authenticates and decrypts', async () => {
    const subscription = service.subscribe();
    const payload = { title: 'Alert: Breakout — AAPL', body: 'AAPL crossed 190', url: '/dashboard', tag: 'rule-1' };
    const result = await sender.send(subscription, payload, { ttlSeconds: 120 });
    expect(service.rejected).toEqual([]);
    expect(result).toEqual({ ok: true, status: 201, gone: false, retryable: false, error: null });
    expect(service.received).toHaveLength(1);
    const [message] = service.received;
    expect(message!.payload).toEqual(payload);
    expect(message!.ttl).toBe(120);
    expect(message!.vapid).toMatchObject({ aud: new URL(service.url).origin, sub: 'mailto:desk@watos.test' });
    expect(message!.vapid.publicKey).toBe(vapid.publicKey);
  });

  it('is refused by the push service when signed with another VAPID key', async () => {
    const other = createPushSender(
      { ...webpush.generateVAPIDKeys(), subject: 'mailto:desk@watos.test' },
      { allowPrivateTargets: true },
    );
    const result = await other.send(service.subscribe(), { title: 'x' });
    expect(result).toMatchObject({ ok: false, status: 403, gone: false, retryable: false });
    expect(service.rejected[0]?.reason).toMatch(/VAPID key/);
    expect(service.received).toHaveLength(0);
  });

  it('is refused by the push service when the VAPID JWT signature is forged', async () => {
    const subscription = service.subscribe();
    const details = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      '{"title":"x"}',
      { vapidDetails: vapid, TTL: 60 },
    );
    const authorization = String(details.headers.Authorization);
    const forged = authorization.replace(/(t=[^.]+\.[^.]+\.)([^,]+)/, (_whole, signed: string, signature: string) => {
      const bytes = Buffer.from(signature, 'base64url');
      bytes[0]! ^= 0xff;
      return `${signed}${bytes.toString('base64url')}`;
    });
    expect(forged).not.toBe(authorization);
    const response = await fetch(subscription.endpoint, {
      method: 'POST',
      headers: { ...(details.headers as Record<string, string>), Authorization: forged },
      body: details.body,
    });
    expect(response.status).toBe(401);
    expect(service.rejected[0]?.reason).toBe('JWT signature does not verify with k');
    expect(service.received).toHaveLength(0);
  });

  it('cannot be read with another subscription keys', async () => {
    const real = service.subscribe();
    const wrong = service.subscribe();
    const result = await sender.send({ ...real, p256dh: wrong.p256dh }, { title: 'x' });
    expect(result).toMatchObject({ ok: false, status: 400, retryable: false });
    expect(service.rejected[0]?.reason).toBe('the body does not decrypt with the subscription keys');
  });

  it('reports a gone subscription (410, 404) and retries a failing push service', async () => {
    const gone = service.subscribe();
    service.answer(gone.id, 410);
    expect(await sender.send(gone, { title: 'x' })).toMatchObject({ ok: false, status: 410, gone: true });
    service.answer(gone.id, 404);
    expect(await sender.send(gone, { title: 'x' })).toMatchObject({ ok: false, status: 404, gone: true });
    const flaky = service.subscribe();
    service.answer(flaky.id, 503);
    expect(await sender.send(flaky, { title: 'x' })).toMatchObject({
      ok: false,
      status: 503,
      gone: false,
      retryable: true,
    });
  });

  it('refuses a private endpoint on a public deployment', async () => {
    const strict = createPushSender(vapid);
    const result = await strict.send(service.subscribe(), { title: 'x' });
    expect(result).toMatchObject({ ok: false, status: null, gone: false, retryable: false });
    expect(result.error).toBe('Push endpoint must start with https://');
    expect(service.received).toHaveLength(0);
  });

  it('stores, counts, updates and deletes subscriptions per user', async () => {
    const db = database.db;
    await db.delete(pushSubscriptions);
    const first = service.subscribe();
    const second = service.subscribe();
    const body = (subscription: typeof first) => ({
      endpoint: subscription.endpoint,
      expirationTime: null,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    });
    const loopback = { allowPrivateTargets: true };
    await savePushSubscription(db, 'u1', body(first), loopback);
    await savePushSubscription(db, 'u1', body(second), loopback);
    await savePushSubscription(db, 'u1', body(second), loopback);
    expect(await countPushSubscriptions(db, 'u1')).toBe(2);
    expect(await countPushSubscriptions(db, 'u2')).toBe(0);
    // The same browser signed in as another user (with keys of its own): each account keeps its row.
    const reused = service.subscribe();
    await savePushSubscription(db, 'u2', { ...body(reused), endpoint: second.endpoint }, loopback);
    expect(await countPushSubscriptions(db, 'u1')).toBe(2);
    expect((await listPushSubscriptions(db, 'u1')).find((row) => row.endpoint === second.endpoint)).toMatchObject({
      p256dh: second.p256dh,
      auth: second.auth,
    });
    expect(await listPushSubscriptions(db, 'u2')).toEqual([
      { endpoint: second.endpoint, p256dh: reused.p256dh, auth: reused.auth },
    ]);
    // A gone endpoint goes from the account whose delivery found it gone; the other's row stays.
    await removeGoneSubscription(db, 'u2', second.endpoint);
    expect(await countPushSubscriptions(db, 'u2')).toBe(0);
    expect(await countPushSubscriptions(db, 'u1')).toBe(2);
    await savePushSubscription(db, 'u2', body(second), loopback);
    expect(await deletePushSubscription(db, 'u2', second.endpoint)).toBe(true);
    expect(await deletePushSubscription(db, 'u2', second.endpoint)).toBe(false);
    expect(await deletePushSubscription(db, 'u1', second.endpoint)).toBe(true);
    expect(await countPushSubscriptions(db, 'u2')).toBe(0);

    await expect(savePushSubscription(db, 'u1', body(service.subscribe()))).rejects.toThrow(
      'Push endpoint must start with https://',
    );
    await expect(
      savePushSubscription(db, 'u1', { ...body(first), endpoint: 'https://10.1.2.3/push/x' }),
    ).rejects.toThrow('Push endpoint points to a private or loopback address (10.1.2.3)');
    await expect(
      savePushSubscription(db, 'u1', { ...body(first), keys: { p256dh: 'AAAA', auth: first.auth } }, loopback),
    ).rejects.toThrow(/p256dh/);
    await expect(
      savePushSubscription(db, 'u1', { ...body(first), keys: { p256dh: first.p256dh, auth: 'AAAA' } }, loopback),
    ).rejects.toThrow(/auth/);
    expect(await countPushSubscriptions(db, 'u1')).toBe(1);
  });
});
