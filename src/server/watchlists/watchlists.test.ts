import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { subscribedUser } from '../testing/users.ts';
import { jsonBody } from '../testing/http.ts';
import type { WatchlistResponse } from '../../shared/schemas/watchlists.ts';

let test: TestApp;
beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});

describe('watchlists', () => {
  it('starts from the defaults, saves normalised symbols per user, and rejects bad ones without losing the saved list', async () => {
    const { browser } = await subscribedUser(test, 'watch@example.com');
    expect((await browser.get('/api/watchlists/alerts')).json()).toEqual({ symbols: ['AAPL', 'TSLA', 'BTC', 'ETH'] });

    const saved = await browser.put('/api/watchlists/chart', {
      symbols: [' nasdaq:aapl ', 'BINANCE:BTCUSDT', 'NASDAQ:AAPL'],
    });
    expect(saved.json()).toEqual({ symbols: ['NASDAQ:AAPL', 'BINANCE:BTCUSDT'] });

    const bad = await browser.put('/api/watchlists/chart', { symbols: ['AAPL'] });
    expect(bad.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(bad).error).toBe(
      'symbols.0: Please use format EXCHANGE:SYMBOL (e.g., NASDAQ:AAPL)',
    );
    expect((await browser.get('/api/watchlists/chart')).json()).toEqual({
      symbols: ['NASDAQ:AAPL', 'BINANCE:BTCUSDT'],
    });

    const other = await subscribedUser(test, 'other-watch@example.com');
    expect(jsonBody<WatchlistResponse>(await other.browser.get('/api/watchlists/chart')).symbols).toHaveLength(6);
  });
});
