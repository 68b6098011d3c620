// Webhook delivery of alert rules: each user has one signing secret (table webhook_secrets,
// `whsec_` + 32 random bytes in base64url); every POST carries
//   X-Watos-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
//   X-Watos-Delivery:  <the same id on every retry of one delivery>
// and goes through the SSRF guard (http/outboundGuard.ts): https only on a public deployment,
// no private or loopback targets, the vetted address pinned, redirects not followed.
//
// Verifying a delivery on the receiving side (Node.js 18+, ES module). The docs copy this
// snippet verbatim, and webhook.test.ts runs exactly this text against a real delivery; keep
// it plain JavaScript and equivalent to verifyWebhookSignature below.
//
// --- verification snippet ---
// import { createHmac, timingSafeEqual } from 'node:crypto';
//
// // secret: your whsec_... secret; rawBody: the request body exactly as received (a string);
// // header: the X-Watos-Signature header. True when the delivery is genuine and recent.
// export function verifyWatosSignature(secret, rawBody, header, toleranceSeconds = 300) {
//   const fields = {};
//   for (const part of String(header).split(',')) {
//     const index = part.indexOf('=');
//     if (index > 0) fields[part.slice(0, index).trim()] = part.slice(index + 1).trim();
//   }
//   const timestamp = Number(fields.t);
//   if (!/^\d+$/.test(fields.t ?? '') || !/^[0-9a-f]{64}$/.test(fields.v1 ?? '')) return false;
//   if (Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
//   const expected = createHmac('sha256', secret).update(`${fields.t}.${rawBody}`).digest();
//   return timingSafeEqual(expected, Buffer.from(fields.v1, 'hex'));
// }
// --- end of snippet ---
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { onlyRow } from '../db/rows.ts';
import { webhookSecrets } from '../db/schema.ts';
import {
  OutboundBlockedError,
  OutboundLookupError,
  OutboundNetworkError,
  sendPinned,
  vetUrl,
} from '../http/outboundGuard.ts';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../../shared/schemas/alertRules.ts';

export const WEBHOOK_USER_AGENT = 'WATOS-Alerts/1.0';
/** The most of a receiver's answer kept for the error text. */
const MAX_ERROR_BODY_BYTES = 4096;
const ERROR_BODY_SHOWN = 200;

/** The header value for `body` signed at `timestampSeconds`: `t=<unix>,v1=<hex>`. */
export function signWebhook(secret: string, body: string, timestampSeconds: number): string {
  const t = Math.floor(timestampSeconds);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** True when `header` signs `body` with `secret` within `toleranceSeconds` of now. */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string | null | undefined,
  toleranceSeconds = 300,
): boolean {
  const fields: Record<string, string> = {};
  for (const part of String(header ?? '').split(',')) {
    const index = part.indexOf('=');
    if (index > 0) fields[part.slice(0, index).trim()] = part.slice(index + 1).trim();
  }
  const t = fields.t ?? '';
  const v1 = fields.v1 ?? '';
  if (!/^\d+$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(Date.now() / 1000 - Number(t)) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The user's signing secret, created on first use. */
export async function getOrCreateWebhookSecret(db: Database, userId: string): Promise<string> {
  const [existing] = await db
    .select({ secret: webhookSecrets.secret })
    .from(webhookSecrets)
    .where(eq(webhookSecrets.userId, userId));
  if (existing) return existing.secret;
  // Two first uses at once: one insert wins, both read the winner.
  await db.insert(webhookSecrets).values({ userId, secret: newSecret() }).onConflictDoNothing();
  const row = onlyRow(
    await db.select({ secret: webhookSecrets.secret }).from(webhookSecrets).where(eq(webhookSecrets.userId, userId)),
  );
  return row.secret;
}

/** Replaces the user's secret (the old one stops verifying at once) and returns the new one. */
export async function rotateWebhookSecret(db: Database, userId: string): Promise<string> {
  const secret = newSecret();
  await db
    .insert(webhookSecrets)
    .values({ userId, secret })
    .onConflictDoUpdate({ target: webhookSecrets.userId, set: { secret, createdAt: sql`now()` } });
  return secret;
}

export interface WebhookOptions {
  secret: string;
  /** The X-Watos-Delivery value: the same on every retry of one delivery. */
  deliveryId: string;
  timeoutMs: number;
  /** Loopback deployment: allow http:// and private targets. */
  allowPrivateTargets: boolean;
}

export interface WebhookResult {
  ok: boolean;
  /** The receiver's status code; null when no answer came. */
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** Worth another attempt: 5xx, 408, 429, network errors and timeouts. */
  retryable: boolean;
}

function bodyExcerpt(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  if (text === '') return '';
  return `: ${text.length > ERROR_BODY_SHOWN ? `${text.slice(0, ERROR_BODY_SHOWN)}…` : text}`;
}

/** POSTs `body` (JSON text) to `url`, signed, through the SSRF guard. Never throws. */
export async function postWebhook(url: string, body: string, options: WebhookOptions): Promise<WebhookResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const target = await vetUrl(url, { allowPrivateTargets: options.allowPrivateTargets, label: 'Webhook URL' });
    const response = await sendPinned(target, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': WEBHOOK_USER_AGENT,
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(options.secret, body, Date.now() / 1000),
        [WEBHOOK_DELIVERY_HEADER]: options.deliveryId,
      },
      body,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: MAX_ERROR_BODY_BYTES,
    });
    const { status } = response;
    if (status >= 200 && status < 300) return { ok: true, status, latencyMs: elapsed(), error: null, retryable: false };
    if (status >= 300 && status < 400) {
      const location = typeof response.headers.location === 'string' ? ` to ${response.headers.location}` : '';
      return {
        ok: false,
        status,
        latencyMs: elapsed(),
        error: `The receiver redirected (${status})${location}; redirects are not followed, use the final URL`,
        retryable: false,
      };
    }
    const retryable = status >= 500 || status === 408 || status === 429;
    return {
      ok: false,
      status,
      latencyMs: elapsed(),
      error: `The receiver answered ${status}${bodyExcerpt(response.body)}`,
      retryable,
    };
  } catch (error) {
    if (error instanceof OutboundBlockedError)
      return { ok: false, status: null, latencyMs: elapsed(), error: error.message, retryable: false };
    if (error instanceof OutboundNetworkError || error instanceof OutboundLookupError)
      return { ok: false, status: null, latencyMs: elapsed(), error: error.message, retryable: true };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, status: null, latencyMs: elapsed(), error: message, retryable: true };
  }
}

export interface WebhookTestResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** Sends one sample delivery (marked "test": true) to `url` and reports how it went. */
export async function testWebhook(
  url: string,
  secret: string,
  options: { timeoutMs: number; allowPrivateTargets: boolean },
): Promise<WebhookTestResult> {
  const now = new Date();
  const deliveryId = `test-${randomUUID()}`;
  const body = JSON.stringify({
    test: true,
    deliveryId,
    firingId: 0,
    rule: { id: 0, name: 'Test webhook', description: 'AAPL crosses above 190' },
    symbol: 'AAPL',
    ticker: 'AAPL',
    timeframe: '1h',
    price: 190.25,
    time: new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString(),
    firedAt: now.toISOString(),
    message: 'This is a test delivery from WATOS alert rules.',
    source: 'test',
  });
  const result = await postWebhook(url, body, { secret, deliveryId, ...options });
  return { ok: result.ok, status: result.status, latencyMs: result.latencyMs, error: result.error };
}
