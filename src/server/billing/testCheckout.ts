// The built-in TEST MODE checkout: a hosted payment page served by our own server, so the
// whole purchase flow works with no Stripe account and no network. Test cards follow Stripe's
// conventions: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined. Paying runs the same
// fulfilment as a Stripe webhook, then returns to /success?session_id=...
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../db/client.ts';
import { sessionUser, type Auth } from '../auth/service.ts';
import type { PaymentProvider } from './provider.ts';
import {
  findCheckoutSession,
  findOwnTestCheckout,
  fulfilCheckoutSession,
  markCancelAtPeriodEnd,
  recordCheckoutSession,
} from './service.ts';

const DECLINED_CARD = '4000000000000002';

export function createTestCheckoutProvider(db: Database, publicUrl: string): PaymentProvider {
  return {
    kind: 'test',
    publishableKey: null,
    async createCheckout({ price, user }) {
      const sessionId = `cs_test_${randomBytes(18).toString('base64url')}`;
      const url = `${publicUrl}/checkout/test/${sessionId}`;
      await recordCheckoutSession(db, { id: sessionId, userId: user.id, priceId: price.id, provider: 'test', url });
      return { sessionId, url };
    },
    async confirm(sessionId) {
      const session = await findCheckoutSession(db, sessionId);
      if (session?.status !== 'paid') return 'open';
      await fulfilCheckoutSession(db, sessionId);
      return 'paid';
    },
    async cancelAtPeriodEnd(subscription) {
      await markCancelAtPeriodEnd(db, subscription.id);
    },
  };
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Checks a test card the way a card form would; returns the message to show, or null. */
export function cardProblem(card: { number: string; expiry: string; cvc: string }, now = new Date()): string | null {
  const digits = card.number.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(digits) || !luhnValid(digits)) return 'Your card number is invalid.';
  const expiry = /^(\d{2})\s*\/\s*(\d{2})$/.exec(card.expiry.trim());
  if (!expiry || Number(expiry[1]) < 1 || Number(expiry[1]) > 12)
    return "Your card's expiration date is invalid. Use MM/YY.";
  const expiresAt = Date.UTC(2000 + Number(expiry[2]), Number(expiry[1]), 1);
  if (expiresAt <= now.getTime()) return "Your card's expiration date is in the past.";
  if (!/^\d{3,4}$/.test(card.cvc.trim())) return "Your card's security code is invalid.";
  if (digits === DECLINED_CARD) return 'Your card was declined. No payment was taken; try another card.';
  return null;
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

function page(options: {
  sessionId: string;
  productName: string;
  amount: number;
  email: string;
  error?: string;
  values?: Record<string, string>;
}): string {
  const price = `$${(options.amount / 100).toFixed(2)}`;
  const value = (name: string) => escapeHtml(options.values?.[name] ?? '');
  const field = (name: string, label: string, placeholder: string, autocomplete: string, inputmode = 'numeric') =>
    `<label style="display:block;margin:0 0 14px;font-size:14px;color:#374151">${label}<input name="${name}" id="${name}" value="${value(name)}" placeholder="${placeholder}" autocomplete="${autocomplete}" inputmode="${inputmode}" required style="display:block;width:100%;box-sizing:border-box;margin-top:6px;padding:10px 12px;border:1px solid #d1d5db;border-radius:8px;font-size:16px"></label>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>TEST MODE checkout: ${escapeHtml(options.productName)}</title></head>
<body style="margin:0;font-family:Arial,Helvetica,sans-serif;background:#f3f4f6;color:#111827">
<div role="note" style="background:#f59e0b;color:#111827;text-align:center;padding:10px;font-weight:bold;letter-spacing:.05em">TEST MODE: no real payment is taken. Use card 4242 4242 4242 4242.</div>
<main style="max-width:440px;margin:40px auto;background:#fff;border-radius:14px;padding:28px;box-shadow:0 10px 30px rgba(0,0,0,.08)">
<p style="margin:0;color:#6b7280;font-size:14px">WATOS Trading Intelligence</p>
<h1 style="margin:6px 0 4px;font-size:22px">${escapeHtml(options.productName)}</h1>
<p style="margin:0 0 20px;font-size:28px;font-weight:bold">${price}</p>
<p style="margin:0 0 20px;font-size:14px;color:#6b7280">Paying as ${escapeHtml(options.email)}</p>
${options.error ? `<p role="alert" style="margin:0 0 16px;padding:10px 12px;border-radius:8px;background:#fee2e2;color:#991b1b">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="/checkout/test/${escapeHtml(options.sessionId)}">
${field('card', 'Card number', '4242 4242 4242 4242', 'cc-number')}
<div style="display:flex;gap:12px"><div style="flex:1">${field('expiry', 'Expiry (MM/YY)', '12/34', 'cc-exp', 'text')}</div><div style="flex:1">${field('cvc', 'CVC', '123', 'cc-csc')}</div></div>
<button type="submit" style="width:100%;margin-top:6px;padding:12px;border:0;border-radius:8px;background:#4f46e5;color:#fff;font-size:16px;font-weight:bold;cursor:pointer">Pay ${price}</button>
</form>
<p style="margin:18px 0 0;text-align:center;font-size:14px"><a href="/" style="color:#4f46e5">Cancel and return</a></p>
</main></body></html>`;
}

export async function testCheckoutRoutes(app: FastifyInstance, options: { db: Database; auth: Auth }): Promise<void> {
  const { db, auth } = options;
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  const loadOwnSession = (sessionId: string, userId: string) => findOwnTestCheckout(db, sessionId, userId);
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // HTML pages: the schemas document the answers; a text/html string is sent as it is.
  const params = z.object({ sessionId: z.string() });
  const html = z.string();
  const formFields = z.record(z.string(), z.unknown());

  const notFound =
    '<!doctype html><title>Checkout not found</title><p>This checkout session does not exist or belongs to another account. <a href="/">Return</a></p>';

  routes.get(
    '/checkout/test/:sessionId',
    { schema: { params, response: { 200: html, 404: html } } },
    async (request, reply) => {
      const viewer = await sessionUser(auth, request);
      const row = viewer && (await loadOwnSession(request.params.sessionId, viewer.id));
      reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store');
      if (!viewer || !row) return reply.code(404).send(notFound);
      if (row.session.status === 'paid')
        return reply.redirect(`/success?session_id=${encodeURIComponent(row.session.id)}`, 303);
      return page({
        sessionId: row.session.id,
        productName: row.product.name,
        amount: row.price.unitAmount,
        email: viewer.email,
      });
    },
  );

  routes.post(
    '/checkout/test/:sessionId',
    {
      schema: {
        params,
        response: { 402: html, 404: html },
      },
    },
    async (request, reply) => {
      const viewer = await sessionUser(auth, request);
      const row = viewer && (await loadOwnSession(request.params.sessionId, viewer.id));
      reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store');
      if (!viewer || !row) return reply.code(404).send(notFound);
      const body = formFields.safeParse(request.body).data ?? {};
      const field = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
      const card = { number: field(body.card), expiry: field(body.expiry), cvc: field(body.cvc) };
      const problem = cardProblem(card);
      if (problem) {
        return reply.code(402).send(
          page({
            sessionId: row.session.id,
            productName: row.product.name,
            amount: row.price.unitAmount,
            email: viewer.email,
            error: problem,
            values: { card: card.number, expiry: card.expiry },
          }),
        );
      }
      await fulfilCheckoutSession(db, row.session.id);
      return reply.redirect(`/success?session_id=${encodeURIComponent(row.session.id)}`, 303);
    },
  );
}
