// Who is asking: the signed-in user from the Better Auth session cookie, and the one hook
// that gates every dashboard API (401 without a user, 403 without an active subscription).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fromNodeHeaders } from 'better-auth/node';
import { currentSubscription } from '../billing/service.ts';
import type { Database } from '../db/client.ts';
import { HttpError } from '../http/errors.ts';
import { NOT_SIGNED_IN, requireUser, type SessionUser } from '../http/requestUser.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import type { Auth } from './auth.ts';

export async function sessionUser(auth: Auth, request: FastifyRequest): Promise<SessionUser | null> {
  const session = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
  if (!session) return null;
  const { user } = session;
  return {
    id: user.id,
    email: user.email,
    username: (user as { username?: string | null }).username ?? null,
    emailVerified: user.emailVerified,
  };
}

export type { SessionUser };

/** A preHandler hook that signs the request's user in (401 without a session). */
export function requireSignedIn(auth: Auth) {
  return async function requireSignedInHook(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const user = await sessionUser(auth, request);
    if (!user) throw new HttpError(401, NOT_SIGNED_IN);
    request.user = user;
  };
}

/**
 * Recently granted dashboard access, by session cookie. The gate otherwise costs three
 * database queries (session, user, subscription) on every dashboard call, which dominated the
 * cost of a cached price poll. Only grants are kept, for a few seconds and never past the
 * subscription's period end; a sign-out, password reset or any other auth change in this
 * process clears it at once, and other instances see such a change within the TTL.
 */
export interface AccessCache {
  get(sessionCookie: string): SessionUser | undefined;
  grant(sessionCookie: string, user: SessionUser, until: number): void;
  clear(): void;
  /**
   * Told after every clear, i.e. after every successful sign-out, session revocation or
   * password change in this process: holders of longer-lived access (the live alert streams)
   * re-check theirs. Returns the unsubscribe function.
   */
  onClear(listener: () => void): () => void;
}

/** How long a grant is reused; also how long an out-of-band revocation may take to bite. */
export const ACCESS_CACHE_TTL_MS = 5_000;

export function createAccessCache(
  ttlMs = ACCESS_CACHE_TTL_MS,
  maxEntries = 50_000,
  now: () => number = Date.now,
): AccessCache {
  const entries = new Map<string, { user: SessionUser; until: number }>();
  const listeners = new Set<() => void>();
  return {
    get(sessionCookie) {
      const entry = entries.get(sessionCookie);
      if (!entry) return undefined;
      if (entry.until > now()) return entry.user;
      entries.delete(sessionCookie);
      return undefined;
    },
    grant(sessionCookie, user, until) {
      // Bounded: when full, forget the oldest grant (Map keeps insertion order).
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(sessionCookie, { user, until: Math.min(until, now() + ttlMs) });
    },
    clear() {
      entries.clear();
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // A listener's failure must not fail the auth answer that cleared the cache.
        }
      }
    },
    onClear(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Whether a Cookie header's session holds a current grant in `cache` (no database asked). */
export function hasCachedAccess(cache: AccessCache, cookieHeader: string | undefined): boolean {
  const cookie = sessionCookieIn(cookieHeader);
  return cookie !== null && cache.get(cookie) !== undefined;
}

/** The Better Auth session cookie (with its signature), or null. */
export function sessionCookieOf(request: FastifyRequest): string | null {
  return sessionCookieIn(request.headers.cookie);
}

/** sessionCookieOf, given the Cookie header itself. */
export function sessionCookieIn(header: string | undefined): string | null {
  if (!header) return null;
  const match = /(?:^|;\s*)((?:__Secure-)?better-auth\.session_token)=([^;]+)/.exec(header);
  return match ? `${match[1]}=${match[2]}` : null;
}

/**
 * The session token a session cookie (as sessionCookieOf returns it) carries: Better Auth's
 * cookie value is the token and its signature, `token.signature`, URL-encoded. Null when the
 * value has no such shape.
 */
export function sessionTokenOf(sessionCookie: string): string | null {
  let value: string;
  try {
    value = decodeURIComponent(sessionCookie.slice(sessionCookie.indexOf('=') + 1));
  } catch {
    return null;
  }
  const dot = value.lastIndexOf('.');
  return dot > 0 ? value.slice(0, dot) : null;
}

export function requireSubscription(auth: Auth, db: Database, cache?: AccessCache) {
  const userHook = requireSignedIn(auth);
  /** Checks under way, by session cookie: a page's burst of calls with one cookie shares one. */
  const checking = new Map<string, Promise<SessionUser>>();
  /** Bumped by every clear (a sign-out, revocation, password change in this process). */
  let clears = 0;
  cache?.onClear(() => {
    clears++;
    // A check begun before the change must not answer requests made after it.
    checking.clear();
  });

  async function check(request: FastifyRequest, reply: FastifyReply, cookie: string): Promise<SessionUser> {
    const startedAt = clears;
    await userHook(request, reply);
    const user = requireUser(request);
    const subscription = await currentSubscription(db, user.id);
    if (!subscriptionState(subscription).hasActiveSubscription) {
      throw new HttpError(403, 'An active subscription is required');
    }
    const periodEnd = subscription?.current_period_end
      ? Date.parse(subscription.current_period_end)
      : Number.POSITIVE_INFINITY;
    // Nor may it be remembered: the change may have ended this very session.
    if (startedAt === clears) cache?.grant(cookie, user, periodEnd);
    return user;
  }

  async function slowPath(request: FastifyRequest, reply: FastifyReply, cookie: string): Promise<void> {
    if (!cache) {
      await check(request, reply, cookie);
      return;
    }
    // Shared only while it runs (its answer, grant or refusal, is this moment's answer for
    // the cookie); a check that starts after it reads the database again.
    let pending = checking.get(cookie);
    if (!pending) {
      const started: Promise<SessionUser> = check(request, reply, cookie).finally(() => {
        if (checking.get(cookie) === started) checking.delete(cookie);
      });
      pending = started;
      checking.set(cookie, pending);
    }
    request.user = await pending;
  }

  // A callback hook: a cached grant (nearly every request) passes without a promise.
  return function requireSubscriptionHook(
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const cookie = sessionCookieOf(request);
    if (!cookie) return done(new HttpError(401, 'Please log in first'));
    const granted = cache?.get(cookie);
    if (granted) {
      request.user = granted;
      return done();
    }
    slowPath(request, reply, cookie).then(() => done(), done);
  };
}
