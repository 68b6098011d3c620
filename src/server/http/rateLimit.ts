// Fixed-window request counters shared by every rate limit of the app (auth attempts, the
// assistant's chat and prompt calls, uploads): in Redis when REDIS_URL is set, so every
// instance counts together, in memory otherwise. Keys are built by the callers under the
// deployment's namespace (config.redisPrefix), e.g. `watos:prod:upload:user:<id>`.
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { HttpError } from './errors.ts';

/** A fixed-window counter: `hit` counts one and answers the count and the window's time left. */
export interface CounterStore {
  hit(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>;
  reset(key: string): Promise<void>;
}

// INCR, and start the window on the first hit (or when a key somehow lost its expiry, so
// no counter can live for ever).
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

export function redisCounterStore(redis: Redis): CounterStore {
  return {
    async hit(key, windowMs) {
      const [count, ttlMs] = (await redis.eval(HIT_SCRIPT, 1, key, String(windowMs))) as [number, number];
      return { count, ttlMs };
    },
    async reset(key) {
      await redis.del(key);
    },
  };
}

export function memoryCounterStore(now: () => number = Date.now): CounterStore {
  const counters = new Map<string, { count: number; expiresAt: number }>();
  let nextSweep = 0;
  return {
    async hit(key, windowMs) {
      const time = now();
      // Drop expired windows now and then, so rotating keys cannot grow the map for ever.
      if (time >= nextSweep) {
        for (const [name, counter] of counters) if (counter.expiresAt <= time) counters.delete(name);
        nextSweep = time + 60_000;
      }
      let counter = counters.get(key);
      if (!counter || counter.expiresAt <= time) {
        counter = { count: 0, expiresAt: time + windowMs };
        counters.set(key, counter);
      }
      counter.count += 1;
      return { count: counter.count, ttlMs: counter.expiresAt - time };
    },
    async reset(key) {
      counters.delete(key);
    },
  };
}

/** "12 seconds", "1 second" or, from 90 s on, "3 minutes". */
export function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** The store for a deployment: Redis when configured, this process's memory otherwise. */
export function counterStore(redis: Redis | undefined): CounterStore {
  return redis ? redisCounterStore(redis) : memoryCounterStore();
}

export interface PerUserRateLimitOptions {
  /** Full key prefix, distinct per limit so counts never mix, e.g. `${config.redisPrefix}upload:`. */
  keyPrefix: string;
  max: number;
  windowMs: number;
  store: CounterStore;
  /** The 429 text, given how long to wait (e.g. "12 seconds"). */
  message: (wait: string) => string;
  /** Runs before the 429 is thrown (e.g. to stop reading a request body). */
  onRefused?: (request: FastifyRequest, reply: FastifyReply) => void;
}

/**
 * A pre-handler counting each request of the signed-in user (the client address when there
 * is none) and answering 429 with Retry-After and a clear message past `max` a window.
 * Refused requests count too, so hammering does not reopen the window.
 */
export function perUserRateLimit(options: PerUserRateLimitOptions): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const who = request.user ? `user:${request.user.id}` : `ip:${request.ip}`;
    const { count, ttlMs } = await options.store.hit(`${options.keyPrefix}${who}`, options.windowMs);
    if (count > options.max) {
      reply.header('retry-after', Math.max(1, Math.ceil(ttlMs / 1000)));
      options.onRefused?.(request, reply);
      throw new HttpError(429, options.message(waitText(ttlMs)));
    }
  };
}
