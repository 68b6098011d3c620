// GET /api/market/watchlist on crafted stored candles and alerts: exact last prices, session
// opens (crypto's UTC day, a stock's 09:30 ET regular session), changes, sparklines and the
// newest alert per symbol; no-data and unknown symbols; the 50-symbol cap and the dashboard gate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveAlerts } from '../alerts/service.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import type { WatchlistQuotesResponse } from '../../shared/schemas/market.ts';
import { storeCandles, type CandleRow } from './service.ts';

const MINUTE = 60_000;
let test: TestApp;
let browser: Browser;

function bars(start: string, count: number, bar: (index: number) => { open: number; close: number }): CandleRow[] {
  const first = Date.parse(start);
  return Array.from({ length: count }, (_, index) => {
    const { open, close } = bar(index);
    return {
      time: first + index * MINUTE,
      open,
      high: Math.max(open, close),
      low: Math.min(open, close),
      close,
      volume: 1,
    };
  });
}

beforeAll(async () => {
  test = await createTestApp();
  ({ browser } = await subscribedUser(test, 'watchlist-quotes@example.com'));
  const db = test.database.db;
  // BTC: 10 bars before midnight UTC, then 70 bars of the new UTC day; the newest 60 start at
  // 00:10, after the day's open, so the open comes from the store's second query.
  await storeCandles(db, 'BTC-USD', 60, 'coinbase', [
    ...bars('2026-11-24T23:50:00Z', 10, (index) => ({ open: 1000 + index, close: 1000 + index })),
    ...bars('2026-11-25T00:00:00Z', 70, (index) => ({ open: 2000 + index, close: 2000.5 + index })),
  ]);
  // An hourly bar is not a one-minute bar: it never becomes the last price.
  await storeCandles(
    db,
    'BTC-USD',
    3600,
    'coinbase',
    bars('2026-11-25T02:00:00Z', 1, () => ({ open: 1, close: 1 })),
  );
  // ETH: 20 bars before midnight and 30 after; all 50 are the sparkline, the day's first bar among them.
  await storeCandles(db, 'ETH-USD', 60, 'demo', [
    ...bars('2026-11-24T23:40:00Z', 20, () => ({ open: 10, close: 10 })),
    ...bars('2026-11-25T00:00:00Z', 30, (index) => ({ open: 20 + index, close: 21 + index })),
  ]);
  // AAPL: the first ten minutes of Tuesday 24 November 2026's regular session (09:30 ET = 14:30 UTC), from Yahoo.
  await storeCandles(
    db,
    'AAPL',
    60,
    'yahoo',
    bars('2026-11-24T14:30:00Z', 10, (index) => ({ open: 200 + index * 0.25, close: 200 + (index + 1) * 0.25 })),
  );
  await saveAlerts(db, [
    {
      ticker: 'BTC',
      alertType: 'Breakout',
      message: 'BTC broke out',
      timestamp: new Date('2026-11-25T00:30:00Z'),
      source: 'coinbase',
    },
    {
      ticker: 'BTC',
      alertType: 'RSI',
      message: 'BTC RSI 72',
      timestamp: new Date('2026-11-25T01:05:00Z'),
      source: 'coinbase',
    },
    {
      ticker: 'AAPL',
      alertType: 'Volume Spike',
      message: 'AAPL volume x3',
      timestamp: new Date('2026-11-24T14:35:00Z'),
      source: 'yahoo',
    },
  ]);
});
afterAll(async () => {
  await test?.close();
});

async function quotes(symbols: string): Promise<WatchlistQuotesResponse> {
  const response = await browser.get(`/api/market/watchlist?symbols=${encodeURIComponent(symbols)}`);
  expect(response.statusCode).toBe(200);
  return jsonBody<WatchlistQuotesResponse>(response);
}

describe('GET /api/market/watchlist', () => {
  it('gives a crypto its last close, change since the UTC day open, sparkline and newest alert', async () => {
    const [btc] = (await quotes('BTC')).entries;
    expect(btc).toEqual({
      status: 'priced',
      query: 'BTC',
      id: 'BTC-USD',
      ticker: 'BTC',
      name: 'Bitcoin',
      assetClass: 'crypto',
      last: 2069.5,
      lastTime: '2026-11-25T01:09:00.000Z',
      sessionOpen: 2000,
      sessionOpenTime: '2026-11-25T00:00:00.000Z',
      change: 69.5,
      changePercent: 3.475,
      sparkline: Array.from({ length: 60 }, (_, index) => 2010.5 + index),
      sparklineFrom: '2026-11-25T00:10:00.000Z',
      latestAlert: { type: 'RSI', message: 'BTC RSI 72', time: '2026-11-25T01:05:00.000Z' },
      source: 'coinbase',
      delayed: false,
      message: null,
    });
  });

  it('finds the session open among the newest bars and answers every form in the order asked', async () => {
    const { entries } = await quotes('ETH-USD, NASDAQ:AAPL,AAPL,MSFT,LSE:VOD');
    expect(entries.map((entry) => [entry.query, entry.status])).toEqual([
      ['ETH-USD', 'priced'],
      ['NASDAQ:AAPL', 'priced'],
      ['AAPL', 'priced'],
      ['MSFT', 'no-data'],
      ['LSE:VOD', 'unknown'],
    ]);
    expect(entries[0]).toMatchObject({
      id: 'ETH-USD',
      last: 50,
      sessionOpen: 20,
      sessionOpenTime: '2026-11-25T00:00:00.000Z',
      change: 30,
      changePercent: 150,
      sparklineFrom: '2026-11-24T23:40:00.000Z',
      latestAlert: null,
      source: 'demo',
      delayed: false,
    });
    expect(entries[0]!.status === 'priced' && entries[0]!.sparkline).toEqual([
      ...Array<number>(20).fill(10),
      ...Array.from({ length: 30 }, (_, index) => 21 + index),
    ]);
    // A stock's session is the 09:30 ET regular session; Yahoo's figures are delayed.
    expect(entries[1]).toMatchObject({
      id: 'AAPL',
      ticker: 'AAPL',
      name: 'Apple',
      assetClass: 'stock',
      last: 202.5,
      lastTime: '2026-11-24T14:39:00.000Z',
      sessionOpen: 200,
      sessionOpenTime: '2026-11-24T14:30:00.000Z',
      change: 2.5,
      changePercent: 1.25,
      latestAlert: { type: 'Volume Spike', message: 'AAPL volume x3', time: '2026-11-24T14:35:00.000Z' },
      source: 'yahoo',
      delayed: true,
    });
    expect({ ...entries[2], query: 'NASDAQ:AAPL' }).toEqual(entries[1]);
    expect(entries[3]).toEqual({
      status: 'no-data',
      query: 'MSFT',
      id: 'MSFT',
      ticker: 'MSFT',
      name: 'Microsoft',
      assetClass: 'stock',
      last: null,
      lastTime: null,
      sessionOpen: null,
      sessionOpenTime: null,
      change: null,
      changePercent: null,
      sparkline: [],
      sparklineFrom: null,
      latestAlert: null,
      source: null,
      delayed: false,
      message: 'No prices for MSFT yet: its first bars have not been stored.',
    });
    expect(entries[4]).toEqual({
      status: 'unknown',
      query: 'LSE:VOD',
      error:
        'No market data for LSE:VOD: it is not a market we cover. Try a ticker (AAPL, SPY, MES, BTC), a chart symbol (NASDAQ:AAPL, CME_MINI:MES1!) or a name (Apple, Micro Gold).',
    });
  });

  it('refuses no symbols and more than 50 with a clear message', async () => {
    const empty = await browser.get('/api/market/watchlist?symbols=,');
    expect(empty.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(empty).error).toContain('symbols is required');
    const many = Array.from({ length: 51 }, (_, index) => `S${index}`).join(',');
    const tooMany = await browser.get(`/api/market/watchlist?symbols=${many}`);
    expect(tooMany.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(tooMany).error).toContain('At most 50 symbols a request');
  });

  it('is a dashboard API: a visitor without a subscription is refused', async () => {
    const visitor = new Browser(test.app, test.config.publicUrl);
    const response = await visitor.get('/api/market/watchlist?symbols=BTC');
    expect(response.statusCode).toBe(401);
  });
});
