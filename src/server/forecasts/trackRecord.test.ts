// The track record through the real app on the demo feed: forecasts recorded from a grid
// request and an assistant answer, resolved after the horizon through the test hook (which
// stores the demo feed's bars up to a later `now`, as the engine would have), scored in
// GET /api/track-record, labelled demo; the backtest; the dashboard gate and bad input.
import { and, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatosCard } from '../../shared/schemas/chat.ts';
import type { TrackRecordResponse } from '../../shared/schemas/trackRecord.ts';
import { unknownSymbolMessage } from '../../shared/symbols.ts';
import { forecasts } from '../db/schema.ts';
import { createDemoFeed } from '../market/service.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { signedInUser, subscribedUser } from '../testing/users.ts';
import { FORECAST_TIMEFRAMES } from './service.ts';

type Card = Extract<WatosCard, { available: true }>;
const stated = (card: Card) => card.signals.filter((signal) => signal.active && signal.odds?.probability != null);

async function chat(test: TestApp, browser: Browser, question: string): Promise<string> {
  const form = new FormData();
  form.append('messages', JSON.stringify([{ role: 'user', content: question }]));
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const response: LightMyRequestResponse = await test.app.inject({
    method: 'POST',
    url: '/api/chat',
    payload: Buffer.from(await request.arrayBuffer()),
    headers: {
      origin: test.config.publicUrl,
      cookie: browser.cookieHeader,
      'content-type': request.headers.get('content-type')!,
    },
  });
  expect(response.statusCode).toBe(200);
  return response.body
    .split('\n\n')
    .filter((block) => block.startsWith('data: {'))
    .map((block) => JSON.parse(block.slice(6)) as { type: string; delta?: string })
    .map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : ''))
    .join('');
}

describe('track record on the demo feed', () => {
  let test: TestApp;
  let trader: Browser;
  let gridCard: Card;
  let answerCard: Card;
  /** The first answer about answerCard's market, before any forecast was resolved. */
  let firstAnswer: string;

  beforeAll(async () => {
    test = await createTestApp({ TEST_HOOKS: 'true', AI_RATE_LIMIT_PER_MINUTE: '1000' });
    trader = (await subscribedUser(test, 'record@example.com')).browser;
    // The demo feed moves with the clock, so look among a few markets for one whose odds the
    // assistant states (some signal active with a measured probability), then another whose
    // grid card states odds. Crypto only: 24 hourly bars are 24 hours whatever the day (a
    // stock's horizon spans its closed hours, which resolution.test.ts covers).
    const markets = ['BTC', 'ETH', 'SOL', 'AVAX', 'DOGE', 'XRP', 'ADA', 'LTC', 'LINK', 'DOT'];
    const counted = async (symbol: string) => {
      await test.app.services.forecasts.flush();
      return (await test.database.db.select().from(forecasts).where(eq(forecasts.symbol, symbol))).length;
    };
    while (markets.length > 0 && !answerCard) {
      const symbol = markets.shift()!;
      const text = await chat(test, trader, `What are the odds for ${symbol} on the 1h chart?`);
      const card = jsonBody<WatosCard>(await trader.get(`/api/watos/${symbol}?timeframe=1h`));
      if (card.available && (await counted(card.productId)) > 0) {
        answerCard = card;
        firstAnswer = text;
      }
    }
    while (markets.length > 0 && !gridCard) {
      const card = jsonBody<WatosCard>(await trader.get(`/api/watos/${markets.shift()!}?timeframe=1h`));
      if (card.available && stated(card).length > 0) gridCard = card;
    }
    expect(answerCard).toBeDefined();
    expect(gridCard).toBeDefined();
  }, 180_000);
  afterAll(async () => {
    await test?.close();
  });

  const rowsOf = (productId: string) =>
    test.database.db.select().from(forecasts).where(eq(forecasts.symbol, productId));

  it('is a dashboard API: 401 for a visitor, 403 without a subscription, 400 for bad filters', async () => {
    const visitor = new Browser(test.app, test.config.publicUrl);
    expect((await visitor.get('/api/track-record')).statusCode).toBe(401);
    expect((await visitor.get('/api/track-record/backtest?symbol=BTC')).statusCode).toBe(401);
    const unpaid = (await signedInUser(test, 'unpaid-record@example.com')).browser;
    expect((await unpaid.get('/api/track-record')).statusCode).toBe(403);
    const badPeriod = await trader.get('/api/track-record?period=1y');
    expect(badPeriod.statusCode).toBe(400);
    expect(badPeriod.json<{ error: string }>().error).toContain('period must be one of 7d, 30d, 90d, all');
    const unknown = await trader.get('/api/track-record?symbol=NOPE9');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ error: string }>().error).toBe(unknownSymbolMessage('NOPE9'));
    expect((await trader.get('/api/track-record?source=paper')).statusCode).toBe(400);
    expect((await trader.get('/api/track-record/backtest')).statusCode).toBe(400);
  });

  it('records the grid card and an assistant answer, resolves them after the horizon and scores them', async () => {
    // The grid card's statements were recorded by the requests above (origin grid).
    await test.app.services.forecasts.flush();
    const grid = await rowsOf(gridCard.productId);
    expect(grid.map((row) => row.signal).sort()).toEqual(
      stated(gridCard)
        .map((signal) => signal.id)
        .sort(),
    );
    expect(grid.every((row) => row.origin === 'grid' && row.source === 'demo' && row.status === 'pending')).toBe(true);
    const barTime = Date.parse(gridCard.lastBarTime) + FORECAST_TIMEFRAMES['1h'].ms;
    expect(grid[0]!.barTime.getTime()).toBe(barTime);
    expect(grid[0]!.dueAt.getTime()).toBe(barTime + 24 * 3_600_000);
    expect(grid[0]!.entryClose).toBe(gridCard.lastClose);

    // Asking again within the bar adds nothing; the answer's statements were recorded as 'answer'.
    await trader.get(`/api/watos/${gridCard.symbol}?timeframe=1h`);
    await test.app.services.forecasts.flush();
    expect(await rowsOf(gridCard.productId)).toHaveLength(grid.length);
    const answer = await rowsOf(answerCard.productId);
    expect(answer.map((row) => row.signal).sort()).toEqual(
      stated(answerCard)
        .map((signal) => signal.id)
        .sort(),
    );
    expect(answer.every((row) => row.origin === 'answer')).toBe(true);
    // No live record yet: the answer cited the backtest, marked so, and said it is demo data.
    expect(firstAnswer).toMatch(
      /\*\*Track record:\*\*\n- .+ on 1h, .+: stated \d+%, realised \d+% over [\d,]+ backtest forecasts? \(backtest, not live\) \(demo data\)\./,
    );

    const pending = jsonBody<TrackRecordResponse>(await trader.get('/api/track-record'));
    expect(pending).toMatchObject({ kind: 'live', source: 'demo', brier: null, reliability: [] });
    expect(pending.counts).toEqual({ resolved: 0, pending: grid.length + answer.length, unresolvable: 0 });

    // Not due yet: the hook resolves nothing.
    const early = await trader.post('/api/test/forecasts/resolve', {});
    expect(jsonBody<{ resolved: number }>(early).resolved).toBe(0);

    // A day and a bit later (the horizon is 24 hourly bars): the demo feed's bars are stored and every forecast settles.
    const later = new Date(barTime + 25 * 3_600_000).toISOString();
    const resolved = jsonBody<{ storedBars: number; resolved: number; unresolvable: number; waiting: number }>(
      await trader.post('/api/test/forecasts/resolve', { now: later }),
    );
    expect(resolved.storedBars).toBeGreaterThan(0);
    expect(resolved).toMatchObject({ resolved: grid.length + answer.length, unresolvable: 0, waiting: 0 });
    // Again: nothing changes.
    expect(
      jsonBody<{ resolved: number }>(await trader.post('/api/test/forecasts/resolve', { now: later })).resolved,
    ).toBe(0);

    // The outcome is the demo feed's own: the due bar's close against the entry close.
    const [row] = await test.database.db
      .select()
      .from(forecasts)
      .where(and(eq(forecasts.symbol, gridCard.productId), eq(forecasts.signal, grid[0]!.signal)));
    const feed = createDemoFeed({ now: () => Date.parse(later) });
    const dueOpen = row!.dueAt.getTime() - 3_600_000;
    const [dueBar] = await feed.candles(row!.symbol, 3600, new Date(dueOpen), new Date(dueOpen + 1));
    expect(row).toMatchObject({ status: 'resolved', exitClose: dueBar!.close, rose: dueBar!.close > row!.entryClose });

    const record = jsonBody<TrackRecordResponse>(await trader.get('/api/track-record?period=7d&timeframe=1h'));
    expect(record.kind).toBe('live');
    expect(record.source).toBe('demo');
    expect(record.counts).toEqual({ resolved: grid.length + answer.length, pending: 0, unresolvable: 0 });
    expect(record.brier).toBeGreaterThanOrEqual(0);
    expect(record.brierSkill).not.toBeNull();
    expect(record.reliability.reduce((sum, bin) => sum + bin.count, 0)).toBe(record.counts.resolved);
    expect(record.signals.reduce((sum, signal) => sum + signal.count, 0)).toBe(record.counts.resolved);
    for (const bin of record.reliability) {
      expect(bin.interval[0]).toBeLessThanOrEqual(bin.realised);
      expect(bin.interval[1]).toBeGreaterThanOrEqual(bin.realised);
    }
    // Demo records are never mixed into the real ones.
    const real = jsonBody<TrackRecordResponse>(await trader.get('/api/track-record?source=real'));
    expect(real.counts).toEqual({ resolved: 0, pending: 0, unresolvable: 0 });
    const bySymbol = jsonBody<TrackRecordResponse>(await trader.get(`/api/track-record?symbol=${gridCard.symbol}`));
    expect(bySymbol.filters.symbol).toBe(gridCard.productId);
    expect(bySymbol.counts.resolved).toBe(grid.length);

    // Now the assistant cites the live record.
    const after = await chat(test, trader, `What are the odds for ${answerCard.symbol} on the 1h chart?`);
    expect(after).toMatch(/: stated \d+%, realised \d+% over [\d,]+ resolved forecasts? \(demo data\)\./);
  }, 120_000);

  it('backtests a symbol walk-forward over the grid history, marked as a backtest', async () => {
    const response = await trader.get('/api/track-record/backtest?symbol=BTC&timeframe=1h');
    expect(response.statusCode).toBe(200);
    const backtest = jsonBody<TrackRecordResponse>(response);
    if (backtest.kind !== 'backtest') throw new Error('expected a backtest');
    expect(backtest).toMatchObject({
      source: 'demo',
      horizonBars: 24,
      filters: { symbol: 'BTC-USD', timeframe: '1h' },
    });
    expect(backtest.counts.resolved).toBeGreaterThan(100);
    expect(backtest.reliability.reduce((sum, bin) => sum + bin.count, 0)).toBe(backtest.counts.resolved);
    const one = jsonBody<TrackRecordResponse>(
      await trader.get('/api/track-record/backtest?symbol=BTC&timeframe=1h&signal=watos6'),
    );
    expect(one.signals.map((signal) => signal.signal)).toEqual(
      backtest.signals.some((signal) => signal.signal === 'watos6') ? ['watos6'] : [],
    );
    expect(one.counts.resolved).toBe(backtest.signals.find((signal) => signal.signal === 'watos6')?.count ?? 0);
  }, 60_000);
});
