// Who is asking: the signed-in user as Better Auth verifies the session cookie of the
// deployment's own name, and the one hook that gates every dashboard API (401 without a user,
// 403 without an active subscription).
//
// Nothing here is remembered under raw cookie text. The per-request session read is paid down
// by Better Auth's own session cookie cache (auth.ts: a signed `session_data` cookie, read
// without the database for SESSION_CACHE_SECONDS); the subscription check is remembered by the
// user id Better Auth verified, for a few seconds. A sign-out, revocation or password change
// in this process (sessionChanges) turns every cached session and subscription stale at once.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fromNodeHeaders } from 'better-auth/node';
import { LRUCache } from 'lru-cache';
import { forbidden, unauthenticated } from '../errors/domain.ts';
import { NOT_SIGNED_IN, type SessionUser } from '../http/requestUser.ts';
import type { SubscriptionSummary } from '../../shared/schemas/me.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import type { Auth } from './auth.ts';

export type { SessionUser };

declare module 'fastify' {
  interface FastifyRequest {
    /** The session Better Auth verified for this request (set with `user` by the guards). */
    authSession?: { id: string; token: string };
  }
}

/**
 * The session token that the first cookie of exactly `name` (Better Auth's session cookie on
 * this deployment: `(await auth.$context).authCookies.sessionToken.name`) carries (Better Auth reads the
 * first one too), or null. The value is `token.signature`, URL-encoded; the signature is not
 * checked here: callers use the token only as a key (a rate limit's) or look it up.
 */
export function sessionTokenIn(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
    const dot = value.lastIndexOf('.');
    return dot > 0 ? value.slice(0, dot) : null;
  }
  return null;
}

/**
 * The request's user as Better Auth verifies it, or null. Cookies Better Auth sets while it
 * reads the session (a refreshed cookie cache, an expired session's cookies cleared) go out
 * with this reply.
 */
export async function sessionUser(
  auth: Auth,
  request: FastifyRequest,
  reply?: FastifyReply,
): Promise<SessionUser | null> {
  const { headers, response: session } = await auth.api.getSession({
    headers: fromNodeHeaders(request.headers),
    returnHeaders: true,
  });
  const cookies = headers.getSetCookie();
  if (reply && cookies.length > 0) reply.header('set-cookie', cookies);
  if (!session) return null;
  const { user } = session;
  request.authSession = { id: session.session.id, token: session.session.token };
  return {
    id: user.id,
    email: user.email,
    username: (user as { username?: string | null }).username ?? null,
    emailVerified: user.emailVerified,
  };
}

/** A preHandler hook that signs the request's user in (401 without a session). */
export function requireSignedIn(auth: Auth) {
  return async function requireSignedInHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const user = await sessionUser(auth, request, reply);
    if (!user) throw unauthenticated(NOT_SIGNED_IN);
    request.user = user;
  };
}

/** How long a user's active subscription is taken as read; also how long a revocation elsewhere may take. */
export const SUBSCRIPTION_CACHE_TTL_MS = 5_000;

/**
 * Whether a user (by the id Better Auth verified) holds an active subscription, read from the
 * database at most once per TTL and never past the period end. Concurrent checks of one user
 * share one read (lru-cache's fetch).
 */
export interface SubscriptionAccess {
  isActive(userId: string): Promise<boolean>;
  clear(): void;
}

export function createSubscriptionAccess(
  /** The user's current subscription (billing's currentSubscription), null without one. */
  read: (userId: string) => Promise<SubscriptionSummary | null>,
  options: { ttlMs?: number; maxUsers?: number } = {},
): SubscriptionAccess {
  const ttlMs = options.ttlMs ?? SUBSCRIPTION_CACHE_TTL_MS;
  const cache = new LRUCache<string, true>({
    max: options.maxUsers ?? 50_000,
    ttl: ttlMs,
    // Only a grant is kept (a refusal answers undefined, which is not stored): a user who just
    // paid must not wait for the TTL.
    fetchMethod: async (userId, _stale, { options: entry }) => {
      const subscription = await read(userId);
      if (!subscriptionState(subscription).hasActiveSubscription) return undefined;
      const periodEnd = subscription?.current_period_end
        ? Date.parse(subscription.current_period_end)
        : Number.POSITIVE_INFINITY;
      entry.ttl = Math.max(1, Math.min(ttlMs, periodEnd - Date.now()));
      return true;
    },
  });
  return {
    async isActive(userId) {
      return (await cache.fetch(userId)) === true;
    },
    clear() {
      cache.clear();
    },
  };
}

/** The dashboard gate: a verified session (401) and an active subscription (403). */
export function requireSubscription(auth: Auth, access: SubscriptionAccess) {
  return async function requireSubscriptionHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const user = await sessionUser(auth, request, reply);
    if (!user) throw unauthenticated(NOT_SIGNED_IN);
    if (!(await access.isActive(user.id))) throw forbidden('An active subscription is required');
    request.user = user;
  };
}
