// With REDIS_URL set, the auth limits are shared by every instance: attempts against two
// app instances count together, under keys named `${keyPrefix}auth:...`. Runs when
// TEST_REDIS_URL is set (CI sets it).
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimits } from '../http/rateLimit.ts';
import { createRedis } from '../redis.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { authRateLimiter, clientKey } from './rateLimits.ts';
import { jsonBody } from '../testing/http.ts';

const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('auth rate limits in Redis', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await createTestApp({ REDIS_URL: redisUrl! });
    second = await createTestApp({ REDIS_URL: redisUrl! });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('counts attempts on one e-mail across instances and answers 429 on both', async () => {
    const email = `limit-${randomUUID()}@example.com`;
    const attempt = (test: TestApp) =>
      test.app.inject({
        method: 'POST',
        url: '/api/auth/sign-in/email',
        headers: { origin: test.config.publicUrl, 'content-type': 'application/json' },
        payload: JSON.stringify({ email, password: 'wrong-password' }),
      });
    const statuses: number[] = [];
    for (let index = 0; index < 10; index += 1)
      statuses.push((await attempt(index % 2 === 0 ? first : second)).statusCode);
    expect(statuses.every((status) => status === 401)).toBe(true);

    const blockedOnFirst = await attempt(first);
    const blockedOnSecond = await attempt(second);
    expect(blockedOnFirst.statusCode).toBe(429);
    expect(blockedOnSecond.statusCode).toBe(429);
    expect(jsonBody<{ error: string }>(blockedOnSecond).error).toMatch(/^Too many attempts\./);
  });
});

describe.runIf(redisUrl)('auth rate-limit keys in Redis', () => {
  let redis: Redis;
  const policy = { perIp: { max: 5, windowMs: 60_000 }, perEmail: { max: 2, windowMs: 120_000 } };
  const emailHash = (email: string) => createHash('sha256').update(email).digest('hex').slice(0, 32);
  const reply = { header: () => reply } as unknown as FastifyReply;
  const attemptFrom = (ip: string, email: string) =>
    ({ ip, body: { email }, headers: {}, routeOptions: { config: {} } }) as unknown as FastifyRequest;
  /** An app counting in this Redis under `nameSpace`, as buildApp registers the limits. */
  async function limitedApp(nameSpace: string): Promise<FastifyInstance> {
    const app = Fastify();
    await app.register(rateLimits, { redis, nameSpace });
    await app.ready();
    return app;
  }

  beforeAll(() => {
    redis = createRedis(redisUrl!);
  });
  afterAll(() => {
    redis?.disconnect();
  });

  it('writes `${keyPrefix}auth:<counter>:<id>` keys with the window as expiry, and nothing named undefined', async () => {
    const prefix = `test-${randomUUID()}:`;
    const app = await limitedApp(prefix);
    const limiter = authRateLimiter(app, policy);
    const settle = await limiter.attempt(attemptFrom('203.0.113.9', ' Key@Example.com '), reply, 'sign-in');
    await limiter.attempt(attemptFrom('203.0.113.9', 'mail@example.com'), reply, 'email');
    const signInKey = `${prefix}auth:sign-in:${emailHash('key@example.com')}`;
    expect((await redis.keys(`${prefix}*`)).sort()).toEqual(
      [`${prefix}auth:email:${emailHash('mail@example.com')}`, `${prefix}auth:ip:203.0.113.9`, signInKey].sort(),
    );
    expect(await redis.get(`${prefix}auth:ip:203.0.113.9`)).toBe('2');
    const ipTtl = await redis.pttl(`${prefix}auth:ip:203.0.113.9`);
    expect(ipTtl).toBeGreaterThan(50_000);
    expect(ipTtl).toBeLessThanOrEqual(60_000);
    expect(await redis.pttl(signInKey)).toBeGreaterThan(60_000);

    // A failed sign-in stays counted; a successful one clears the e-mail's count.
    await settle(401);
    expect(await redis.get(signInKey)).toBe('1');
    const next = await limiter.attempt(attemptFrom('203.0.113.9', 'key@example.com'), reply, 'sign-in');
    expect(await redis.get(signInKey)).toBe('2');
    await next(200);
    expect(await redis.exists(signInKey)).toBe(0);
    await redis.del(...(await redis.keys(`${prefix}*`)));
    await app.close();
  });

  it("writes under the namespace the app's rate limits were given, and the app under the deployment's", async () => {
    const ip = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const app = await limitedApp('watos:');
    await authRateLimiter(app, policy).attempt(attemptFrom(ip, ''), reply, 'ip');
    await app.close();
    expect(await redis.get(`watos:auth:ip:${ip}`)).toBe('1');
    await redis.del(`watos:auth:ip:${ip}`);

    const test = await createTestApp({ REDIS_URL: redisUrl! });
    try {
      const email = `keys-${randomUUID()}@example.com`;
      const answer = await test.app.inject({
        method: 'POST',
        url: '/api/auth/sign-in/email',
        headers: { origin: test.config.publicUrl, 'content-type': 'application/json' },
        payload: JSON.stringify({ email, password: 'wrong-password' }),
      });
      expect(answer.statusCode).toBe(401);
      expect(test.config.redisPrefix).toMatch(/^watos:.+:$/);
      expect(await redis.get(`${test.config.redisPrefix}auth:sign-in:${emailHash(email)}`)).toBe('1');
      expect(await redis.get(`watos:auth:sign-in:${emailHash(email)}`)).toBeNull();
    } finally {
      await test.close();
    }
  });
});

describe('client keys', () => {
  it('counts IPv6 clients by /64 and IPv4 (also IPv4-mapped) by address', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::99')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
