// The study service on the demo feed and a real (PGlite) database: the history joins the
// stored bars and the provider's older ones; the worker pool answers what the inline study
// answers; refusals name the field; rule firings become private 'rule' forecasts that the
// public record leaves out until published and "my rules" scores once resolved; the assistant
// answers "how did BTC do after RSI fell below 30?" with the study's verdict.
import { and, count, eq } from 'drizzle-orm';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studyRequest } from '../../shared/schemas/scans.ts';
import { unknownSymbolMessage } from '../../shared/symbols.ts';
import { candleSeries } from '../../signals/candles.ts';
import { candles, forecasts, user } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { createForecastService } from '../forecasts/service.ts';
import {
  createDemoFeed,
  createMarketRouter,
  DEMO_EPOCH,
  demoCandleColumns,
  rowsOfColumns,
  storeCandles,
  UpstreamError,
  type CandleRow,
  type Granularity,
  type MarketDataProvider,
} from '../market/service.ts';
import { createBuiltinAnalyst } from '../ai/builtinAnalyst.ts';
import { parseStudyQuestion } from '../ai/studyTool.ts';
import { createAssistantTools } from '../ai/tools.ts';
import {
  createStudyPool,
  createStudyService,
  recordRuleForecasts,
  runStudy,
  studyHistoryReader,
  type StudyService,
} from './service.ts';

const DAY = 86_400_000;
const NOW = DEMO_EPOCH + 80 * DAY + 30 * 60_000;
const feed = createDemoFeed({ now: () => NOW, keepHourDays: 100 });
const log = { warn: () => undefined, error: () => undefined };
let database: TestDatabase;
let studies: StudyService;
let reads: Array<{ productId: string; start: number; end: number; source: string | undefined }>;
let btcStored: number;

beforeAll(async () => {
  database = await openTestDatabase('pglite');
  // The engine's backfill: the last 30 days of BTC's hours stored.
  const backfill = await feed.candles('BTC-USD', 3600, new Date(NOW - 30 * DAY), new Date(NOW));
  await storeCandles(database.db, 'BTC-USD', 3600, 'demo', backfill);
  btcStored = backfill.length;
  reads = [];
  studies = createStudyService({
    db: database.db,
    now: () => NOW,
    readHistory: async (productId, granularity, start, end, source) => {
      reads.push({ productId, start: start.getTime(), end: end.getTime(), source });
      return { series: candleSeries(await feed.candles(productId, granularity, start, end)), source: 'demo' };
    },
  });
});
afterAll(async () => {
  await database?.close();
});

const request = (input: unknown) => studyRequest.parse(input);

describe('study service', () => {
  it('reads the stored bars and, before them, the provider’s (once, then from memory)', async () => {
    const btc = await studies.history('BTC-USD', '1h');
    const direct = await feed.candles('BTC-USD', 3600, new Date(NOW - 730 * DAY), new Date(NOW));
    expect(btc.series.length).toBe(direct.length);
    expect([...btc.series.close]).toEqual(direct.map((bar) => bar.close));
    expect(reads).toHaveLength(1);
    // The provider is asked only for what precedes the first stored bar, from the stored bars' source.
    expect(reads[0]!.end).toBe(direct.find((bar) => bar.time >= NOW - 30 * DAY)!.time);
    expect(reads[0]!.source).toBe('demo');
    await studies.history('BTC-USD', '1h');
    expect(reads).toHaveLength(1);
    // The demo path is drawn again when needed, not stored.
    expect(await storedCount('BTC-USD', 3600)).toBe(btcStored);
  });

  it('answers the same in the worker pool as inline', async () => {
    const pool = createStudyPool({ threads: 1, maxQueue: 2 });
    try {
      const pooled = createStudyService({
        db: database.db,
        now: () => NOW,
        pool,
        readHistory: async (productId, granularity, start, end) => ({
          series: candleSeries(await feed.candles(productId, granularity, start, end)),
          source: 'demo',
        }),
      });
      const asked = request({
        symbols: ['BTC', 'ETH', 'SOL'],
        timeframe: '1h',
        conditions: [{ kind: 'rsi', side: 'below', level: 35 }],
      });
      const inWorker = await pooled.study(asked);
      const inline = runStudy(await studies.prepare(asked));
      expect(inWorker).toEqual(inline);
      expect(inWorker.symbols).toEqual(['BTC-USD', 'ETH-USD', 'SOL-USD']);
      expect(inWorker.perSymbol.map((row) => row.source)).toEqual(['demo', 'demo', 'demo']);
      expect(inWorker.signals).toBe(inWorker.perSymbol.reduce((sum, row) => sum + row.signals, 0));
      expect(inWorker.signals).toBeGreaterThan(30);
      expect(inWorker.verdict).toMatch(
        /^When BTC, ETH or SOL saw RSI 14 fall below 35 on 1h, it closed higher 24 bars later \d+% of the time \(n=\d+, 95% \d+-\d+%\); base rate \d+%: /,
      );
      expect(pool.stats().completed).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('refuses an unknown symbol and watos_edge, naming the field', async () => {
    await expect(
      studies.study(
        request({
          symbols: ['BTC', 'NOPE9'],
          timeframe: '1h',
          conditions: [{ kind: 'rsi', side: 'below', level: 30 }],
        }),
      ),
    ).rejects.toMatchObject({ kind: 'invalid', message: `symbols: ${unknownSymbolMessage('NOPE9')}` });
    await expect(
      studies.study(
        request({
          symbols: ['BTC'],
          timeframe: '1h',
          conditions: [{ kind: 'rsi', side: 'below', level: 30 }, { kind: 'watos_edge' }],
        }),
      ),
    ).rejects.toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/^conditions\.1: watos_edge cannot be studied/),
    });
  });
});

/** Stored bars of one product and size. */
async function storedCount(productId: string, granularity: number): Promise<number> {
  const [row] = await database.db
    .select({ n: count() })
    .from(candles)
    .where(and(eq(candles.productId, productId), eq(candles.granularity, granularity)));
  return row!.n;
}

/**
 * A real provider's place (source 'coinbase'), answering the demo path's bars so they can be
 * compared, and recording what it was asked; `down` makes it fail as an outage does.
 */
function recordingProvider() {
  const asked: Array<{ productId: string; start: number; end: number }> = [];
  const provider: MarketDataProvider & { asked: typeof asked; down: boolean } = {
    source: 'coinbase',
    asked,
    down: false,
    quotes: () => Promise.resolve(new Map()),
    async candles(productId: string, granularity: Granularity, start: Date, end: Date): Promise<CandleRow[]> {
      asked.push({ productId, start: start.getTime(), end: end.getTime() });
      if (provider.down) throw new UpstreamError('Coinbase answered 503', 503);
      return feed.candles(productId, granularity, start, end);
    },
    probe: () => Promise.resolve(!provider.down),
  };
  return provider;
}

describe('a held history moving on', () => {
  const HOUR = 3_600_000;
  /** A service on a clock the test moves, its provider the demo path (drawn at the clock), recording what it is asked. */
  function movingService(clock: { now: number }, reuseMs = 10 * 60_000) {
    const asked: Array<{ productId: string; start: number; end: number }> = [];
    const service = createStudyService({
      db: database.db,
      now: () => clock.now,
      reuseMs,
      // From the source asked for (the bars are the demo path's whoever is named).
      readHistory: async (productId, granularity, start, end, source) => {
        asked.push({ productId, start: start.getTime(), end: end.getTime() });
        return {
          series: demoCandleColumns(productId, granularity, start.getTime(), end.getTime(), clock.now),
          source: source ?? 'demo',
        };
      },
    });
    return { service, asked };
  }
  const columns = (series: { time: Float64Array; close: Float64Array; volume: Float64Array }) => ({
    time: [...series.time],
    close: [...series.close],
    volume: [...series.volume],
  });

  it('asks the provider only for the bars since, and answers what a fresh load answers', async () => {
    const clock = { now: NOW };
    const { service, asked } = movingService(clock);
    const first = await service.history('XRP-USD', '1h');
    const held = first.series.time[first.series.length - 1]!;
    clock.now = NOW + 3 * HOUR + 10 * 60_000;
    asked.length = 0;
    const moved = await service.history('XRP-USD', '1h');
    expect(asked).toEqual([{ productId: 'XRP-USD', start: held + HOUR, end: clock.now }]);
    const fresh = await movingService(clock).service.history('XRP-USD', '1h');
    expect(columns(moved.series)).toEqual(columns(fresh.series));

    // A coarser timeframe folds the extended hours into its buckets as a load does.
    await service.history('XRP-USD', '4h');
    clock.now += 5 * HOUR;
    asked.length = 0;
    const fourHours = await service.history('XRP-USD', '4h');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.end - asked[0]!.start).toBeLessThanOrEqual(6 * HOUR);
    const freshFour = await movingService(clock).service.history('XRP-USD', '4h');
    expect(columns(fourHours.series)).toEqual(columns(freshFour.series));

    // Minutes (5 days a study): the window's start moves on, the oldest minutes are dropped.
    const minutes = await service.history('XRP-USD', '1m');
    clock.now += 2 * HOUR;
    const movedMinutes = await service.history('XRP-USD', '1m');
    expect(movedMinutes.series.time[0]).toBeGreaterThan(minutes.series.time[0]!);
    const freshMinutes = await movingService(clock).service.history('XRP-USD', '1m');
    expect(columns(movedMinutes.series)).toEqual(columns(freshMinutes.series));
  });

  it('appends the bars stored since and asks the provider nothing', async () => {
    const clock = { now: NOW };
    const recent = rowsOfColumns(demoCandleColumns('LTC-USD', 3600, NOW - 30 * DAY, NOW, NOW));
    await storeCandles(database.db, 'LTC-USD', 3600, 'demo', recent);
    const { service, asked } = movingService(clock);
    await service.history('LTC-USD', '1h');
    expect(asked).toHaveLength(1);
    // The engine's pass stores the next hours.
    clock.now = NOW + 4 * HOUR;
    const later = rowsOfColumns(demoCandleColumns('LTC-USD', 3600, NOW, clock.now, clock.now));
    expect(later.length).toBeGreaterThanOrEqual(3);
    await storeCandles(database.db, 'LTC-USD', 3600, 'demo', later);
    const moved = await service.history('LTC-USD', '1h');
    expect(asked).toHaveLength(1);
    expect(moved.series.time[moved.series.length - 1]).toBe(later.at(-1)!.time);
    const fresh = await movingService(clock).service.history('LTC-USD', '1h');
    expect(columns(moved.series)).toEqual(columns(fresh.series));
  });

  it('loads afresh when moving on fails (the provider away for the bars since)', async () => {
    const clock = { now: NOW };
    let failNext = false;
    const asked: number[] = [];
    const service = createStudyService({
      db: database.db,
      now: () => clock.now,
      reuseMs: 10 * 60_000,
      readHistory: async (productId, granularity, start, end) => {
        asked.push(start.getTime());
        if (failNext) {
          failNext = false;
          throw new UpstreamError('Coinbase answered 503', 503);
        }
        return {
          series: demoCandleColumns(productId, granularity, start.getTime(), end.getTime(), clock.now),
          source: 'demo',
        };
      },
    });
    await service.history('DOT-USD', '1h');
    clock.now = NOW + 3 * HOUR;
    failNext = true;
    const moved = await service.history('DOT-USD', '1h');
    // The tail was asked for and failed; the load after it asked for the whole window.
    expect(asked.slice(1)).toEqual([expect.any(Number), clock.now - 730 * DAY]);
    const fresh = await movingService(clock).service.history('DOT-USD', '1h');
    expect(columns(moved.series)).toEqual(columns(fresh.series));
  });

  it('loads afresh when bars of another source were stored since', async () => {
    const clock = { now: NOW };
    const { service, asked } = movingService(clock);
    await service.history('BCH-USD', '1h');
    clock.now = NOW + 3 * HOUR;
    const coinbaseBars = rowsOfColumns(demoCandleColumns('BCH-USD', 3600, NOW, clock.now, clock.now));
    await storeCandles(database.db, 'BCH-USD', 3600, 'coinbase', coinbaseBars);
    asked.length = 0;
    const moved = await service.history('BCH-USD', '1h');
    // A load: the provider asked for everything before the stored Coinbase bars.
    expect(asked).toEqual([{ productId: 'BCH-USD', start: clock.now - 730 * DAY, end: coinbaseBars[0]!.time }]);
    expect(moved.source).toBe('coinbase');
  });
});

describe('study history from a real provider', () => {
  it('keeps the provider’s older bars in the store: once out of memory, the next study asks it nothing', async () => {
    const coinbase = recordingProvider();
    const market = createMarketRouter({ mode: 'auto', coinbase, yahoo: coinbase, demo: feed, now: () => NOW });
    // The engine's backfill from Coinbase: the last 30 days of ETH's hours.
    const recent = await feed.candles('ETH-USD', 3600, new Date(NOW - 30 * DAY), new Date(NOW));
    await storeCandles(database.db, 'ETH-USD', 3600, 'coinbase', recent);
    const fresh = createStudyService({
      db: database.db,
      now: () => NOW,
      reuseMs: 0,
      readHistory: studyHistoryReader(market),
    });

    const first = await fresh.history('ETH-USD', '1h');
    expect(first.source).toBe('coinbase');
    expect(coinbase.asked).toEqual([{ productId: 'ETH-USD', start: NOW - 730 * DAY, end: recent[0]!.time }]);
    const direct = await feed.candles('ETH-USD', 3600, new Date(NOW - 730 * DAY), new Date(NOW));
    expect([...first.series.close]).toEqual(direct.map((bar) => bar.close));
    expect(await storedCount('ETH-USD', 3600)).toBe(direct.length);

    const second = await fresh.history('ETH-USD', '1h');
    expect(coinbase.asked).toHaveLength(1);
    expect([...second.series.time]).toEqual([...first.series.time]);
    expect([...second.series.close]).toEqual([...first.series.close]);
  });

  it('never joins demo bars to real ones: an outage fails the study, naming the symbol, and stores nothing', async () => {
    const coinbase = recordingProvider();
    coinbase.down = true;
    const market = createMarketRouter({ mode: 'auto', coinbase, yahoo: coinbase, demo: feed, now: () => NOW });
    const recent = await feed.candles('SOL-USD', 3600, new Date(NOW - 30 * DAY), new Date(NOW));
    await storeCandles(database.db, 'SOL-USD', 3600, 'coinbase', recent);
    const fresh = createStudyService({ db: database.db, now: () => NOW, readHistory: studyHistoryReader(market) });
    // The router itself falls back to the demo feed in this outage; the study does not.
    expect((await market.candles('SOL-USD', 3600, new Date(NOW - 40 * DAY), new Date(NOW - 30 * DAY))).length).toBe(
      240,
    );
    await expect(fresh.history('SOL-USD', '1h')).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(
        /^SOL: its history before the stored bars could not be read from coinbase \(Coinbase answered 503\)/,
      ),
    });
    expect(await storedCount('SOL-USD', 3600)).toBe(recent.length);
  });

  it('joins only the stored bars after the last of another source (a server that ran on the demo feed before)', async () => {
    const coinbase = recordingProvider();
    const market = createMarketRouter({ mode: 'auto', coinbase, yahoo: coinbase, demo: feed, now: () => NOW });
    const before = await feed.candles('DOGE-USD', 3600, new Date(NOW - 60 * DAY), new Date(NOW - 30 * DAY));
    const recent = await feed.candles('DOGE-USD', 3600, new Date(NOW - 30 * DAY), new Date(NOW));
    await storeCandles(database.db, 'DOGE-USD', 3600, 'demo', before);
    await storeCandles(database.db, 'DOGE-USD', 3600, 'coinbase', recent);
    const fresh = createStudyService({ db: database.db, now: () => NOW, readHistory: studyHistoryReader(market) });
    const doge = await fresh.history('DOGE-USD', '1h');
    expect(doge.source).toBe('coinbase');
    // The demo stretch is read again from Coinbase, with everything before it.
    expect(coinbase.asked).toEqual([{ productId: 'DOGE-USD', start: NOW - 730 * DAY, end: recent[0]!.time }]);
    const direct = await feed.candles('DOGE-USD', 3600, new Date(NOW - 730 * DAY), new Date(NOW));
    expect([...doge.series.time]).toEqual(direct.map((bar) => bar.time));
    expect([...doge.series.close]).toEqual(direct.map((bar) => bar.close));
  });

  it('reads again from the provider what lies before a gap in the store wider than any closure', async () => {
    const coinbase = recordingProvider();
    const market = createMarketRouter({ mode: 'auto', coinbase, yahoo: coinbase, demo: feed, now: () => NOW });
    // Stored: 10 days from a year ago, then nothing for months (the server was down), then the last 30 days.
    const old = await feed.candles('ADA-USD', 3600, new Date(NOW - 365 * DAY), new Date(NOW - 355 * DAY));
    const recent = await feed.candles('ADA-USD', 3600, new Date(NOW - 30 * DAY), new Date(NOW));
    await storeCandles(database.db, 'ADA-USD', 3600, 'coinbase', [...old, ...recent]);
    const fresh = createStudyService({ db: database.db, now: () => NOW, readHistory: studyHistoryReader(market) });
    const ada = await fresh.history('ADA-USD', '1h');
    expect(coinbase.asked).toEqual([{ productId: 'ADA-USD', start: NOW - 730 * DAY, end: recent[0]!.time }]);
    const direct = await feed.candles('ADA-USD', 3600, new Date(NOW - 730 * DAY), new Date(NOW));
    expect([...ada.series.time]).toEqual(direct.map((bar) => bar.time));
  });
});

describe('rule forecasts', () => {
  it('records a private rule forecast per firing, out of the public record until published', async () => {
    await database.db.insert(user).values({ id: 'trader-1', name: 'Trader', email: 'trader@example.com' });
    const record = createForecastService({ db: database.db, log, sourceOf: () => 'demo', now: () => NOW + 3 * DAY });
    const onFirings = recordRuleForecasts({
      study: (asked) => studies.study(asked),
      forecasts: record,
      log,
      now: () => NOW,
    });
    const barTime = NOW - 2 * DAY;
    const recorded = await onFirings([
      {
        ruleId: 7,
        userId: 'trader-1',
        firingId: 70,
        symbol: 'BTC-USD',
        timeframe: '1h',
        condition: { kind: 'rsi', direction: 'below', level: 40, period: 14 },
        barTime,
        price: 100,
        source: 'demo',
      },
      // No scan counterpart: nothing recorded.
      {
        ruleId: 8,
        userId: 'trader-1',
        firingId: 80,
        symbol: 'BTC-USD',
        timeframe: '1h',
        condition: { kind: 'watos_odds', outcome: 'rise', threshold: 60 },
        barTime,
        price: 100,
        source: 'demo',
      },
    ]);
    expect(recorded).toBe(1);
    await record.flush();
    const rows = await database.db.select().from(forecasts).where(eq(forecasts.origin, 'rule'));
    expect(rows).toHaveLength(1);
    const [row] = rows;
    const study = await studies.study(
      request({
        symbols: ['BTC-USD'],
        timeframe: '1h',
        conditions: [{ kind: 'rsi', side: 'below', level: 40 }],
        feePercent: 0,
      }),
    );
    expect(row).toMatchObject({
      userId: 'trader-1',
      ruleId: 7,
      published: false,
      signal: 'rule:7',
      timeframe: '1h',
      horizonBars: 24,
      stated: study.rose.share,
      baseRate: study.baseRate,
      sampleSize: study.signals,
      status: 'pending',
    });
    expect(row!.barTime.getTime()).toBe(Math.floor(barTime / 3_600_000) * 3_600_000 + 3_600_000);

    // Resolved like every forecast: the demo bars after the entry are stored, the resolver runs.
    await storeCandles(
      database.db,
      'BTC-USD',
      3600,
      'demo',
      await createDemoFeed({ now: () => NOW + 3 * DAY, keepHourDays: 10 }).candles(
        'BTC-USD',
        3600,
        new Date(NOW - 3 * DAY),
        new Date(NOW + 3 * DAY),
      ),
    );
    const summary = await record.resolveDue(NOW + 3 * DAY);
    expect(summary.resolved).toBe(1);

    const publicRecord = await record.trackRecord({ period: 'all', source: 'demo' });
    expect(publicRecord.signals.some((signal) => signal.signal === 'rule:7')).toBe(false);
    const mine = await record.mine('trader-1', { period: 'all', source: 'demo' });
    expect(mine.counts.resolved).toBe(1);
    expect(mine.signals).toEqual([expect.objectContaining({ signal: 'rule:7', name: 'Rule 7', count: 1 })]);
    expect(mine.reliability.reduce((sum, bin) => sum + bin.count, 0)).toBe(1);
    expect(mine.rules).toEqual([{ ruleId: 7, name: 'Rule 7', published: false, pending: 0, resolved: 1 }]);
    expect((await record.mine('someone-else', { period: 'all', source: 'demo' })).counts.resolved).toBe(0);
    expect((await record.publishedRules({ period: 'all', source: 'demo' })).counts.resolved).toBe(0);

    // Published: among the traders' published rules, never in the product's own record.
    expect(await record.publish('trader-1', 7, true)).toEqual({ ruleId: 7, published: true, forecasts: 1 });
    const product = await record.trackRecord({ period: 'all', source: 'demo' });
    expect(product.signals.some((signal) => signal.signal === 'rule:7')).toBe(false);
    expect(product.counts).toEqual(publicRecord.counts);
    const shared = await record.publishedRules({ period: 'all', source: 'demo' });
    expect(shared.signals).toEqual([expect.objectContaining({ signal: 'rule:7', count: 1 })]);
    expect((await record.mine('trader-1', { period: 'all', source: 'demo' })).rules).toEqual([
      { ruleId: 7, name: 'Rule 7', published: true, pending: 0, resolved: 1 },
    ]);
    await expect(record.publish('trader-1', 99, true)).rejects.toMatchObject({ kind: 'not-found' });

    // The rule's next firing follows the trader's choice: published at once.
    expect(
      await onFirings([
        {
          ruleId: 7,
          userId: 'trader-1',
          firingId: 71,
          symbol: 'BTC-USD',
          timeframe: '1h',
          condition: { kind: 'rsi', direction: 'below', level: 40, period: 14 },
          barTime: barTime + 3_600_000,
          price: 101,
          source: 'demo',
        },
      ]),
    ).toBe(1);
    await record.flush();
    const next = await database.db.select().from(forecasts).where(eq(forecasts.dedupKey, 'rule|7|71'));
    expect(next).toEqual([expect.objectContaining({ published: true })]);
  });
});

describe('the assistant’s study', () => {
  it('reads the symbol, the indicator, the level and the timeframe from the words', () => {
    expect(parseStudyQuestion('how did MES do after RSI fell below 30 on 15m?')).toEqual({
      request: studyRequest.parse({
        symbols: ['MES1!'],
        timeframe: '15m',
        conditions: [{ kind: 'rsi', side: 'below', level: 30, period: 14 }],
      }),
    });
    expect(parseStudyQuestion('What happened after AAPL crossed above its EMA 20, 12 bars later?')).toEqual({
      request: studyRequest.parse({
        symbols: ['AAPL'],
        timeframe: '1h',
        conditions: [{ kind: 'price_vs_ema', side: 'above', period: 20 }],
        horizon: 12,
      }),
    });
    expect(parseStudyQuestion('how did BTC do after the weather changed?')).toMatchObject({
      problem: expect.stringContaining('could not read the setup'),
    });
    expect(parseStudyQuestion('What are the odds for ETH?')).toBeNull();
  });

  it('answers with the verdict, n and the interval', async () => {
    const tools = createAssistantTools({
      analysis: undefined!,
      db: database.db,
      fileLimits: { maxBytes: 1, maxRows: 1 },
      studies,
    });
    const analyst = createBuiltinAnalyst({ tools, now: () => NOW });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of analyst.respond({
      messages: [{ role: 'user', content: 'How did BTC do after RSI fell below 30 on 1h?' }],
      file: null,
      userId: 'u',
      signal: new AbortController().signal,
    }))
      chunks.push(chunk);
    const text = chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');
    const study = await studies.study(
      request({ symbols: ['BTC-USD'], timeframe: '1h', conditions: [{ kind: 'rsi', side: 'below', level: 30 }] }),
    );
    expect(text).toContain(`**${study.verdict}.**`);
    expect(text).toMatch(/\(n=\d+/);
    if (!study.edge && study.signals >= 30) expect(text).toContain('no measurable edge');
    // BTC's bars here are the demo feed's: the answer says so.
    expect(text).toContain('_Demo data: simulated prices, not a market (BTC-USD)._');
  });
});
