// Web Push for alert rules: the server's VAPID keys, the sender and the store of the browsers
// a user subscribed. The keys come from VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY or are generated
// once into DATA_DIR/vapid-keys.json (a browser's subscription is bound to the public key, so
// it must survive restarts). web-push encrypts the payload (aes128gcm) and signs the VAPID
// JWT; the request itself goes through the SSRF guard (http/outboundGuard.ts) like a webhook,
// since the endpoint is whatever URL a browser (or anyone calling the API) handed us.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import webpush from 'web-push';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { pushSubscriptions } from '../db/schema.ts';
import { invalid } from '../errors/domain.ts';
import { OutboundLookupError, OutboundNetworkError, sendPinned, vetUrl } from '../http/outboundGuard.ts';
import type { PushSubscriptionBody } from '../../shared/schemas/alertRules.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** The browsers one user may keep subscribed; the oldest go first past this. */
const MAX_PUSH_SUBSCRIPTIONS_PER_USER = 20;
const DEFAULT_PUSH_TIMEOUT_MS = 10_000;

function subjectFrom(config: Pick<Config, 'VAPID_SUBJECT' | 'MAIL_FROM'>): string {
  if (config.VAPID_SUBJECT) return config.VAPID_SUBJECT;
  const address =
    /<([^<>\s]+@[^<>\s]+)>/.exec(config.MAIL_FROM)?.[1] ?? /[^<>\s]+@[^<>\s]+/.exec(config.MAIL_FROM)?.[0];
  return `mailto:${address ?? 'alerts@localhost'}`;
}

/** The VAPID keys: from the environment, else DATA_DIR/vapid-keys.json (generated on first use, mode 600). */
export function resolveVapidKeys(
  config: Pick<Config, 'VAPID_PUBLIC_KEY' | 'VAPID_PRIVATE_KEY' | 'VAPID_SUBJECT' | 'MAIL_FROM' | 'dataDir'>,
): VapidKeys {
  const subject = subjectFrom(config);
  if (config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY)
    return { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY, subject };
  const file = join(config.dataDir, 'vapid-keys.json');
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { publicKey?: unknown; privateKey?: unknown };
    if (typeof stored.publicKey !== 'string' || typeof stored.privateKey !== 'string')
      throw new Error(`${file} does not hold a publicKey and a privateKey; delete it to generate new keys`);
    return { publicKey: stored.publicKey, privateKey: stored.privateKey, subject };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const keys = webpush.generateVAPIDKeys();
  // 'wx': two processes starting at once must not both write; the loser reads the winner's.
  try {
    writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
    return resolveVapidKeys(config);
  }
  return { ...keys, subject };
}

export interface StoredPushSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
}

interface PushResult {
  ok: boolean;
  /** The push service's status; null when no answer came. */
  status: number | null;
  /** The subscription no longer exists (404 or 410): remove it. */
  gone: boolean;
  /** Worth another attempt: 5xx, 408, 429, network errors and timeouts. */
  retryable: boolean;
  error: string | null;
}

export interface PushSender {
  readonly publicKey: string;
  send(
    subscription: StoredPushSubscription,
    payload: object,
    options?: { ttlSeconds?: number; urgency?: 'very-low' | 'low' | 'normal' | 'high' },
  ): Promise<PushResult>;
}

export interface PushSenderOptions {
  /** Loopback deployment: allow http:// and private endpoints (a local push service in tests). */
  allowPrivateTargets?: boolean;
  timeoutMs?: number;
}

/** Sends encrypted, VAPID-signed push messages through the SSRF guard. `send` never throws. */
export function createPushSender(vapid: VapidKeys, options: PushSenderOptions = {}): PushSender {
  const allowPrivateTargets = options.allowPrivateTargets ?? false;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PUSH_TIMEOUT_MS;
  return {
    publicKey: vapid.publicKey,
    async send(subscription, payload, sendOptions = {}) {
      try {
        const target = await vetUrl(subscription.endpoint, { allowPrivateTargets, label: 'Push endpoint' });
        const details = webpush.generateRequestDetails(
          { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
          JSON.stringify(payload),
          {
            vapidDetails: vapid,
            TTL: sendOptions.ttlSeconds ?? 3600,
            urgency: sendOptions.urgency ?? 'high',
            contentEncoding: 'aes128gcm',
          },
        );
        const response = await sendPinned(target, {
          method: details.method,
          headers: details.headers,
          body: details.body ?? undefined,
          timeoutMs,
          maxResponseBytes: 1024,
        });
        const { status } = response;
        if (status >= 200 && status < 300) return { ok: true, status, gone: false, retryable: false, error: null };
        const gone = status === 404 || status === 410;
        const text = response.body.replace(/\s+/g, ' ').trim().slice(0, 200);
        return {
          ok: false,
          status,
          gone,
          retryable: status >= 500 || status === 408 || status === 429,
          error: gone
            ? `The push subscription has expired (${status})`
            : `The push service answered ${status}${text ? `: ${text}` : ''}`,
        };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A refused endpoint or a payload that cannot be encrypted (bad keys) will not improve.
        const retryable = error instanceof OutboundNetworkError || error instanceof OutboundLookupError;
        return { ok: false, status: null, gone: false, retryable, error: message };
      }
    },
  };
}

function decodedLength(value: string): number {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64url').length : -1;
}

/**
 * Stores a browser's subscription for `userId`; the same endpoint again updates this user's
 * keys. Another account's row for the same endpoint (a browser two accounts signed in on) is
 * left alone: no request of one account changes what another receives. The endpoint must
 * pass the SSRF guard; the keys must be a P-256 public key (65 bytes) and a 16-byte secret.
 */
export async function savePushSubscription(
  db: Database,
  userId: string,
  body: PushSubscriptionBody,
  options: { allowPrivateTargets: boolean } = { allowPrivateTargets: false },
): Promise<void> {
  await vetUrl(body.endpoint, { allowPrivateTargets: options.allowPrivateTargets, label: 'Push endpoint' }).catch(
    (error: unknown) => {
      if (error instanceof OutboundLookupError) throw invalid(error.message);
      throw error;
    },
  );
  if (decodedLength(body.keys.p256dh) !== 65)
    throw invalid('keys.p256dh must be a P-256 public key (65 bytes, base64url)');
  if (decodedLength(body.keys.auth) !== 16) throw invalid('keys.auth must be a 16-byte secret (base64url)');
  await db
    .insert(pushSubscriptions)
    .values({ userId, endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth })
    .onConflictDoUpdate({
      target: [pushSubscriptions.userId, pushSubscriptions.endpoint],
      set: { p256dh: body.keys.p256dh, auth: body.keys.auth },
    });
  const rows = await db
    .select({ id: pushSubscriptions.id })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId))
    .orderBy(asc(pushSubscriptions.createdAt), asc(pushSubscriptions.id));
  const excess = rows.slice(0, Math.max(0, rows.length - MAX_PUSH_SUBSCRIPTIONS_PER_USER)).map((row) => row.id);
  if (excess.length > 0) await db.delete(pushSubscriptions).where(inArray(pushSubscriptions.id, excess));
}

/** Removes one of the user's subscriptions; true when there was one. */
export async function deletePushSubscription(db: Database, userId: string, endpoint: string): Promise<boolean> {
  const removed = await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)))
    .returning({ id: pushSubscriptions.id });
  return removed.length > 0;
}

export async function countPushSubscriptions(db: Database, userId: string): Promise<number> {
  const [row] = await db.select({ value: count() }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId));
  return row?.value ?? 0;
}

/** Every subscription of the user (the delivery worker). */
export async function listPushSubscriptions(db: Database, userId: string): Promise<StoredPushSubscription[]> {
  return db
    .select({ endpoint: pushSubscriptions.endpoint, p256dh: pushSubscriptions.p256dh, auth: pushSubscriptions.auth })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId))
    .orderBy(asc(pushSubscriptions.id));
}

/** Drops the user's subscription the push service says is gone (another account's row goes on its own delivery). */
export async function removeGoneSubscription(db: Database, userId: string, endpoint: string): Promise<void> {
  await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)));
}
