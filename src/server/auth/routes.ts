// HTTP routes of accounts: Better Auth under /api/auth/* (rate-limited where credentials or
// e-mails are involved), docs/SPEC.md's POST /api/auth/register, the auth state for screens
// (GET /api/me), and the reset-password helpers the /reset-password page uses.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { fromNodeHeaders } from 'better-auth/node';
import type { Database } from '../db/client.ts';
import { DOMAIN_ERROR_STATUS, DomainError } from '../errors/domain.ts';
import { HttpError } from '../http/errors.ts';
import { latestOutboxMessages, type Mailer } from '../mail/service.ts';
import {
  meResponse,
  outboxQuery,
  outboxResponse,
  registerRequest,
  registerResponse,
  resetPasswordRequest,
  resetPasswordResponse,
  resetTokenQuery,
  resetTokenResponse,
  type MeResponse,
} from '../../shared/schemas/auth.ts';
import type { SubscriptionSummary } from '../../shared/schemas/me.ts';
import { betterAuthBodies, checkAuthBody } from './bodies.ts';
import {
  changeSignedInPassword,
  registerUser,
  resetLinkValid,
  resetPasswordWithToken,
  sessionUser,
  type Auth,
  type SessionChanges,
} from './service.ts';
import { authRateLimiter, DEFAULT_AUTH_RATE_LIMITS, type AuthRateLimitPolicy, type LimitKind } from './rateLimits.ts';

export interface AuthRoutesOptions {
  auth: Auth;
  db: Database;
  mailer: Mailer;
  publicUrl: string;
  /** Counted by the app's rate limits (http/rateLimit.ts), under `<namespace>auth:...` keys. */
  rateLimits?: AuthRateLimitPolicy;
  /** Test-only: serve GET /api/test/outbox (never enable in production). */
  exposeOutbox?: boolean;
  /**
   * A user's current subscription (GET /api/me). Given by the composition root (billing's
   * service), so auth does not depend on billing, whose routes sign users in through auth.
   */
  currentSubscription: (userId: string) => Promise<SubscriptionSummary | null>;
  /** Told of every successful change of sessions or passwords (cached sessions go stale). */
  sessionChanges?: SessionChanges;
}

/**
 * Better Auth endpoints that take credentials or send e-mail, and what each is limited on
 * besides the client IP (rateLimits.ts): sign-in counts failures per e-mail, the mail-sending
 * ones count every request per e-mail, those that check the current password count failures
 * per session, the rest count per IP only.
 */
export const LIMITED_AUTH_ENDPOINTS: Record<string, LimitKind> = {
  '/sign-in/email': 'sign-in',
  '/sign-up/email': 'email',
  '/request-password-reset': 'email',
  '/send-verification-email': 'email',
  '/reset-password': 'ip',
  '/change-password': 'password',
  '/change-email': 'ip',
  '/verify-password': 'password',
  '/delete-user': 'password',
};

/** Bodies of account calls are small: a few short fields. */
const AUTH_BODY_LIMIT = 16 * 1024;

const BASE_PATH = '/api/auth';

/**
 * The endpoint a path under /api/auth names, spelled loosely (decoded, lower case, no trailing
 * slash): the catch-all route applies the limits and checks of that endpoint to every other
 * spelling too, whatever Better Auth's router makes of it.
 */
function looseEndpoint(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // not valid percent-encoding: compare as sent
  }
  return decoded.toLowerCase().replace(/\/+$/, '') || '/';
}

/** Our own 4xx answers on Better Auth's paths: with a code like Better Auth's own. */
class AuthError extends HttpError {
  constructor(
    statusCode: number,
    message: string,
    readonly code: string,
  ) {
    super(statusCode, message);
  }
}

function statusCode(status: number): string {
  return (STATUS_CODES[status] ?? 'Request failed').toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

/** Calls Better Auth's fetch-style handler with the (checked) body. */
async function callBetterAuth(
  auth: Auth,
  publicUrl: string,
  request: FastifyRequest,
  body: unknown,
): Promise<Response> {
  const url = new URL(request.url, publicUrl);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && body !== undefined;
  return auth.handler(
    new Request(url, {
      method: request.method,
      headers: fromNodeHeaders(request.headers),
      body: hasBody ? JSON.stringify(body) : undefined,
    }),
  );
}

/**
 * A login refused for an unverified e-mail has just sent a new verification link
 * (emailVerification.sendOnSignIn in auth.ts): the answer says so instead of Better Auth's bare
 * 'Email not verified'. Other answers keep Better Auth's text.
 */
function explainRefusal(endpoint: string, body: unknown, code: string): string | undefined {
  if (endpoint !== '/sign-in/email' || code !== 'EMAIL_NOT_VERIFIED') return undefined;
  const email = (body as { email?: unknown } | undefined)?.email;
  if (typeof email !== 'string' || !email.trim()) return undefined;
  return `Your e-mail is not verified yet. We sent a new verification link to ${email.trim()}.`;
}

/**
 * Copies Better Auth's answer back. Errors keep Better Auth's own `{ message, code }` (its
 * official client reads those) and add docs/SPEC.md's `error` text, which our web app reads;
 * `explain` may give a refusal a clearer text (both fields), keyed by its code.
 */
async function sendBetterAuthAnswer(
  response: Response,
  reply: FastifyReply,
  explain: (code: string) => string | undefined = () => undefined,
) {
  reply.code(response.status);
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie' && key !== 'content-length') reply.header(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  const text = await response.text();
  if (response.status >= 400) {
    let parsed: Record<string, unknown> = {};
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as Record<string, unknown>;
    } catch {
      // not JSON (the router's bare 404): the status says it all
    }
    const code = typeof parsed.code === 'string' ? parsed.code : statusCode(response.status);
    const message =
      explain(code) ??
      (typeof parsed.message === 'string' && parsed.message
        ? parsed.message
        : typeof parsed.error === 'string' && parsed.error
          ? parsed.error
          : response.statusText || 'Request failed');
    return reply.type('application/json').send({ ...parsed, message, code, error: message });
  }
  return reply.send(text);
}

export async function authRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const { auth, db, publicUrl } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const limiter = authRateLimiter(
    app,
    options.rateLimits ?? DEFAULT_AUTH_RATE_LIMITS,
    // The session cookie as Better Auth names it on this deployment (`__Secure-` over https).
    (await auth.$context).authCookies.sessionToken.name,
  );
  // Sign-out, session revocation, password changes and account deletion are all POSTs here:
  // once one succeeds, no cached session or grant may outlive it.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method === 'POST' && reply.statusCode < 400) options.sessionChanges?.changed();
    done();
  });
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= AUTH_BODY_LIMIT;
  });

  // Better Auth's own endpoints, in a scope whose error answers carry `message` and `code`
  // as Better Auth's do (docs/SPEC.md's /api/auth/register below keeps its own shape).
  await app.register(async (scope) => {
    scope.setErrorHandler(async (error: FastifyError, _request, reply) => {
      const status = error instanceof DomainError ? DOMAIN_ERROR_STATUS[error.kind] : (error.statusCode ?? 500);
      // Server faults go to the app's handler (logging, 503 when the database is down).
      if (status >= 500) throw error;
      const message = error.message || STATUS_CODES[status] || 'Request failed';
      const code = error instanceof AuthError ? error.code : statusCode(status);
      return reply.code(status).send({ error: message, message, code });
    });

    async function handle(request: FastifyRequest, reply: FastifyReply, endpoint: string) {
      const checked =
        request.method === 'POST' ? checkAuthBody(endpoint, request.body) : { ok: true as const, body: undefined };
      if (!checked.ok) throw new AuthError(400, checked.message, 'VALIDATION_ERROR');
      const kind = request.method === 'POST' ? LIMITED_AUTH_ENDPOINTS[endpoint] : undefined;
      const settle = kind ? await limiter.attempt(request, reply, kind) : undefined;
      const response = await callBetterAuth(auth, publicUrl, request, checked.body);
      await settle?.(response.status);
      return sendBetterAuthAnswer(response, reply, (code) => explainRefusal(endpoint, checked.body, code));
    }

    for (const endpoint of new Set([...Object.keys(LIMITED_AUTH_ENDPOINTS), ...Object.keys(betterAuthBodies)])) {
      scope.post(`${BASE_PATH}${endpoint}`, (request, reply) => handle(request, reply, endpoint));
    }
    scope.route({
      method: ['GET', 'POST'],
      url: `${BASE_PATH}/*`,
      handler: (request, reply) =>
        handle(request, reply, looseEndpoint(request.url.split(/[?#]/)[0]!.slice(BASE_PATH.length))),
    });
  });

  routes.post(
    '/api/auth/register',
    {
      preHandler: limiter.preHandler('email'),
      schema: { body: registerRequest, response: { 200: registerResponse } },
    },
    // A refusal answers docs/SPEC.md's { success: false, error, user: null } (auth/service.ts).
    async (request) => registerUser(auth, fromNodeHeaders(request.headers), request.body),
  );

  routes.get('/api/me', { schema: { response: { 200: meResponse } } }, async (request, reply): Promise<MeResponse> => {
    const current = await sessionUser(auth, request, reply);
    if (!current) return { user: null, subscription: null };
    return {
      user: { id: current.id, email: current.email, username: current.username },
      subscription: await options.currentSubscription(current.id),
    };
  });

  routes.get(
    '/api/account/reset-token',
    { schema: { querystring: resetTokenQuery, response: { 200: resetTokenResponse } } },
    async (request) => ({ valid: await resetLinkValid(db, request.query.token) }),
  );

  routes.post(
    '/api/account/reset-password',
    { schema: { body: resetPasswordRequest, response: { 200: resetPasswordResponse } } },
    async (request, reply) => {
      const { newPassword, currentPassword, token } = request.body;
      // A signed-in change checks the current password: its failures count per session.
      const settle = await limiter.attempt(request, reply, token ? 'ip' : 'password');
      if (token) {
        const cookies = await resetPasswordWithToken(auth, db, token, newPassword);
        if (cookies.length > 0) reply.header('set-cookie', cookies);
        return { success: true as const };
      }

      const current = await sessionUser(auth, request);
      if (!current)
        throw new DomainError(
          'unauthenticated',
          'Your reset link is missing or has expired. Please request a new one.',
        );
      // Current password required; other sessions and reset links end (auth/passwords.ts).
      const cookies = await changeSignedInPassword(
        auth,
        fromNodeHeaders(request.headers),
        currentPassword,
        newPassword,
      );
      await settle(200);
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      return { success: true as const };
    },
  );

  if (options.exposeOutbox && options.mailer.kind === 'outbox') {
    routes.get(
      '/api/test/outbox',
      { schema: { querystring: outboxQuery, response: { 200: outboxResponse } } },
      async (request) => ({
        messages: await latestOutboxMessages(db, request.query.to),
      }),
    );
  }
}
