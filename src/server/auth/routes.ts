// HTTP routes of accounts: Better Auth under /api/auth/* (rate-limited where credentials or
// e-mails are involved), SPEC.md's POST /api/auth/register, the auth state for screens
// (GET /api/me), and the reset-password helpers the /reset-password page uses.
import { and, eq, gt } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { fromNodeHeaders } from 'better-auth/node';
import { isAPIError } from 'better-auth/api';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { user, verification } from '../db/schema.ts';
import type { Database } from '../db/client.ts';
import { HttpError } from '../http/errors.ts';
import { latestOutboxMessages, type Mailer } from '../mail/mailer.ts';
import { registerRequest, resetPasswordRequest } from '../../shared/schemas/auth.ts';
import type { Auth } from './auth.ts';
import { currentSubscription, sessionUser, type AccessCache } from './guards.ts';
import { changeSignedInPassword } from './passwords.ts';
import { authRateLimiter, DEFAULT_AUTH_RATE_LIMITS, type AuthRateLimitPolicy } from './rateLimits.ts';

export interface AuthRoutesOptions {
  auth: Auth;
  db: Database;
  mailer: Mailer;
  publicUrl: string;
  redis?: Redis;
  rateLimits?: AuthRateLimitPolicy;
  /** Test-only: serve GET /api/test/outbox (never enable in production). */
  exposeOutbox?: boolean;
  /** The dashboard gate's grants: cleared on every change of sessions or passwords. */
  accessCache?: AccessCache;
}

/** Better Auth endpoints that take credentials or send e-mail: these are rate-limited. */
const LIMITED_AUTH_ENDPOINTS = ['/sign-in/email', '/sign-up/email', '/request-password-reset', '/reset-password', '/send-verification-email'];

/** Passes a Fastify request to Better Auth's fetch-style handler and copies the answer back. */
async function forwardToBetterAuth(auth: Auth, publicUrl: string, request: FastifyRequest, reply: FastifyReply) {
  const url = new URL(request.url, publicUrl);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== undefined;
  const response = await auth.handler(
    new Request(url, {
      method: request.method,
      headers: fromNodeHeaders(request.headers),
      body: hasBody ? JSON.stringify(request.body) : undefined,
    }),
  );
  reply.code(response.status);
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie' && key !== 'content-length') reply.header(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  const text = await response.text();
  if (response.status >= 400) {
    // Keep SPEC.md's error shape while passing the provider's own message through.
    let message = response.statusText || 'Request failed';
    try {
      const parsed = JSON.parse(text) as { message?: string; error?: string };
      message = parsed.message ?? parsed.error ?? message;
    } catch {
      // not JSON: keep the status text
    }
    return reply.type('application/json').send({ error: message });
  }
  return reply.send(text);
}

function providerMessage(error: unknown): { status: number; message: string } | null {
  if (isAPIError(error)) {
    const body = error.body as { message?: string } | undefined;
    return { status: error.statusCode, message: body?.message ?? error.message };
  }
  return null;
}

export async function authRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const { auth, db, publicUrl } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const limiter = await authRateLimiter(app, options.rateLimits ?? DEFAULT_AUTH_RATE_LIMITS, options.redis);
  // Sign-out, session revocation, password changes and account deletion are all POSTs here:
  // once one succeeds, no cached dashboard grant may outlive it.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'POST' && reply.statusCode < 400) options.accessCache?.clear();
  });

  for (const endpoint of LIMITED_AUTH_ENDPOINTS) {
    app.post(`/api/auth${endpoint}`, { preHandler: limiter }, (request, reply) => forwardToBetterAuth(auth, publicUrl, request, reply));
  }
  app.route({
    method: ['GET', 'POST'],
    url: '/api/auth/*',
    handler: (request, reply) => forwardToBetterAuth(auth, publicUrl, request, reply),
  });

  routes.post('/api/auth/register', { preHandler: limiter, schema: { body: registerRequest } }, async (request, reply) => {
    const { email, password, username } = request.body;
    try {
      const result = await auth.api.signUpEmail({
        body: { email, password, name: username, username, callbackURL: '/' },
        headers: fromNodeHeaders(request.headers),
      });
      return reply.send({
        success: true,
        error: null,
        user: { id: result.user.id, email: result.user.email, username },
        // E-mail verification is required, so sign-up never opens a session by itself.
        session: null,
      });
    } catch (error) {
      const known = providerMessage(error);
      if (!known) throw error;
      return reply.code(known.status).send({ success: false, error: known.message || 'Failed to sign up', user: null });
    }
  });

  routes.get('/api/me', async (request) => {
    const current = await sessionUser(auth, request);
    if (!current) return { user: null, subscription: null };
    return {
      user: { id: current.id, email: current.email, username: current.username },
      subscription: await currentSubscription(db, current.id),
    };
  });

  routes.get('/api/account/reset-token', { schema: { querystring: z.object({ token: z.string().min(1).max(200) }) } }, async (request) => {
    const row = await findResetToken(db, request.query.token);
    return { valid: row !== null };
  });

  routes.post(
    '/api/account/reset-password',
    { preHandler: limiter, schema: { body: resetPasswordRequest } },
    async (request, reply) => {
      const { newPassword, currentPassword, token } = request.body;
      if (token) {
        const row = await findResetToken(db, token);
        if (!row) throw new HttpError(400, 'This reset link is invalid or has expired. Please request a new one.');
        const [account] = await db.select({ email: user.email }).from(user).where(eq(user.id, row.value));
        try {
          await auth.api.resetPassword({ body: { newPassword, token } });
        } catch (error) {
          const known = providerMessage(error);
          if (!known) throw error;
          throw new HttpError(known.status, known.message);
        }
        // Every old session was revoked; open a fresh one so the trader continues signed in.
        if (account) {
          const signIn = await auth.api.signInEmail({ body: { email: account.email, password: newPassword }, returnHeaders: true });
          const cookies = signIn.headers.getSetCookie();
          if (cookies.length > 0) reply.header('set-cookie', cookies);
        }
        return { success: true };
      }

      const current = await sessionUser(auth, request);
      if (!current) throw new HttpError(401, 'Your reset link is missing or has expired. Please request a new one.');
      // Current password required; other sessions and reset links end (auth/passwords.ts).
      const cookies = await changeSignedInPassword(auth, fromNodeHeaders(request.headers), currentPassword, newPassword);
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      return { success: true };
    },
  );

  if (options.exposeOutbox && options.mailer.kind === 'outbox') {
    routes.get('/api/test/outbox', { schema: { querystring: z.object({ to: z.string().optional() }) } }, async (request) => ({
      messages: await latestOutboxMessages(db, request.query.to),
    }));
  }
}

async function findResetToken(db: Database, token: string) {
  const [row] = await db
    .select({ value: verification.value })
    .from(verification)
    .where(and(eq(verification.identifier, `reset-password:${token}`), gt(verification.expiresAt, new Date())));
  return row ?? null;
}
