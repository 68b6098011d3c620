// GET /api/market/candles: the stored candles of one asset, bucketed into the asked timeframe,
// with the overlays and RSI asked for and the alerts that fired on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertBus } from '../alerts/bus.ts';
import { createAlertEngine } from '../alerts/engine.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import type { CandleResponse } from '../../shared/schemas/market.ts';
import { sma } from '../../signals/indicators.ts';
import { createDemoFeed } from './demoFeed.ts';
import { createAllShards } from '../live/shards.ts';

let test: TestApp;
let browser: Browser;

beforeAll(async () => {
  test = await createTestApp();
  ({ browser } = await subscribedUser(test, 'candles@example.com'));
  const engine = createAlertEngine({
    database: test.database,
    shards: createAllShards(),
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
    expect(times.every((time, index) => index === 0 || time - times[index - 1]! === 3_600_000)).toBe(true);
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

  it('buckets the stored bars into the asked timeframe, UTC-aligned, with the hourly bars summed', async () => {
    const hours = jsonBody<CandleResponse>(
      await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=1h&limit=1000'),
    ).candles;
    const response = await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=4h&limit=10');
    expect(response.statusCode).toBe(200);
    const body = jsonBody<CandleResponse>(response);
    expect(body).toMatchObject({ symbol: 'BTC-USD', timeframe: '4h', granularity: 14_400, overlays: [], rsi: null });
    expect(body.candles).toHaveLength(10);
    for (const candle of body.candles) {
      const start = Date.parse(candle.time);
      expect(start % 14_400_000).toBe(0);
      const inside = hours.filter(
        (hour) => Date.parse(hour.time) >= start && Date.parse(hour.time) < start + 14_400_000,
      );
      expect(candle).toEqual({
        time: candle.time,
        open: inside[0]!.open,
        high: Math.max(...inside.map((hour) => hour.high)),
        low: Math.min(...inside.map((hour) => hour.low)),
        close: inside.at(-1)!.close,
        volume: expect.closeTo(
          inside.reduce((sum, hour) => sum + hour.volume, 0),
          6,
        ) as number,
      });
    }
    const days = jsonBody<CandleResponse>(
      await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=1D&limit=10'),
    );
    expect(days.granularity).toBe(86_400);
    expect(days.candles.every((candle) => candle.time.endsWith('T00:00:00.000Z'))).toBe(true);
    const minutes = jsonBody<CandleResponse>(
      await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=15m&limit=10'),
    );
    expect(minutes.candles.every((candle) => Date.parse(candle.time) % 900_000 === 0)).toBe(true);
  });

  it('returns the overlays and RSI asked for, aligned with the bars, equal to the engine on the closes', async () => {
    const body = jsonBody<CandleResponse>(
      await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=1h&limit=12&overlays=sma20,bb20&rsi=14'),
    );
    expect(body.overlays.map((overlay) => overlay.id)).toEqual(['sma20', 'bb20']);
    // The engine on the same bars with their warm-up: 12 + 20 bucket closes.
    const longer = jsonBody<CandleResponse>(
      await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=1h&limit=32'),
    ).candles;
    expect(longer.slice(-12)).toEqual(body.candles);
    const close = Float64Array.from(longer, (candle) => candle.close);
    const expected = Array.from(sma(close, 20).slice(-12));
    body.overlays[0]!.lines[0]!.values.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 8));
    expect(body.overlays[1]!.lines).toHaveLength(3);
    expect(body.rsi?.period).toBe(14);
    expect(body.rsi?.values).toHaveLength(12);
    expect(body.rsi?.values.every((value) => value !== null && value >= 0 && value <= 100)).toBe(true);
  });

  it('keeps the warm-up as null when the store has too few bars, never a made-up value', async () => {
    const body = jsonBody<CandleResponse>(
      await browser.get('/api/market/candles?symbol=BTC-USD&timeframe=1D&limit=10&overlays=sma50'),
    );
    // Three days of hourly history: at most 4 daily bars, none with 50 days behind them.
    expect(body.candles.length).toBeLessThanOrEqual(4);
    expect(body.overlays[0]!.lines[0]!.values.every((value) => value === null)).toBe(true);
  });

  it('answers a bad timeframe, overlay or RSI period with 400 and a clear message', async () => {
    const cases: Array<[string, string]> = [
      ['timeframe=2h', 'timeframe: timeframe must be one of 1m, 5m, 15m, 1h, 4h, 1D'],
      ['overlays=sma20,wma9', 'overlays: unknown overlay wma9: use sma20, sma50, ema20, bb20'],
      ['rsi=1', 'rsi: rsi must be a whole number between 2 and 100'],
      ['rsi=abc', 'rsi: rsi must be a whole number between 2 and 100'],
    ];
    for (const [query, message] of cases) {
      const response = await browser.get(`/api/market/candles?symbol=BTC-USD&${query}`);
      expect(response.statusCode).toBe(400);
      expect(jsonBody<{ error: string }>(response).error).toBe(message);
    }
  });
});
