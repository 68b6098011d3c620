// Contract tests of the Coinbase provider against a local fake Coinbase: recorded shapes,
// timeouts, 429 with Retry-After, partial failures and garbage JSON.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCoinbase, type FakeCoinbase } from '../testing/fakeCoinbase.ts';
import { createCoinbaseProvider } from './coinbase.ts';

let fake: FakeCoinbase;
beforeAll(async () => {
  fake = await startFakeCoinbase({ 'BTC-USD': 64000, 'ETH-USD': 3200, 'SOL-USD': 150 });
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.behave('*', 'ok', 0);
  for (const id of ['BTC-USD', 'ETH-USD', 'SOL-USD']) fake.behave(id, 'ok', 0);
});

function provider(overrides = {}) {
  return createCoinbaseProvider({
    priceApiBase: fake.url,
    exchangeApiBase: fake.url,
    timeoutMs: 300,
    backoffMs: 5,
    retries: 2,
    ...overrides,
  });
}

describe('Coinbase provider', () => {
  it('reads spot, buy and sell per product', async () => {
    const results = await provider().quotes(['BTC-USD', 'ETH-USD']);
    const btc = results.get('BTC-USD');
    expect(btc?.ok).toBe(true);
    if (btc?.ok) {
      expect(btc.quote.spot).toBe(64000);
      expect(btc.quote.buy).toBeCloseTo(64320, 6);
      expect(btc.quote.sell).toBeCloseTo(63680, 6);
    }
  });

  it('reports a product that fails without failing the others', async () => {
    fake.behave('ETH-USD', 'garbage');
    const results = await provider().quotes(['BTC-USD', 'ETH-USD', 'DOGE-USD']);
    expect(results.get('BTC-USD')?.ok).toBe(true);
    expect(results.get('ETH-USD')).toEqual({ ok: false, error: 'Coinbase answered with malformed JSON' });
    expect(results.get('DOGE-USD')).toEqual({ ok: false, error: 'Coinbase answered HTTP 404' });
  });

  it('retries after a 429 and succeeds', async () => {
    fake.behave('SOL-USD', 'rate-limited', 2);
    const results = await provider().quotes(['SOL-USD']);
    expect(results.get('SOL-USD')?.ok).toBe(true);
  });

  it('gives up with a clear error when 429s persist', async () => {
    fake.behave('SOL-USD', 'rate-limited');
    const results = await provider().quotes(['SOL-USD']);
    expect(results.get('SOL-USD')).toEqual({ ok: false, error: 'Coinbase rate limit reached (429)' });
  });

  it('times out a slow answer and retries 5xx', async () => {
    fake.behave('BTC-USD', 'slow');
    const slow = await provider({ retries: 0 }).quotes(['BTC-USD']);
    expect(slow.get('BTC-USD')).toEqual({ ok: false, error: 'Coinbase did not answer within 300 ms' });

    fake.behave('BTC-USD', 'server-error', 1);
    const recovered = await provider().quotes(['BTC-USD']);
    expect(recovered.get('BTC-USD')?.ok).toBe(true);
  });

  it('reports an unreachable Coinbase for every product', async () => {
    const offline = createCoinbaseProvider({
      priceApiBase: 'http://127.0.0.1:9',
      exchangeApiBase: 'http://127.0.0.1:9',
      retries: 0,
      timeoutMs: 300,
    });
    const results = await offline.quotes(['BTC-USD', 'ETH-USD']);
    expect([...results.values()]).toEqual([
      { ok: false, error: 'Coinbase is unreachable' },
      { ok: false, error: 'Coinbase is unreachable' },
    ]);
  });

  it('pages candles in 300-bar requests and returns them oldest first without duplicates', async () => {
    const end = new Date(Date.UTC(2026, 0, 10));
    const start = new Date(end.getTime() - 700 * 3600_000);
    const before = fake.requests.length;
    const candles = await provider().candles('BTC-USD', 3600, start, end);
    expect(fake.requests.length - before).toBe(3);
    expect(candles).toHaveLength(700);
    expect(candles[0]!.time).toBe(start.getTime());
    expect(candles.at(-1)!.time).toBe(end.getTime() - 3600_000);
    expect(candles.every((candle, index) => index === 0 || candle.time - candles[index - 1]!.time === 3600_000)).toBe(
      true,
    );
    expect(candles[0]!.high).toBeGreaterThanOrEqual(candles[0]!.low);
  });
});
