// The rate-limit plugin in memory (the Redis store: auth/rateLimits.test.ts, files/quota.test.ts
// with TEST_REDIS_URL): limits name their keys, so two routes naming one key share a count;
// answers past a limit are 429 with Retry-After and the limit's text, and no X-RateLimit-*
// header is added to any answer; a key can be cleared.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandling } from './errors.ts';
import { perUserLimit, rateLimits } from './rateLimit.ts';

describe('rate limits in memory', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(errorHandling);
    await app.register(rateLimits, { nameSpace: 'test:' });
    const shared = perUserLimit({ name: 'shared', max: 2, windowMs: 60_000, message: (wait) => `Wait ${wait}.` });
    app.get('/one', { config: { rateLimit: shared } }, async () => 'one');
    app.get('/two', { config: { rateLimit: shared } }, async () => 'two');
    app.get('/other', { config: { rateLimit: { ...shared, keyGenerator: () => 'other' } } }, async () => 'other');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('counts two routes of one limit together and answers 429 with Retry-After and its text', async () => {
    const statuses = [];
    for (const url of ['/one', '/two', '/one']) statuses.push(await app.inject(url));
    expect(statuses.map((answer) => answer.statusCode)).toEqual([200, 200, 429]);
    const refused = statuses[2]!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(55);
    expect(refused.json()).toEqual({ error: 'Wait 60 seconds.' });
    for (const answer of statuses)
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    // Another key counts apart.
    expect((await app.inject('/other')).statusCode).toBe(200);
  });

  it('clears a key', async () => {
    expect((await app.inject('/one')).statusCode).toBe(429);
    await app.resetRateLimit('shared:ip:127.0.0.1');
    expect((await app.inject('/one')).statusCode).toBe(200);
  });
});
