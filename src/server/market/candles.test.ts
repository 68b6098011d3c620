// GET /api/market/candles: the stored candles of one asset with the alerts that fired on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertBus } from '../alerts/bus.ts';
import { createAlertEngine } from '../alerts/engine.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { createDemoFeed } from './demoFeed.ts';

let test: TestApp;
let browser: Browser;

beforeAll(async () => {
  test = await createTestApp();
  ({ browser } = await subscribedUser(test, 'candles@example.com'));
  const engine = createAlertEngine({
    database: test.database,
    provider: createDemoFeed(),
    source: 'demo',
    bus: createAlertBus(),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    products: ['BTC-USD', 'MES1!'],
    backfillHourDays: 3,
    backfillMinuteDays: 1,
  });
  await engine.tick();
});
afterAll(async () => {
  await test?.close();
});

describe('GET /api/market/candles', () => {
  it('returns the newest bars oldest first with the alerts since the first of them', async () => {
    const response = await browser.get('/api/market/candles?symbol=BTC-USD&granularity=3600&limit=48');
    expect(response.statusCode).toBe(200);
    const body = jsonBody<{ candles: Array<{ time: string }>; alerts: Array<{ ticker: string }> }>(response);
    expect(body).toMatchObject({ symbol: 'BTC-USD', granularity: 3600, source: 'demo' });
    expect(body.candles).toHaveLength(48);
    const times = body.candles.map((candle) => Date.parse(candle.time));
    expect(times.every((time, index) => index === 0 || time - times[index - 1] === 3_600_000)).toBe(true);
    expect(body.alerts.length).toBeGreaterThan(0);
    expect(body.alerts.every((alert) => alert.ticker === 'BTC')).toBe(true);
  });

  it('serves any symbol of the table by any of its forms, answering its canonical id and class', async () => {
    for (const form of ['MES1!', 'CME_MINI:MES1!', 'MES', 'Micro E-mini S&P 500']) {
      const response = await browser.get(
        `/api/market/candles?symbol=${encodeURIComponent(form)}&granularity=60&limit=50`,
      );
      expect(response.statusCode).toBe(200);
      const body = jsonBody<{ symbol: string; assetClass: string; source: string; candles: Array<{ close: number }> }>(
        response,
      );
      expect(body).toMatchObject({ symbol: 'MES1!', assetClass: 'micro-future', source: 'demo' });
      expect(body.candles).toHaveLength(50);
      // MES trades in 0.25 index-point ticks.
      expect(body.candles.every((candle) => Math.abs(candle.close * 4 - Math.round(candle.close * 4)) < 1e-6)).toBe(
        true,
      );
    }
  });

  it('answers a symbol with nothing stored yet with no bars and no source', async () => {
    const body = jsonBody<{ symbol: string; assetClass: string; source: string | null; candles: unknown[] }>(
      await browser.get('/api/market/candles?symbol=NASDAQ:AAPL'),
    );
    expect(body).toMatchObject({ symbol: 'AAPL', assetClass: 'stock', source: null, candles: [] });
  });

  it('answers an unknown symbol or bar size with 400 and a clear message', async () => {
    const unknown = await browser.get('/api/market/candles?symbol=LSE:VOD');
    expect(unknown.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(unknown).error).toBe(
      'symbol: No market data for LSE:VOD: it is not a market we cover. Try a ticker (AAPL, SPY, MES, BTC), a chart symbol (NASDAQ:AAPL, CME_MINI:MES1!) or a name (Apple, Micro Gold).',
    );
    expect((await browser.get('/api/market/candles?symbol=BTC-USD&granularity=300')).statusCode).toBe(400);
  });
});
