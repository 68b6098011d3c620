import { describe, expect, it } from 'vitest';
import { createMarketRouter, slotOf, type MarketDataMode } from './router.ts';
import {
  UpstreamError,
  type CandleRow,
  type MarketDataProvider,
  type MarketSource,
  type QuoteResult,
} from './types.ts';

/** A provider that answers with bars tagged by its name, or fails the way a real one does. */
function provider(source: MarketSource, level: number) {
  const calls: string[] = [];
  const state = { failWith: null as UpstreamError | null, reachable: true };
  const bar = (time: number): CandleRow => ({ time, open: level, high: level, low: level, close: level, volume: 1 });
  const api: MarketDataProvider = {
    source,
    async probe() {
      calls.push('probe');
      return state.reachable;
    },
    async quotes(ids) {
      calls.push(`quotes:${ids.join(',')}`);
      const results = new Map<string, QuoteResult>();
      for (const id of ids)
        results.set(
          id,
          state.failWith
            ? { ok: false, error: state.failWith.message }
            : { ok: true, quote: { productId: id, spot: level, buy: level, sell: level, at: new Date(0) } },
        );
      return results;
    },
    async candles(id, _granularity, start) {
      calls.push(`candles:${id}`);
      if (state.failWith) throw state.failWith;
      return [bar(start.getTime())];
    },
  };
  return { api, calls, state };
}

function setup(mode: MarketDataMode) {
  let clock = 1_000_000;
  const coinbase = provider('coinbase', 1);
  const yahoo = provider('yahoo', 2);
  const demo = provider('demo', 3);
  const router = createMarketRouter({
    mode,
    coinbase: coinbase.api,
    yahoo: yahoo.api,
    demo: demo.api,
    retryMs: 60_000,
    now: () => clock,
  });
  const advance = (ms: number) => {
    clock += ms;
  };
  return { router, coinbase, yahoo, demo, advance };
}

const at = (ms: number) => new Date(ms);
const closeOf = async (router: ReturnType<typeof setup>['router'], id: string) =>
  (await router.candles(id, 60, at(0), at(60_000)))[0]!.close;

describe('market router', () => {
  it('sends crypto to Coinbase and every other class to Yahoo', async () => {
    const { router } = setup('auto');
    expect(slotOf('BTC-USD')).toBe('coinbase');
    expect(slotOf('AAPL')).toBe('yahoo');
    expect(slotOf('MES1!')).toBe('yahoo');
    expect(slotOf('SPX')).toBe('yahoo');
    expect(await closeOf(router, 'BTC-USD')).toBe(1);
    expect(await closeOf(router, 'AAPL')).toBe(2);
    expect(router.sourceOf('BTC-USD')).toBe('coinbase');
    expect(router.sourceOf('MES1!')).toBe('yahoo');
  });

  it('auto: a Yahoo outage moves stocks to the labelled demo feed while crypto stays on Coinbase, and Yahoo is retried a minute later', async () => {
    const { router, yahoo, advance } = setup('auto');
    expect(await closeOf(router, 'AAPL')).toBe(2);
    yahoo.state.failWith = new UpstreamError('Yahoo answered HTTP 503', 503);
    expect(await closeOf(router, 'AAPL')).toBe(3);
    expect(router.sourceOf('AAPL')).toBe('demo');
    expect(await closeOf(router, 'BTC-USD')).toBe(1);
    expect(router.sourceOf('BTC-USD')).toBe('coinbase');

    yahoo.state.failWith = null;
    advance(30_000);
    expect(await closeOf(router, 'AAPL')).toBe(3);
    advance(31_000);
    expect(await closeOf(router, 'AAPL')).toBe(2);
    expect(router.sourceOf('AAPL')).toBe('yahoo');
  });

  it('auto: an unreachable provider found by the first probe is not called at all', async () => {
    const { router, coinbase } = setup('auto');
    coinbase.state.reachable = false;
    expect(await closeOf(router, 'ETH-USD')).toBe(3);
    expect(coinbase.calls).toEqual(['probe']);
    expect(router.sourceOf('ETH-USD')).toBe('demo');
  });

  it('a product the provider does not know is an error, not a fall-back to invented prices', async () => {
    const { router, yahoo, demo } = setup('auto');
    yahoo.state.failWith = new UpstreamError('Yahoo answered HTTP 404', 404);
    await expect(router.candles('AAPL', 60, at(0), at(60_000))).rejects.toThrow('HTTP 404');
    expect(demo.calls).toEqual([]);
    expect(router.sourceOf('AAPL')).toBe('yahoo');
  });

  it('live: never the demo feed, an outage is an error', async () => {
    const { router, yahoo, demo } = setup('live');
    yahoo.state.failWith = new UpstreamError('Yahoo is unreachable');
    await expect(router.candles('AAPL', 60, at(0), at(60_000))).rejects.toThrow('unreachable');
    expect(demo.calls).toEqual([]);
  });

  it('coinbase: crypto forced to Coinbase, the other classes still fall back', async () => {
    const { router, coinbase, yahoo } = setup('coinbase');
    coinbase.state.failWith = new UpstreamError('Coinbase is unreachable');
    yahoo.state.failWith = new UpstreamError('Yahoo is unreachable');
    await expect(router.candles('BTC-USD', 60, at(0), at(60_000))).rejects.toThrow('Coinbase is unreachable');
    expect(await closeOf(router, 'AAPL')).toBe(3);
  });

  it('demo: everything from the demo feed, labelled demo', async () => {
    const { router, coinbase, yahoo } = setup('demo');
    expect(await closeOf(router, 'BTC-USD')).toBe(3);
    expect(await closeOf(router, 'MES1!')).toBe(3);
    expect(router.sourceOf('BTC-USD')).toBe('demo');
    expect(router.sourceOf('MES1!')).toBe('demo');
    expect(coinbase.calls).toEqual([]);
    expect(yahoo.calls).toEqual([]);
  });

  it('quotes: one call per provider for a mixed batch; every quote failing on an unreachable provider falls back', async () => {
    const { router, coinbase, yahoo } = setup('auto');
    const first = await router.quotes(['BTC-USD', 'AAPL', 'ETH-USD', 'MES1!']);
    expect(coinbase.calls).toEqual(['probe', 'quotes:BTC-USD,ETH-USD']);
    expect(yahoo.calls).toEqual(['probe', 'quotes:AAPL,MES1!']);
    expect([...first.values()].map((result) => result.ok && result.quote.spot)).toEqual([1, 2, 1, 2]);

    yahoo.state.failWith = new UpstreamError('Yahoo is unreachable');
    yahoo.state.reachable = false;
    const second = await router.quotes(['AAPL']);
    const aapl = second.get('AAPL');
    expect(aapl?.ok && aapl.quote.spot).toBe(3);
    expect(router.sourceOf('AAPL')).toBe('demo');
  });

  it('quotes: products a reachable provider does not know stay per-product errors', async () => {
    const { router, yahoo } = setup('auto');
    yahoo.state.failWith = new UpstreamError('No quote for ZZZZ');
    const answer = await router.quotes(['AAPL']);
    expect(answer.get('AAPL')).toEqual({ ok: false, error: 'No quote for ZZZZ' });
    expect(router.sourceOf('AAPL')).toBe('yahoo');
  });

  it('pinned: sources decided once stay fixed, so stored bars never mix real and demo prices', async () => {
    const { router, yahoo, coinbase } = setup('auto');
    coinbase.state.reachable = false;
    const pinned = await router.pinned();
    expect(pinned.sourceOf('BTC-USD')).toBe('demo');
    expect(pinned.sourceOf('AAPL')).toBe('yahoo');
    yahoo.state.failWith = new UpstreamError('Yahoo is unreachable');
    await expect(pinned.candles('AAPL', 60, at(0), at(60_000))).rejects.toThrow('unreachable');
    expect(pinned.sourceOf('AAPL')).toBe('yahoo');
    coinbase.state.reachable = true;
    expect((await pinned.candles('BTC-USD', 60, at(0), at(60_000)))[0]!.close).toBe(3);
  });

  it('candlesFrom: bars from exactly the source asked, in an outage an error, never the demo feed', async () => {
    const { router, coinbase, yahoo } = setup('auto');
    const from = (source: MarketSource, id: string) => router.candlesFrom(source, id, 60, at(0), at(60_000));
    expect((await from('coinbase', 'BTC-USD'))[0]!.close).toBe(1);
    expect((await from('yahoo', 'AAPL'))[0]!.close).toBe(2);
    expect((await from('demo', 'AAPL'))[0]!.close).toBe(3);
    // Yahoo does not serve crypto: no bars of BTC come from it.
    await expect(from('yahoo', 'BTC-USD')).rejects.toThrow('BTC-USD has no bars from yahoo');
    coinbase.state.failWith = new UpstreamError('Coinbase answered HTTP 503', 503);
    coinbase.state.reachable = false;
    // The router's own read falls back; candlesFrom does not, even while the slot is marked down.
    expect(await closeOf(router, 'BTC-USD')).toBe(3);
    await expect(from('coinbase', 'BTC-USD')).rejects.toThrow('Coinbase answered HTTP 503');
    expect(yahoo.calls.filter((call) => call === 'candles:BTC-USD')).toEqual([]);
  });
});
