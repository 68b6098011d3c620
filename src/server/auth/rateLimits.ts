// Rate limits for the auth endpoints, so neither one address nor one account can be
// hammered. The counters are @fastify/rate-limit's (http/rateLimit.ts): in Redis when
// configured (shared by all instances), in memory otherwise; each is a fixed window that
// starts with its first hit. Exceeding a limit answers 429 with a clear message and a
// Retry-After header. Which counters an attempt counts depends on the endpoint and its body,
// so they are called here (`app.createRateLimit`) rather than as one route's limit.
//
// Three counters:
// - per client IP (IPv6 by /64, which one subscriber line gets whole): every attempt on a
//   limited endpoint counts;
// - per e-mail, sign-in: only failed attempts count and a successful sign-in clears the
//   counter (as Better Auth and GoTrue do), so a trader who signs in often is never locked
//   out while a password guesser is. Clearing on success is the rule no limiter library has
//   (ADR 0015);
// - per e-mail, mail-sending endpoints (sign-up, password reset request, verification
//   resend): every request counts, since each one sends an e-mail to that address.
//
// Redis keys are `<deployment namespace>auth:<counter>:<id>`, the e-mail part hashed so no
// address sits in Redis in clear.
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { rateLimited } from '../errors/domain.ts';
import { waitText } from '../http/rateLimit.ts';
import { sessionTokenIn } from './guards.ts';

export interface AuthRateLimitPolicy {
  perIp: { max: number; windowMs: number };
  perEmail: { max: number; windowMs: number };
}

export const DEFAULT_AUTH_RATE_LIMITS: AuthRateLimitPolicy = {
  perIp: { max: 60, windowMs: 60_000 },
  perEmail: { max: 10, windowMs: 15 * 60_000 },
};

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

type Limit = { max: number; windowMs: number };

/** The limiter of an app that has registered the rate limits (http/rateLimit.ts). */
export function authRateLimiter(
  app: FastifyInstance,
  policy: AuthRateLimitPolicy,
  /** The deployment's session cookie (Better Auth's context: authCookies.sessionToken): the one Better Auth verifies. */
  sessionCookie = 'better-auth.session_token',
): AuthRateLimiter {
  /** A counter of `limit` under `auth:<name>:<id>`; `id` answers undefined when there is nothing to count. */
  function counter(name: string, limit: Limit, id: (request: FastifyRequest) => string | undefined) {
    const count = app.createRateLimit({
      max: limit.max,
      timeWindow: limit.windowMs,
      keyGenerator: (request) => `auth:${name}:${id(request)}`,
    });
    /** Counts the request (if it has an id) and answers its key; 429 past the limit. */
    return async (request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> => {
      if (id(request) === undefined) return undefined;
      const counted = await count(request);
      if (!counted.isAllowed && counted.isExceeded) {
        reply.header('retry-after', Math.max(1, counted.ttlInSeconds));
        throw rateLimited(`Too many attempts. Please wait ${waitText(counted.ttl)} and try again.`, counted.ttl / 1000);
      }
      return counted.key;
    };
  }

  const email = (request: FastifyRequest) => {
    const address = emailOf(request);
    return address === undefined ? undefined : hashed(address);
  };
  const perIp = counter('ip', policy.perIp, (request) => clientKey(request.ip));
  const perEmail = counter('email', policy.perEmail, email);
  const signInFailures = counter('sign-in', policy.perEmail, email);
  // One account's session cannot make more sessions without the password, so counting per
  // session bounds the guesses of whoever holds it (from any number of addresses). The token
  // of the cookie Better Auth reads, not of whichever session-named cookie comes first:
  // another cookie of a similar name in front must not start a fresh count.
  const passwordFailures = counter('password', policy.perEmail, (request) => {
    const session = sessionTokenIn(request.headers.cookie, sessionCookie);
    return session ? hashed(session) : undefined;
  });

  /**
   * A password check (sign-in, a change with the current password) is counted before it runs
   * (so a burst of parallel guesses cannot all slip under the limit), and a success clears
   * the count: only failures remain.
   */
  const clearedOnSuccess = (key: string | undefined) => async (status: number) => {
    if (key !== undefined && status >= 200 && status < 300) await app.resetRateLimit(key);
  };

  async function attempt(request: FastifyRequest, reply: FastifyReply, kind: LimitKind) {
    await perIp(request, reply);
    if (kind === 'password') return clearedOnSuccess(await passwordFailures(request, reply));
    if (kind === 'sign-in') return clearedOnSuccess(await signInFailures(request, reply));
    if (kind === 'email') await perEmail(request, reply);
    return async () => undefined;
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
