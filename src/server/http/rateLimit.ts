// Rate limits (auth attempts, the assistant's chat and prompt calls, uploads, webhook tests,
// backtests): @fastify/rate-limit, counting in Redis when REDIS_URL is set (the app's own
// client, so every instance counts together) and in this process's memory otherwise. Routes
// opt in with `config.rateLimit` (perUserLimit below); limits that count a request only in
// some cases (auth, backtests) call `app.createRateLimit` themselves.
//
// Every limit counts in one store under keys it names itself, below the deployment's
// namespace (config.redisPrefix), e.g. `watos:prod:upload:user:<id>`: two routes naming the
// same key (the assistant's chat and prompt calls) share one count, and a key is the same
// whichever route or helper counts it. (The library's own stores name per-route keys after
// the route and `createRateLimit` keys after none, `undefinedundefined-`; see ADR 0015.)
// Answers past a limit: 429, Retry-After, and the limit's own { error } text.
import fastifyRateLimit, { type FastifyRateLimitStore, type RateLimitOptions } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { HttpError } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Clears a rate-limit key (a successful sign-in clears its failures). */
    resetRateLimit(key: string): Promise<void>;
  }
}

export interface RateLimitsOptions {
  redis?: Redis;
  /** The deployment's Redis namespace (config.redisPrefix): several deployments share a Redis. */
  nameSpace: string;
}

/** Counters kept in memory (without Redis); the least recently hit go first past it. */
const MEMORY_KEYS = 50_000;

/** "12 seconds", "1 second" or, from 90 s on, "3 minutes". */
export function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} second${seconds === 1 ? '' : 's'}`;
}

async function rateLimitsPlugin(app: FastifyInstance, options: RateLimitsOptions): Promise<void> {
  const { redis, nameSpace } = options;
  const store: FastifyRateLimitStore & { lru?: Map<string, unknown> } = redis
    ? new RedisStore(false, false, redis, nameSpace)
    : new LocalStore(false, false, MEMORY_KEYS);
  // One store for every limit: the keys say which limit counts (see above).
  store.child = () => store;
  app.decorate('resetRateLimit', async (key: string) => {
    if (redis) await redis.del(`${nameSpace}${key}`);
    else store.lru?.delete(key);
  });
  await app.register(fastifyRateLimit, {
    global: false,
    // Stores are built with `new`: a constructor returning an object gives that object.
    store: function sharedStore() {
      return store;
    } as unknown as new () => FastifyRateLimitStore,
    hook: 'preHandler',
    // Retry-After only, as before the library: no X-RateLimit-* headers.
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': true,
    },
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
  });
}

export const rateLimits = fp(rateLimitsPlugin, { name: 'watos-rate-limits', fastify: '5.x' });

/** Who a per-user limit counts: the verified user, or the client address when there is none. */
export function userOrAddress(request: FastifyRequest): string {
  return request.user ? `user:${request.user.id}` : `ip:${request.ip}`;
}

export interface PerUserLimit {
  /** The limit's key part, distinct per limit so counts never mix: `upload`, `ai`. */
  name: string;
  max: number;
  windowMs: number;
  /** The 429 text, given how long to wait (e.g. "12 seconds"). */
  message: (wait: string) => string;
}

/**
 * A route's `config.rateLimit`: each request of the signed-in user (the dashboard scope
 * verified it; the client address when there is none) counts under `<name>:user:<id>`, and
 * past `max` a window the answer is 429 with Retry-After and the limit's message. Refused
 * requests count too, so hammering does not reopen the window.
 */
export function perUserLimit(limit: PerUserLimit): RateLimitOptions {
  return {
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => `${limit.name}:${userOrAddress(request)}`,
    errorResponseBuilder: (_request, context) =>
      new HttpError(429, limit.message(waitText((context as { ttl: number }).ttl))),
  };
}
