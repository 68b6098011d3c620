// The price snapshot service: docs/SPEC.md's response shape, the shared 10 s cache with one
// in-flight upstream call, and auto mode's switch to labelled demo data and back.
import { describe, expect, it } from 'vitest';
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import { buildSnapshot, createQuoteService } from './quotes.ts';
import type { MarketDataProvider, QuoteResult } from './types.ts';

/** A provider whose answers the test controls, counting how often it is asked. */
function scriptedProvider(source: 'coinbase' | 'demo', answer: (productId: string) => QuoteResult) {
  const calls = { count: 0 };
  const provider: MarketDataProvider = {
    source,
    async quotes(productIds) {
      calls.count += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return new Map(productIds.map((id) => [id, answer(id)]));
    },
    candles() {
      return Promise.resolve([]);
    },
  };
  return { provider, calls };
}

const at = new Date('2026-05-01T12:00:00Z');
const quote = (productId: string, spot: number): QuoteResult => ({
  ok: true,
  quote: { productId, spot, buy: spot * 1.01, sell: spot * 0.99, at },
});

describe('buildSnapshot', () => {
  it('has docs/SPEC.md shape with null prices and a failed count for failures', () => {
    const results = new Map<string, QuoteResult>([
      ['BTC-USD', quote('BTC-USD', 60000)],
      ['ETH-USD', { ok: false, error: 'Coinbase answered HTTP 404' }],
    ]);
    const snapshot = buildSnapshot('coinbase', results, ['BTC-USD', 'ETH-USD'], at);
    expect(snapshot.summary).toEqual({
      total_cryptos_requested: 2,
      successful_fetches: 1,
      failed_fetches: 1,
      total_market_value_tracked: 60000,
    });
    const btc = snapshot.prices['BTC-USD']!;
    expect(btc).toMatchObject({ symbol: 'BTC', spot_price: 60000, last_updated: '2026-05-01T12:00:00.000Z' });
    expect(btc.buy_price).toBeCloseTo(60600, 6);
    expect(btc.sell_price).toBeCloseTo(59400, 6);
    expect(btc.spread_percent).toBeCloseTo(2, 10);
    expect(snapshot.prices['ETH-USD']).toMatchObject({
      symbol: 'ETH',
      spot_price: null,
      spread_percent: null,
      error: 'Coinbase answered HTTP 404',
    });
    expect(snapshot.metadata).toEqual({
      timestamp: '2026-05-01T12:00:00.000Z',
      source: 'coinbase',
      exchange: 'Coinbase',
    });
  });
});

describe('quote service', () => {
  it('asks upstream once for many concurrent and repeated readers within 10 s', async () => {
    let clock = 0;
    const coinbase = scriptedProvider('coinbase', (id) => quote(id, 100));
    const demo = scriptedProvider('demo', (id) => quote(id, 1));
    const service = createQuoteService({
      mode: 'coinbase',
      coinbase: coinbase.provider,
      demo: demo.provider,
      now: () => clock,
    });
    const snapshots = await Promise.all(Array.from({ length: 50 }, () => service.snapshot()));
    expect(coinbase.calls.count).toBe(1);
    expect(snapshots[0]!.summary.total_cryptos_requested).toBe(CRYPTO_SYMBOLS.length);
    clock = 9_999;
    await service.snapshot();
    expect(coinbase.calls.count).toBe(1);
    clock = 10_000;
    await service.snapshot();
    expect(coinbase.calls.count).toBe(2);
  });

  it('in auto mode serves labelled demo data while Coinbase is down and tries Coinbase again later', async () => {
    let clock = 0;
    let coinbaseUp = false;
    const coinbase = scriptedProvider('coinbase', (id) =>
      coinbaseUp ? quote(id, 100) : { ok: false, error: 'Coinbase is unreachable' },
    );
    const demo = scriptedProvider('demo', (id) => quote(id, 1));
    const service = createQuoteService({
      mode: 'auto',
      coinbase: coinbase.provider,
      demo: demo.provider,
      now: () => clock,
      retryCoinbaseMs: 60_000,
    });

    const down = await service.snapshot();
    expect(down.metadata.source).toBe('demo');
    expect(down.metadata.exchange).toBe('Coinbase (demo data)');
    expect(service.currentSource()).toBe('demo');

    coinbaseUp = true;
    clock = 30_000;
    expect((await service.snapshot()).metadata.source).toBe('demo');
    expect(coinbase.calls.count).toBe(1);

    clock = 61_000;
    const back = await service.snapshot();
    expect(back.metadata.source).toBe('coinbase');
    expect(back.prices['BTC-USD']!.spot_price).toBe(100);
  });

  it('in auto mode asks one quick probe first and skips the full fetch when Coinbase is unreachable', async () => {
    const coinbase = scriptedProvider('coinbase', (id) => quote(id, 100));
    let probes = 0;
    coinbase.provider.probe = () => {
      probes += 1;
      return Promise.resolve(false);
    };
    const demo = scriptedProvider('demo', (id) => quote(id, 1));
    const service = createQuoteService({ mode: 'auto', coinbase: coinbase.provider, demo: demo.provider });
    expect((await service.snapshot()).metadata.source).toBe('demo');
    expect(probes).toBe(1);
    expect(coinbase.calls.count).toBe(0);
  });

  it('in coinbase mode reports failures instead of switching to demo data', async () => {
    const coinbase = scriptedProvider('coinbase', () => ({ ok: false, error: 'Coinbase is unreachable' }));
    const demo = scriptedProvider('demo', (id) => quote(id, 1));
    const service = createQuoteService({ mode: 'coinbase', coinbase: coinbase.provider, demo: demo.provider });
    const snapshot = await service.snapshot();
    expect(snapshot.metadata.source).toBe('coinbase');
    expect(snapshot.summary.failed_fetches).toBe(CRYPTO_SYMBOLS.length);
    expect(demo.calls.count).toBe(0);
  });
});
