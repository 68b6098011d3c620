// Rate limits for the auth endpoints, so neither one address nor one account can be
// hammered. Counters live in Redis when configured (shared by all instances), in memory
// otherwise; each is a fixed window that starts with its first hit. Exceeding a limit
// answers 429 with a clear message and a Retry-After header.
//
// Three counters:
// - per client IP (IPv6 by /64, which one subscriber line gets whole): every attempt on a
//   limited endpoint counts;
// - per e-mail, sign-in: only failed attempts count and a successful sign-in clears the
//   counter (as Better Auth and GoTrue do), so a trader who signs in often is never locked
//   out while a password guesser is;
// - per e-mail, mail-sending endpoints (sign-up, password reset request, verification
//   resend): every request counts, since each one sends an e-mail to that address.
//
// Redis keys are `${keyPrefix}auth:<counter>:<id>`, the e-mail part hashed so no address
// sits in Redis in clear.
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimited } from '../errors/domain.ts';
import { counterStore, waitText } from '../http/rateLimit.ts';
import { sessionTokenIn } from './guards.ts';

export interface AuthRateLimitPolicy {
  perIp: { max: number; windowMs: number };
  perEmail: { max: number; windowMs: number };
}

export const DEFAULT_AUTH_RATE_LIMITS: AuthRateLimitPolicy = {
  perIp: { max: 60, windowMs: 60_000 },
  perEmail: { max: 10, windowMs: 15 * 60_000 },
};

export const DEFAULT_KEY_PREFIX = 'watos:';

/**
 * What an endpoint is limited on besides the client IP: `sign-in` failures per e-mail,
 * `email` (mail-sending) requests per e-mail, `password` failures per session (a check of
 * the current password by someone holding a session, which may be a stolen one).
 */
export type LimitKind = 'ip' | 'sign-in' | 'email' | 'password';

function emailOf(request: FastifyRequest): string | undefined {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email.trim() ? email.trim().toLowerCase() : undefined;
}

function hashed(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}

/** The IPv6 /64 an address belongs to (its first four groups); other addresses as they are. */
export function clientKey(ip: string): string {
  const address = ip.split('%')[0]!;
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head, tail] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || '0', 16).toString(16))
    .join(':')}::/64`;
}

export interface AuthRateLimiter {
  /**
   * Counts one attempt of `kind` (throws a rate-limited DomainError, a 429, once a limit is exceeded) and
   * returns what to call with the answer's status once the attempt is done.
   */
  attempt(request: FastifyRequest, reply: FastifyReply, kind: LimitKind): Promise<(status: number) => Promise<void>>;
  /** The same as a pre-handler, for our own routes. */
  preHandler(kind: LimitKind): preHandlerAsyncHookHandler;
}

export function authRateLimiter(
  policy: AuthRateLimitPolicy,
  redis: Redis | undefined,
  keyPrefix = DEFAULT_KEY_PREFIX,
  /** The deployment's session cookie, as Better Auth names it (its context's authCookies.sessionToken). */
  sessionCookie = 'better-auth.session_token',
): AuthRateLimiter {
  const store = counterStore(redis);
  const key = (counter: string, id: string) => `${keyPrefix}auth:${counter}:${id}`;

  async function count(reply: FastifyReply, name: string, limit: { max: number; windowMs: number }) {
    const { count: used, ttlMs } = await store.hit(name, limit.windowMs);
    if (used > limit.max) {
      reply.header('retry-after', Math.max(1, Math.ceil(ttlMs / 1000)));
      throw rateLimited(`Too many attempts. Please wait ${waitText(ttlMs)} and try again.`, ttlMs / 1000);
    }
  }

  async function attempt(request: FastifyRequest, reply: FastifyReply, kind: LimitKind) {
    await count(reply, key('ip', clientKey(request.ip)), policy.perIp);
    if (kind === 'password') {
      // One account's session cannot make more sessions without the password, so counting per
      // session bounds the guesses of whoever holds it (from any number of addresses).
      // The token of the cookie Better Auth reads, not of whichever session-named cookie comes
      // first: another cookie of a similar name in front must not start a fresh count.
      const session = sessionTokenIn(request.headers.cookie, sessionCookie);
      return session ? countFailures(reply, key('password', hashed(session))) : async () => undefined;
    }
    const email = kind === 'ip' ? undefined : emailOf(request);
    if (!email) return async () => undefined;
    if (kind === 'email') {
      await count(reply, key('email', hashed(email)), policy.perEmail);
      return async () => undefined;
    }
    return countFailures(reply, key('sign-in', hashed(email)));
  }

  /**
   * A password check (sign-in, a change with the current password): the attempt is counted
   * before it runs (so a burst of parallel guesses cannot all slip under the limit), and a
   * success clears the count: only failures remain.
   */
  async function countFailures(reply: FastifyReply, failures: string) {
    await count(reply, failures, policy.perEmail);
    return async (status: number) => {
      if (status >= 200 && status < 300) await store.reset(failures);
    };
  }

  return {
    attempt,
    preHandler(kind) {
      return async function limitAuthAttempts(request, reply) {
        await attempt(request, reply, kind);
      };
    },
  };
}
