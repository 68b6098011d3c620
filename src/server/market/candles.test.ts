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
    products: ['BTC-USD'],
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

  it('answers an unknown asset or bar size with 400', async () => {
    expect((await browser.get('/api/market/candles?symbol=AAPL')).json()).toEqual({
      error: 'symbol: symbol must be one of the 28 tracked products, e.g. BTC-USD',
    });
    expect((await browser.get('/api/market/candles?symbol=BTC-USD&granularity=300')).statusCode).toBe(400);
  });
});
