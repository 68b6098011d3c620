// Rate limits for the auth endpoints: per client IP and per e-mail address, so neither one
// address nor one account can be hammered. Stored in Redis when configured (shared by all
// instances), in memory otherwise. Exceeding a limit answers 429 with a clear message.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { HttpError } from '../http/errors.ts';

export interface AuthRateLimitPolicy {
  perIp: { max: number; windowMs: number };
  perEmail: { max: number; windowMs: number };
}

export const DEFAULT_AUTH_RATE_LIMITS: AuthRateLimitPolicy = {
  perIp: { max: 60, windowMs: 60_000 },
  perEmail: { max: 10, windowMs: 15 * 60_000 },
};

function waitText(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
}

function emailOf(request: FastifyRequest): string | undefined {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email.trim() ? email.trim().toLowerCase() : undefined;
}

interface LimitResult {
  isAllowed: boolean;
  isExceeded?: boolean;
  ttl?: number;
}

/** Registers the plugin on `app` (an encapsulated scope) and returns one pre-handler that
 * applies both limits, each counted in its own key space. */
export async function authRateLimiter(
  app: FastifyInstance,
  policy: AuthRateLimitPolicy,
  redis: Redis | undefined,
): Promise<preHandlerAsyncHookHandler> {
  await app.register(rateLimit, { global: false, redis, nameSpace: 'watos-auth-', skipOnError: false });
  const perIp = app.createRateLimit({
    max: policy.perIp.max,
    timeWindow: policy.perIp.windowMs,
    keyGenerator: (request) => `ip:${request.ip}`,
  }) as (request: FastifyRequest) => Promise<LimitResult>;
  const perEmail = app.createRateLimit({
    max: policy.perEmail.max,
    timeWindow: policy.perEmail.windowMs,
    keyGenerator: (request) => `email:${emailOf(request) ?? ''}`,
    allowList: (request) => emailOf(request) === undefined,
  }) as (request: FastifyRequest) => Promise<LimitResult>;

  return async function limitAuthAttempts(request, reply) {
    for (const limit of [perIp, perEmail]) {
      const result = await limit(request);
      if (!result.isAllowed && result.isExceeded) {
        const ttl = result.ttl ?? policy.perEmail.windowMs;
        reply.header('retry-after', Math.ceil(ttl / 1000));
        throw new HttpError(429, `Too many attempts. Please wait ${waitText(ttl)} and try again.`);
      }
    }
  };
}
