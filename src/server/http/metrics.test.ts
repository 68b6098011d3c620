// GET /metrics: absent without METRICS_TOKEN, refused without the bearer token, and with it the
// Prometheus text of the default Node metrics, the request durations by route pattern and the
// open alert streams, on the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { subscribedUser } from '../testing/users.ts';
import { alertRules, ruleDeliveries, ruleFirings } from '../db/schema.ts';
import { bearerMatches } from './metrics.ts';

const TOKEN = 'metrics-token-for-the-tests-0123';

describe('GET /metrics without METRICS_TOKEN', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp();
  });
  afterAll(async () => {
    await test?.close();
  });

  it('does not exist, whatever the token', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}`]) {
      const response = await test.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      });
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('watos_');
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let test: TestApp;
  let base: string;
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    test = await createTestApp({ METRICS_TOKEN: TOKEN });
    const { browser, userId: id } = await subscribedUser(test, 'metrics@example.com');
    cookie = browser.cookieHeader;
    userId = id;
    await test.app.listen({ host: '127.0.0.1', port: 0 });
    const address = test.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await test?.close();
  });

  async function scrape(): Promise<string> {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    return response.text();
  }

  const openStreams = (text: string) => Number(/^watos_alert_streams_open (\d+)$/m.exec(text)?.[1]);

  it('refuses a missing or wrong token with 401', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const response = await fetch(`${base}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(await response.text()).not.toContain('watos_');
    }
  });

  it('answers the token with Prometheus text, security headers and the default Node metrics', async () => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(response.headers.get('content-type')).toContain('version=0.0.4');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await response.text();
    expect(text).toMatch(/^watos_nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^watos_nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^watos_rule_pass_duration_seconds_count 0$/m);
    expect(text).toMatch(/^watos_rule_deliveries\{status="pending"\} 0$/m);
  });

  it('times requests by route pattern and status class, never by raw URL', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/files/12345/download`)).status).toBe(401);
    const text = await scrape();
    expect(text).toMatch(
      /^watos_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/healthz",status_class="2xx"\} [1-9]/m,
    );
    expect(text).toContain('route="/files/:id/download",status_class="4xx"');
    // No label carries the raw path (a metric's value may hold those digits by chance).
    expect(text).not.toMatch(/"[^"]*\/files\/12345[^"]*"/);
  });

  it('counts the open alert streams: 0, 1 while one is open, 0 after', async () => {
    expect(openStreams(await scrape())).toBe(0);
    const controller = new AbortController();
    const response = await fetch(`${base}/api/alerts/stream`, { headers: { cookie }, signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(openStreams(await scrape())).toBe(1);
    controller.abort();
    await response.body?.cancel().catch(() => undefined);
    const deadline = Date.now() + 3000;
    let open = openStreams(await scrape());
    while (open !== 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      open = openStreams(await scrape());
    }
    expect(open).toBe(0);
  });

  it("reads the delivery queue depth and the last day's failures from rule_deliveries", async () => {
    const db = test.database.db;
    const [rule] = await db
      .insert(alertRules)
      .values({
        userId,
        name: 'AAPL breakout',
        symbol: 'AAPL',
        timeframe: '1h',
        condition: { kind: 'price_cross', direction: 'above', level: 190 },
        trigger: 'every_time',
        channels: ['email'],
      })
      .returning({ id: alertRules.id });
    const firingIds: number[] = [];
    for (let key = 1; key <= 4; key += 1) {
      const [firing] = await db
        .insert(ruleFirings)
        .values({
          ruleId: rule!.id,
          userId,
          symbol: 'AAPL',
          triggerKey: key,
          barTime: new Date('2026-11-20T15:30:00Z'),
          price: 190.42,
          message: 'AAPL crossed above 190',
          source: 'demo',
        })
        .returning({ id: ruleFirings.id });
      firingIds.push(firing!.id);
    }
    const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
    await db.insert(ruleDeliveries).values([
      { firingId: firingIds[0]!, userId, channel: 'email', status: 'pending' },
      { firingId: firingIds[1]!, userId, channel: 'email', status: 'retrying' },
      { firingId: firingIds[2]!, userId, channel: 'email', status: 'failed' },
      { firingId: firingIds[3]!, userId, channel: 'email', status: 'failed', createdAt: twoDaysAgo },
    ]);
    const text = await scrape();
    expect(text).toMatch(/^watos_rule_deliveries\{status="pending"\} 1$/m);
    expect(text).toMatch(/^watos_rule_deliveries\{status="retrying"\} 1$/m);
    expect(text).toMatch(/^watos_rule_deliveries\{status="failed_last_day"\} 1$/m);
  });

  it('times each engine pass of the alert rules', async () => {
    await test.app.services.rules.onPass([]);
    expect(await scrape()).toMatch(/^watos_rule_pass_duration_seconds_count 1$/m);
  });
});

describe('bearerMatches', () => {
  it('takes only the exact token after Bearer', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
    expect(bearerMatches('Bearer ', TOKEN)).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN)).toBe(false);
  });
});
