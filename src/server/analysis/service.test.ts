// Market analysis on the demo feed: one WATOS card a bar (the grid, the assistant, the rules
// and the track record share it), the grid's history with the odds horizon, and expected
// failures as MarketAnalysisErrors (422 domain errors) with the text a trader reads.
import { describe, expect, it } from 'vitest';
import { createDemoFeed, createMarketRouter, DEMO_EPOCH, type MarketRouter } from '../market/service.ts';
import { createMarketAnalysis, MarketAnalysisError } from './service.ts';

const NOW = DEMO_EPOCH + 75 * 86_400_000 + 15 * 3_600_000 + 17 * 60_000;

function demoMarket(): MarketRouter & { candleCalls: number } {
  const feed = createDemoFeed({ now: () => NOW });
  const router = createMarketRouter({ mode: 'demo', coinbase: feed, yahoo: feed, demo: feed, now: () => NOW });
  const counted = {
    candleCalls: 0,
    source: router.source,
    quotes: (ids: readonly string[]) => router.quotes(ids),
    sourceOf: (id: string) => router.sourceOf(id),
    candles: (...args: Parameters<MarketRouter['candles']>) => {
      counted.candleCalls += 1;
      return router.candles(...args);
    },
  };
  return counted;
}

describe('market analysis', () => {
  it('measures one WATOS card a bar and reuses the loaded candles across timeframes of one base', async () => {
    const market = demoMarket();
    const analysis = createMarketAnalysis({ market, now: () => NOW });
    const card = await analysis.watos('btc', '1h');
    expect(card).toMatchObject({ available: true, productId: 'BTC-USD', timeframe: '1h', source: 'demo' });
    expect(card.signals).toHaveLength(6);
    expect(await analysis.watos('BTC-USD', '1h')).toBe(card);
    // 4h is built from the same hourly candles: no second load.
    const fourHours = await analysis.history('BTC', '4h');
    expect(fourHours.horizonBars).toBe(6);
    expect(fourHours.series.length).toBeGreaterThan(2);
    expect(market.candleCalls).toBe(1);
    const summary = await analysis.candleSummary('BTC', '4h');
    expect(summary.lastClose).toBe(fourHours.series.close[fourHours.series.length - 1]);
    expect(market.candleCalls).toBe(1);
  });

  it('refuses an unknown symbol and a timeframe it cannot build, as 422 domain errors with the reason', async () => {
    const analysis = createMarketAnalysis({ market: demoMarket(), now: () => NOW });
    const unknown = analysis.watos('LSE:VOD', '1h');
    await expect(unknown).rejects.toBeInstanceOf(MarketAnalysisError);
    await expect(unknown).rejects.toMatchObject({
      kind: 'unprocessable',
      message: expect.stringMatching(/I will not guess a price\.$/),
    });
    await expect(analysis.candleSummary('BTC', 'W')).rejects.toThrow(
      'The W timeframe needs more history than the 60 days of hourly candles available here; ask for D (daily) or a shorter timeframe.',
    );
  });
});
