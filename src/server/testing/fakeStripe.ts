// A local fake of the parts of Stripe's REST API the product calls (checkout sessions,
// subscriptions, invoices) on 127.0.0.1, keeping state in memory, with helpers that play
// Stripe's side: pay a session, change a subscription, bill an invoice, fail requests, and
// sign webhook events exactly as Stripe does.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Stripe from 'stripe';

export type StripeObject = Record<string, unknown>;

interface FakeStripeRequest {
  method: string;
  path: string;
  /** The Stripe-Version header the client sent. */
  stripeVersion: string | undefined;
  /** Form fields of a POST, keys in Stripe's bracket notation (e.g. `metadata[userId]`). */
  form: Record<string, string>;
}

export interface SignedEvent {
  id: string;
  payload: string;
  signature: string;
}

export interface FakeStripe {
  port: number;
  requests: FakeStripeRequest[];
  /** Form fields of every POST /v1/checkout/sessions, in order. */
  createdSessions: Array<Record<string, string>>;
  session(id: string): StripeObject;
  subscription(id: string): StripeObject;
  /** The customer pays: the session completes, and subscription mode starts an active subscription. */
  completeSession(id: string): StripeObject;
  /** A subscription as Stripe would hold it; `fields` override the defaults. */
  createSubscription(fields?: StripeObject): StripeObject;
  updateSubscription(id: string, patch: StripeObject): StripeObject;
  createInvoice(subscriptionId: string | null, fields?: StripeObject): StripeObject;
  /** The next `count` API requests answer 500, as during a Stripe incident. */
  failNext(count: number): void;
  signedEvent(type: string, object: StripeObject, secret: string): SignedEvent;
  close(): Promise<void>;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function notFound(response: ServerResponse, what: string): void {
  send(response, 404, {
    error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` },
  });
}

/** The fields under one key of a bracket-notation form: `metadata[userId]` -> { userId }. */
function bracketed(form: Record<string, string>, prefix: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) {
    if (key.startsWith(`${prefix}[`) && key.endsWith(']') && !key.slice(prefix.length + 1, -1).includes('['))
      fields[key.slice(prefix.length + 1, -1)] = value;
  }
  return fields;
}

async function readForm(request: IncomingMessage): Promise<Record<string, string>> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return Object.fromEntries(new URLSearchParams(body));
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const sessions = new Map<string, StripeObject>();
  const subscriptions = new Map<string, StripeObject>();
  const invoices = new Map<string, StripeObject>();
  /** subscription_data[metadata] of each session, copied onto the subscription it starts. */
  const subscriptionMetadata = new Map<string, StripeObject>();
  const requests: FakeStripeRequest[] = [];
  const createdSessions: Array<Record<string, string>> = [];
  const signer = new Stripe('sk_test_fake_signer');
  let failures = 0;

  function createSession(form: Record<string, string>): StripeObject {
    const id = newId('cs_test');
    const session = {
      id,
      object: 'checkout.session',
      url: `https://checkout.stripe.com/c/pay/${id}`,
      mode: form.mode,
      status: 'open',
      payment_status: 'unpaid',
      customer: null,
      customer_email: form.customer_email ?? null,
      subscription: null,
      client_reference_id: form.client_reference_id ?? null,
      metadata: bracketed(form, 'metadata'),
      created: nowSeconds(),
    };
    sessions.set(id, session);
    subscriptionMetadata.set(id, bracketed(form, 'subscription_data[metadata]'));
    return session;
  }

  function createSubscription(fields: StripeObject = {}): StripeObject {
    const id = (fields.id as string | undefined) ?? newId('sub');
    const subscription: StripeObject = {
      id,
      object: 'subscription',
      status: 'active',
      customer: newId('cus'),
      cancel_at_period_end: false,
      current_period_end: nowSeconds() + 30 * 86_400,
      metadata: {},
      items: { object: 'list', data: [{ id: newId('si'), object: 'subscription_item' }] },
      ...fields,
    };
    subscriptions.set(id, subscription);
    return subscription;
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const method = request.method ?? 'GET';
    const form = method === 'POST' ? await readForm(request) : {};
    const version = request.headers['stripe-version'];
    requests.push({ method, path, stripeVersion: Array.isArray(version) ? version[0] : version, form });
    if (failures > 0) {
      failures -= 1;
      return send(response, 500, { error: { type: 'api_error', message: 'Fake Stripe incident' } });
    }

    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      createdSessions.push(form);
      return send(response, 200, createSession(form));
    }
    if (method === 'GET' && (match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const session = sessions.get(match[1]!);
      return session ? send(response, 200, session) : notFound(response, 'checkout.session');
    }
    if ((match = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const subscription = subscriptions.get(match[1]!);
      if (!subscription) return notFound(response, 'subscription');
      if (method === 'POST' && form.cancel_at_period_end)
        subscription.cancel_at_period_end = form.cancel_at_period_end === 'true';
      return send(response, 200, subscription);
    }
    if (method === 'GET' && (match = /^\/v1\/invoices\/([^/]+)$/.exec(path))) {
      const invoice = invoices.get(match[1]!);
      return invoice ? send(response, 200, invoice) : notFound(response, 'invoice');
    }
    send(response, 404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` },
    });
  }

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => send(response, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The fake Stripe API did not get a port');

  function existing(map: Map<string, StripeObject>, id: string, what: string): StripeObject {
    const object = map.get(id);
    if (!object) throw new Error(`The fake Stripe API has no ${what} ${id}`);
    return object;
  }

  return {
    port: address.port,
    requests,
    createdSessions,
    session: (id) => existing(sessions, id, 'checkout session'),
    subscription: (id) => existing(subscriptions, id, 'subscription'),
    completeSession(id) {
      const session = existing(sessions, id, 'checkout session');
      session.status = 'complete';
      session.payment_status = 'paid';
      session.customer = newId('cus');
      if (session.mode === 'subscription') {
        const subscription = createSubscription({ customer: session.customer, metadata: subscriptionMetadata.get(id) });
        session.subscription = subscription.id;
      }
      return session;
    },
    createSubscription,
    updateSubscription(id, patch) {
      return Object.assign(existing(subscriptions, id, 'subscription'), patch);
    },
    createInvoice(subscriptionId, fields = {}) {
      const id = newId('in');
      const invoice = { id, object: 'invoice', status: 'open', subscription: subscriptionId, ...fields };
      invoices.set(id, invoice);
      return invoice;
    },
    failNext(count) {
      failures = count;
    },
    signedEvent(type, object, secret) {
      const id = newId('evt');
      const payload = JSON.stringify({
        id,
        object: 'event',
        type,
        api_version: '2023-10-16',
        created: nowSeconds(),
        livemode: false,
        data: { object },
      });
      return { id, payload, signature: signer.webhooks.generateTestHeaderString({ payload, secret }) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
