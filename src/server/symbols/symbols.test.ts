import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { signedInUser, subscribedUser } from '../testing/users.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import type { SymbolResolveResponse, SymbolSearchResponse } from '../../shared/schemas/symbols.ts';
import { symbolResolveResponse, symbolSearchResponse } from '../../shared/schemas/symbols.ts';

let test: TestApp;
let subscriber: Browser;
beforeAll(async () => {
  test = await createTestApp();
  subscriber = (await subscribedUser(test, 'symbols@example.com')).browser;
});
afterAll(async () => {
  await test?.close();
});

const error = (response: { json(): unknown }) => (response.json() as { error: string }).error;

describe('symbol routes', () => {
  it('are dashboard APIs: 401 for a visitor, 403 without a plan', async () => {
    for (const url of ['/api/symbols/search?q=aapl', '/api/symbols/resolve?symbol=AAPL']) {
      const visitor = await test.app.inject({ method: 'GET', url });
      expect(visitor.statusCode).toBe(401);
      expect(error(visitor)).toBe('Please log in first');
    }
    const { browser } = await signedInUser(test, 'symbols-noplan@example.com');
    const forbidden = await browser.get('/api/symbols/search?q=aapl');
    expect(forbidden.statusCode).toBe(403);
    expect(error(forbidden)).toBe('An active subscription is required');
  });

  it('searches by ticker and by name, best first, at most limit', async () => {
    const mes = await subscriber.get('/api/symbols/search?q=mes');
    expect(mes.statusCode).toBe(200);
    const body = symbolSearchResponse.parse(mes.json());
    expect(body.symbols.length).toBeLessThanOrEqual(10);
    expect(body.symbols[0]).toEqual({
      assetClass: 'micro-future',
      id: 'MES1!',
      ticker: 'MES',
      name: 'Micro E-mini S&P 500',
      exchange: 'CME',
      currency: 'USD',
      tickSize: 0.25,
      calendar: 'cme-globex',
      providerSymbol: 'MES=F',
      pointValue: 5,
      tradingView: 'CME_MINI:MES1!',
    });

    const micro = jsonBody<SymbolSearchResponse>(await subscriber.get('/api/symbols/search?q=Micro&limit=7'));
    expect(micro.symbols.map((symbol) => symbol.ticker).sort()).toEqual([
      'M2K',
      'MCL',
      'MES',
      'MGC',
      'MNQ',
      'MYM',
      'SIL',
    ]);

    const apple = jsonBody<SymbolSearchResponse>(await subscriber.get('/api/symbols/search?q=apple&limit=1'));
    expect(apple.symbols.map((symbol) => [symbol.id, symbol.tradingView])).toEqual([['AAPL', 'NASDAQ:AAPL']]);

    const many = jsonBody<SymbolSearchResponse>(await subscriber.get('/api/symbols/search?q=a&limit=50'));
    expect(many.symbols).toHaveLength(50);
    const none = jsonBody<SymbolSearchResponse>(await subscriber.get('/api/symbols/search?q=zzzzqqq'));
    expect(none.symbols).toEqual([]);
  });

  it('refuses an empty query and a limit out of range, with a clear message', async () => {
    for (const url of ['/api/symbols/search', '/api/symbols/search?q=', '/api/symbols/search?q=%20%20']) {
      const response = await subscriber.get(url);
      expect(response.statusCode, url).toBe(400);
      expect(error(response), url).toMatch(/^q.*type part of a ticker or a name/);
    }
    for (const limit of ['0', '51', 'x', '1.5']) {
      const response = await subscriber.get(`/api/symbols/search?q=a&limit=${limit}`);
      expect(response.statusCode, limit).toBe(400);
      expect(error(response), limit).toContain('limit must be a whole number from 1 to 50');
    }
  });

  it('resolves chart, plain, provider and name forms, and answers 404 with what to try', async () => {
    const resolve = async (symbol: string) =>
      subscriber.get(`/api/symbols/resolve?symbol=${encodeURIComponent(symbol)}`);
    for (const [input, id] of [
      ['CME_MINI:MES1!', 'MES1!'],
      ['BINANCE:BTCUSDT', 'BTC-USD'],
      ['aapl', 'AAPL'],
      ['MES=F', 'MES1!'],
      ['Bitcoin', 'BTC-USD'],
    ]) {
      const response = await resolve(input!);
      expect(response.statusCode, input).toBe(200);
      expect(symbolResolveResponse.parse(response.json()).symbol.id, input).toBe(id);
    }
    const btc = jsonBody<SymbolResolveResponse>(await resolve('BINANCE:BTCUSDT')).symbol;
    expect(btc).toMatchObject({ assetClass: 'crypto', tradingView: 'COINBASE:BTCUSD', calendar: 'crypto-24x7' });
    expect(btc).not.toHaveProperty('pointValue');

    const unknown = await resolve('XYZ');
    expect(unknown.statusCode).toBe(404);
    expect(error(unknown)).toMatch(/^No market data for XYZ: .* Try a ticker \(AAPL, SPY, MES, BTC\)/);

    const wrong = await resolve('BINANCE:AAPL');
    expect(wrong.statusCode).toBe(404);
    expect(error(wrong)).toBe(
      'No market data for BINANCE:AAPL: AAPL (Apple) is not traded on BINANCE; Apple is NASDAQ:AAPL.',
    );

    const missing = await subscriber.get('/api/symbols/resolve');
    expect(missing.statusCode).toBe(400);
    expect(error(missing)).toMatch(/^symbol.*required/);
  });
});
