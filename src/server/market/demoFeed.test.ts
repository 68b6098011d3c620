// The demo feed: deterministic across instances, realistic levels, only closed candles,
// stablecoins on their peg, and the price endpoint labelled as demo data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { aggregate, createDemoFeed, DemoAsset, DEMO_EPOCH } from './demoFeed.ts';

const now = Date.UTC(2026, 2, 15, 10, 30, 20);

describe('DemoAsset', () => {
  it('replays the same walk for the same product, and a different one for another', () => {
    const first = new DemoAsset('BTC-USD');
    const second = new DemoAsset('BTC-USD');
    const other = new DemoAsset('ETH-USD');
    const a = Array.from({ length: 500 }, () => first.next());
    const b = Array.from({ length: 500 }, () => second.next());
    expect(a).toEqual(b);
    expect(other.next().close).not.toBe(a[0].close);
    expect(a[0].time).toBe(DEMO_EPOCH);
    expect(
      a.every(
        (bar) =>
          bar.high >= Math.max(bar.open, bar.close) && bar.low <= Math.min(bar.open, bar.close) && bar.volume > 0,
      ),
    ).toBe(true);
  });

  it('gives the same bars whether history was skipped or generated', () => {
    const generated = new DemoAsset('SOL-USD');
    const skipped = new DemoAsset('SOL-USD');
    for (let index = 0; index < 1000; index += 1) generated.next();
    for (let index = 0; index < 1000; index += 1) skipped.skip();
    expect(skipped.next()).toEqual(generated.next());
  });
});

describe('demo feed', () => {
  const feed = createDemoFeed({ now: () => now });

  it('quotes all 28 assets at familiar levels with buy above sell', async () => {
    const quotes = await feed.quotes(CRYPTO_SYMBOLS);
    expect([...quotes.values()].every((result) => result.ok)).toBe(true);
    const btc = quotes.get('BTC-USD');
    const usdt = quotes.get('USDT-USD');
    if (!btc?.ok || !usdt?.ok) throw new Error('expected quotes');
    expect(btc.quote.spot).toBeGreaterThan(40_000);
    expect(btc.quote.spot).toBeLessThan(200_000);
    expect(btc.quote.buy).toBeGreaterThan(btc.quote.sell);
    expect(Math.abs(usdt.quote.spot - 1)).toBeLessThan(0.01);
    expect((await feed.quotes(['NOPE-USD'])).get('NOPE-USD')).toEqual({
      ok: false,
      error: 'No demo data for NOPE-USD',
    });
  });

  it('serves only closed candles, and hourly bars equal the aggregated minutes', async () => {
    const end = new Date(now + 3_600_000);
    const minutes = await feed.candles('ETH-USD', 60, new Date(now - 6 * 3_600_000), end);
    expect(minutes.at(-1)!.time).toBe(Math.floor(now / 60_000) * 60_000 - 60_000);
    const hours = await feed.candles('ETH-USD', 3600, new Date(now - 5 * 3_600_000), end);
    expect(hours.at(-1)!.time).toBe(Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000);
    const rebuilt = aggregate(minutes, 3600).filter((bar) => hours.some((hour) => hour.time === bar.time));
    expect(rebuilt.map((bar) => bar.close)).toEqual(hours.map((bar) => bar.close));
    expect(rebuilt[0].volume).toBeCloseTo(hours[0].volume, 6);
  });

  it('has volatility regimes: hourly ranges vary by several times', async () => {
    const hourStart = Math.floor(now / 3_600_000) * 3_600_000;
    const hours = await feed.candles('BTC-USD', 3600, new Date(hourStart - 30 * 86_400_000), new Date(now));
    const ranges = hours.map((bar) => (bar.high - bar.low) / bar.close).sort((a, b) => a - b);
    expect(hours.length).toBe(30 * 24);
    expect(ranges[Math.floor(ranges.length * 0.9)] / ranges[Math.floor(ranges.length * 0.1)]).toBeGreaterThan(2.5);
  });
});

describe('GET /external-api/coinbase-prices on demo data', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp({ MARKET_DATA: 'demo' });
  });
  afterAll(async () => {
    await test?.close();
  });

  it('answers docs/SPEC.md shape for subscribers, labelled demo, and 401 for visitors', async () => {
    const visitor = await test.app.inject({ method: 'GET', url: '/external-api/coinbase-prices' });
    expect(visitor.statusCode).toBe(401);
    const { browser } = await subscribedUser(test, 'prices@example.com');
    const response = await browser.get('/external-api/coinbase-prices');
    expect(response.statusCode).toBe(200);
    const body = jsonBody<{ summary: unknown; metadata: { source: string }; prices: Record<string, unknown> }>(
      response,
    );
    expect(body.summary).toMatchObject({ total_cryptos_requested: 28, successful_fetches: 28, failed_fetches: 0 });
    expect(body.metadata.source).toBe('demo');
    expect(Object.keys(body.prices)).toHaveLength(28);
    expect(body.prices['BTC-USD']).toMatchObject({
      symbol: 'BTC',
      spot_price: expect.any(Number),
      spread_percent: expect.any(Number),
    });
  });
});
