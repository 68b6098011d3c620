// A per-user request limit, the way the assistant's chat limit works (src/server/ai/routes.ts):
// @fastify/rate-limit registered in the caller's encapsulated scope, counted in Redis when
// configured (shared by every instance) and in memory otherwise, answering 429 with a
// Retry-After header and a clear message. Each caller gets its own key space (`nameSpace`).
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { HttpError } from './errors.ts';

export interface PerUserRateLimitOptions {
  /** Key prefix in Redis, e.g. `watos-upload-`; distinct per limit so counts never mix. */
  nameSpace: string;
  max: number;
  windowMs: number;
  redis?: Redis;
  /** The 429 text, given how long to wait (e.g. "12 seconds"). */
  message: (wait: string) => string;
  /** Runs before the 429 is thrown (e.g. to stop reading a request body). */
  onRefused?: (request: FastifyRequest, reply: FastifyReply) => void;
}

interface LimitResult {
  isAllowed: boolean;
  isExceeded?: boolean;
  ttl?: number;
}

export function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Registers the limiter on `app` (an encapsulated scope) and answers its pre-handler. */
export async function perUserRateLimit(app: FastifyInstance, options: PerUserRateLimitOptions): Promise<preHandlerAsyncHookHandler> {
  await app.register(rateLimit, { global: false, redis: options.redis, nameSpace: options.nameSpace, skipOnError: false });
  const limit = app.createRateLimit({
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: (request) => `user:${request.user?.id ?? request.ip}`,
  }) as (request: FastifyRequest) => Promise<LimitResult>;
  return async (request, reply) => {
    const result = await limit(request);
    if (!result.isAllowed && result.isExceeded) {
      const ttl = result.ttl ?? options.windowMs;
      reply.header('retry-after', Math.ceil(ttl / 1000));
      options.onRefused?.(request, reply);
      throw new HttpError(429, options.message(waitText(ttl)));
    }
  };
}
