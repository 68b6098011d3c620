// With REDIS_URL set, the auth limits are shared by every instance: attempts against two
// app instances count together. Runs when TEST_REDIS_URL is set (CI sets it).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';

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
    for (let index = 0; index < 10; index += 1) statuses.push((await attempt(index % 2 === 0 ? first : second)).statusCode);
    expect(statuses.every((status) => status === 401)).toBe(true);

    const blockedOnFirst = await attempt(first);
    const blockedOnSecond = await attempt(second);
    expect(blockedOnFirst.statusCode).toBe(429);
    expect(blockedOnSecond.statusCode).toBe(429);
    expect(blockedOnSecond.json().error).toMatch(/^Too many attempts\./);
  });
});
