// The live path's metrics: the feeds' stats read when scraped (each feed labelled), and, on the
// real app with METRICS_TOKEN, a live connection and the ticks it carries counted in /metrics.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { subscribedUser } from '../testing/users.ts';
import { registerFeedMetrics, type FeedStatsReading } from './metrics.ts';

const TOKEN = 'metrics-token-for-the-live-tests-01';

describe('feed metrics', () => {
  it("reads each feed's stats when scraped", async () => {
    const registry = new Registry();
    const feeds = new Map<string, FeedStatsReading>([
      ['coinbase', { connected: true, reconnects: 3, gaps: 1, rejected: 7, lastTickAt: 1_000 }],
      ['yahoo', { connected: false, reconnects: 0, gaps: 0, rejected: 0, lastTickAt: null }],
    ]);
    registerFeedMetrics(
      registry,
      () => feeds,
      () => 3_500,
    );
    let text = await registry.metrics();
    expect(text).toMatch(/^watos_feed_connected\{feed="coinbase"\} 1$/m);
    expect(text).toMatch(/^watos_feed_connected\{feed="yahoo"\} 0$/m);
    expect(text).toMatch(/^watos_feed_reconnects_total\{feed="coinbase"\} 3$/m);
    expect(text).toMatch(/^watos_feed_gaps_total\{feed="coinbase"\} 1$/m);
    expect(text).toMatch(/^watos_feed_rejected_total\{feed="coinbase"\} 7$/m);
    expect(text).toMatch(/^watos_feed_last_tick_age_seconds\{feed="coinbase"\} 2.5$/m);
    expect(text).not.toMatch(/^watos_feed_last_tick_age_seconds\{feed="yahoo"\}/m);

    feeds.set('coinbase', { connected: true, reconnects: 4, gaps: 1, rejected: 7, lastTickAt: 3_000 });
    text = await registry.metrics();
    expect(text).toMatch(/^watos_feed_reconnects_total\{feed="coinbase"\} 4$/m);
  });
});

describe('live metrics on the app', () => {
  let test: TestApp;
  let base: string;
  let cookie: string;
  beforeAll(async () => {
    test = await createTestApp({ METRICS_TOKEN: TOKEN });
    cookie = (await subscribedUser(test, 'live-metrics@example.com')).browser.cookieHeader;
    await test.app.listen({ host: '127.0.0.1', port: 0 });
    const address = test.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await test?.close();
  });

  const scrape = async () => (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();

  it('counts the open live connections and the ticks received and sent', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/api/live?symbols=BTC`, { headers: { cookie }, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await test.app.services.alertBus.publishTicks([
      { symbol: 'BTC-USD', price: 1, time: Date.now() - 40, source: 'demo', delayMinutes: 0, bar: null },
      { symbol: 'ETH-USD', price: 2, time: Date.now() - 40, source: 'coinbase', delayMinutes: 0, bar: null },
    ]);
    await expect.poll(async () => /^watos_live_ticks_sent_total (\d+)$/m.exec(await scrape())?.[1]).toBe('1');
    const text = await scrape();
    expect(text).toMatch(/^watos_live_connections_open 1$/m);
    expect(text).toMatch(/^watos_live_ticks_received_total\{source="demo"\} 1$/m);
    expect(text).toMatch(/^watos_live_ticks_received_total\{source="coinbase"\} 1$/m);
    expect(text).toMatch(/^watos_live_tick_lag_seconds_count\{source="demo"\} 1$/m);
    // The shared registry counts the live connection among the open event streams.
    expect(text).toMatch(/^watos_alert_streams_open 1$/m);
    controller.abort();
    await expect.poll(async () => /^watos_live_connections_open (\d+)$/m.exec(await scrape())?.[1]).toBe('0');
  });
});
