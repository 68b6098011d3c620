// Issue 35, item 2: the answers every open dashboard polls carry standard HTTP caching instead
// of the prepared answers: an ETag of the answer, 304 without a body while it still matches,
// and Cache-Control private with a short max-age. The ETag is weak (W/): it is made before
// compression, so the gzip and Brotli bytes of one answer share it, which a strong validator
// may not do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import type { Browser } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';

describe('polled answers: ETag, 304 and Cache-Control', () => {
  let test: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    test = await createTestApp();
    ({ browser } = await subscribedUser(test, 'poll-caching@example.com'));
  });
  afterAll(async () => {
    await test?.close();
  });

  it.each([
    ['the price snapshot', '/external-api/coinbase-prices'],
    [
      'the alert log',
      '/external-api/alert?max_count=10&start_time=2026-01-01%2000:00:00&end_time=2026-01-01%2001:00:00',
    ],
  ])('%s: 200 with an ETag, then 304 without a body for that ETag', async (_name, url) => {
    const first = await browser.request('GET', url, undefined, { 'accept-encoding': 'gzip' });
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"[^"]+"$/);
    expect(first.headers['cache-control']).toBe('private, max-age=5');

    const again = await browser.request('GET', url, undefined, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);

    // The same answer uncompressed: the same weak ETag.
    expect((await browser.request('GET', url, undefined, { 'if-none-match': etag })).statusCode).toBe(304);
  });

  it('gives another answer another ETag', async () => {
    const prices = await browser.get('/external-api/coinbase-prices');
    const alerts = await browser.get('/external-api/alert');
    expect(prices.body).not.toBe(alerts.body);
    expect(prices.headers.etag).not.toBe(alerts.headers.etag);
  });

  it('answers a visitor 401 whatever ETag it sends', async () => {
    const first = await browser.get('/external-api/coinbase-prices');
    const visitor = await test.app.inject({
      url: '/external-api/coinbase-prices',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(visitor.statusCode).toBe(401);
  });
});
