// REDIS_PREFIX through the real app on a real Redis: the live alert channel and the AI rate
// limit's keys live under this deployment's namespace, so another deployment on the same Redis
// (any database number: pub/sub ignores it) neither hears nor feeds ours.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveAlert } from './alerts/bus.ts';
import { createTestApp, type TestApp } from './testing/app.ts';
import { subscribedUser } from './testing/users.ts';

const alert: LiveAlert = {
  id: 5,
  source: 'demo',
  ticker: 'BTC',
  alert_type: 'BreakoutAlertGenerator',
  message: 'BTC breakout',
  timestamp: '2026-01-01 00:00:00',
};

describe.runIf(process.env.TEST_REDIS_URL)('Redis namespace of a deployment', () => {
  const prefix = `watos:ns-test-${Math.random().toString(36).slice(2, 8)}:`;
  let test: TestApp;
  let redis: Redis;

  beforeAll(async () => {
    test = await createTestApp({ REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: prefix });
    await test.app.services.alertBus.ready;
    redis = new Redis(process.env.TEST_REDIS_URL!);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await test?.close();
  });

  it('hears the live alert channel under its prefix only', async () => {
    const heard: string[] = [];
    test.app.services.alertBus.subscribe((item) => heard.push(item.message));
    await redis.publish('watos:alerts', JSON.stringify([{ ...alert, message: 'from another deployment' }]));
    await redis.publish(`${prefix}alerts`, JSON.stringify([{ ...alert, message: 'ours' }]));
    await expect.poll(() => heard).toEqual(['ours']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual(['ours']);
  });

  it('keeps the AI rate limit keys under its prefix', async () => {
    const { browser } = await subscribedUser(test, 'namespace@example.com');
    const form = new FormData();
    form.append('prompt', 'BTC price?');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const response = await test.app.inject({
      method: 'POST',
      url: '/external-api/prompt',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: {
        origin: test.config.publicUrl,
        cookie: browser.cookieHeader,
        'content-type': request.headers.get('content-type')!,
      },
    });
    expect(response.statusCode).toBe(200);
    const keys = await redis.keys(`${prefix}ai:*`);
    expect(keys.length).toBeGreaterThan(0);
  });
});
