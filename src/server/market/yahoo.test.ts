// Contract tests of the Yahoo Finance provider through the real yahoo-finance2 library against a
// local fake Yahoo (recorded response shapes, no network): symbol mapping, one batched request,
// caches shared by every caller, the transport discipline, garbage that never becomes a number,
// and candles that are closed, in range and gap-preserving.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { fakeYahooPrice, isFakeYahooGap, startFakeYahoo, type FakeYahoo } from '../testing/fakeYahoo.ts';
import { UpstreamError, type QuoteResult } from './types.ts';
import { createYahooProvider, type YahooOptions } from './yahoo.ts';

/** Wednesday 14 January 2026, 10:10:30 in New York: US equities and CME futures are trading. */
const NOW = Date.UTC(2026, 0, 14, 15, 10, 30);
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let fake: FakeYahoo;
beforeAll(async () => {
  fake = await startFakeYahoo({ now: () => NOW, unknownSymbols: ['^VIX'] });
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.recover();
  fake.resetStats();
});

function provider(overrides: YahooOptions = {}) {
  return createYahooProvider({
    apiBase: fake.url,
    timeoutMs: 500,
    backoffMs: 5,
    retries: 2,
    now: () => NOW,
    ...overrides,
  });
}

function quoteOf(result: QuoteResult | undefined) {
  if (!result?.ok) throw new Error(`expected a quote, got ${JSON.stringify(result)}`);
  return result.quote;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

async function elapsed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

describe('Yahoo provider: quotes', () => {
  it('maps canonical ids to Yahoo symbols in one batched request and reads real values', async () => {
    const ids = ['AAPL', 'SPY', 'BRK.B', 'SPX', 'MES1!', 'ES1!', 'GC1!'];
    const results = await provider().quotes(ids);

    const quoteRequests = fake.requests({ endpoint: 'quote' });
    expect(quoteRequests).toHaveLength(1);
    expect(quoteRequests[0]!.symbols).toEqual(['AAPL', 'SPY', 'BRK-B', '^GSPC', 'MES=F', 'ES=F', 'GC=F']);
    expect([...results.keys()]).toEqual(ids);

    const tradedAt = Math.floor(NOW / 1000) * 1000;
    const aapl = quoteOf(results.get('AAPL'));
    const aaplPrice = fakeYahooPrice('AAPL', tradedAt);
    expect(aapl).toEqual({
      productId: 'AAPL',
      spot: aaplPrice,
      buy: round2(aaplPrice + 0.01),
      sell: round2(aaplPrice - 0.01),
      at: new Date(tradedAt),
      delayed: false,
      delayMinutes: 0,
    });
    expect(quoteOf(results.get('BRK.B')).spot).toBe(fakeYahooPrice('BRK-B', tradedAt));

    // An index has no order book: buy and sell are the index level.
    const spx = quoteOf(results.get('SPX'));
    expect(spx.spot).toBe(fakeYahooPrice('^GSPC', tradedAt));
    expect([spx.buy, spx.sell, spx.delayed]).toEqual([spx.spot, spx.spot, false]);

    // CME futures on Yahoo are delayed (exchangeDataDelayedBy: 10); the book is a tick each side.
    const mes = quoteOf(results.get('MES1!'));
    const mesPrice = fakeYahooPrice('MES=F', tradedAt);
    expect(mes).toMatchObject({ productId: 'MES1!', spot: mesPrice, buy: mesPrice + 0.25, sell: mesPrice - 0.25 });
    expect(mes.delayed).toBe(true);
    expect(mes.delayMinutes).toBe(10);
    expect(quoteOf(results.get('GC1!')).delayed).toBe(true);
  });

  it("goes through the library's cookie and crumb handshake, every host rewritten to apiBase", async () => {
    const fetched: string[] = [];
    const recording: typeof fetch = (input, init) => {
      fetched.push(input instanceof Request ? input.url : input.toString());
      return fetch(input, init);
    };
    const results = await provider({ fetch: recording }).quotes(['AAPL']);
    expect(results.get('AAPL')?.ok).toBe(true);
    expect(fetched.length).toBe(3);
    expect(fetched.every((url) => url.startsWith(`${fake.url}/`))).toBe(true);
    expect(fake.requests().map((request) => [request.endpoint, request.host])).toEqual([
      ['cookie', 'finance.yahoo.com'],
      ['crumb', 'query1.finance.yahoo.com'],
      ['quote', 'query2.finance.yahoo.com'],
    ]);
  });

  it('splits more than 50 symbols into batches of 50', async () => {
    // VIX is the symbol this fake Yahoo does not know.
    const ids = SYMBOL_TABLE.filter((row) => row.assetClass !== 'crypto' && row.id !== 'VIX')
      .slice(0, 120)
      .map((row) => row.id);
    expect(ids).toHaveLength(120);
    const results = await provider().quotes(ids);
    expect(fake.requests({ endpoint: 'quote' }).map((request) => request.symbols.length)).toEqual([50, 50, 20]);
    expect([...results].filter(([, result]) => !result.ok)).toEqual([]);
  });

  it('shares one request among concurrent callers and reuses it within quoteCacheMs', async () => {
    let clock = NOW;
    const yahoo = provider({ now: () => clock, quoteCacheMs: 15_000 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => yahoo.quotes(['AAPL', 'SPY'])));
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(1);
    expect(answers.every((answer) => quoteOf(answer.get('SPY')).spot === quoteOf(answers[0]!.get('SPY')).spot)).toBe(
      true,
    );

    clock += 14_000;
    await yahoo.quotes(['SPY', 'AAPL']);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(1);

    // Cost grows with distinct symbols: only the new one is asked for.
    await yahoo.quotes(['AAPL', 'QQQ']);
    expect(fake.requests({ endpoint: 'quote' }).map((request) => request.symbols)).toEqual([['AAPL', 'SPY'], ['QQQ']]);

    clock += 2_000;
    await yahoo.quotes(['AAPL']);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(3);
  });

  it('turns garbage values into per-product errors, never numbers', async () => {
    fake.setQuoteFields('AAPL', { regularMarketPrice: -3 });
    fake.setQuoteFields('SPY', { regularMarketPrice: 'NaN' });
    fake.setQuoteFields('BRK-B', { regularMarketPrice: undefined });
    fake.setQuoteFields('QQQ', { regularMarketTime: 'yesterday' });
    fake.setQuoteFields('ES=F', { bid: 0, ask: 0 });
    fake.setQuoteFields('GC=F', { bid: 10, ask: 9000 });
    const results = await provider().quotes(['AAPL', 'SPY', 'BRK.B', 'QQQ', 'VIX', 'MES1!', 'ES1!', 'GC1!']);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(1);
    expect(results.get('AAPL')).toEqual({ ok: false, error: 'Yahoo Finance sent no valid price for AAPL' });
    expect(results.get('SPY')).toEqual({ ok: false, error: 'Yahoo Finance sent no valid price for SPY' });
    expect(results.get('BRK.B')).toEqual({ ok: false, error: 'Yahoo Finance sent no valid price for BRK.B' });
    expect(results.get('QQQ')).toEqual({ ok: false, error: 'Yahoo Finance sent no valid quote time for QQQ' });
    // Yahoo leaves out symbols it does not know.
    expect(results.get('VIX')).toEqual({ ok: false, error: 'Yahoo Finance has no quote for VIX' });
    expect(results.get('MES1!')?.ok).toBe(true);
    // An empty or absurd book falls back to the price.
    const es = quoteOf(results.get('ES1!'));
    expect([es.buy, es.sell]).toEqual([es.spot, es.spot]);
    const gold = quoteOf(results.get('GC1!'));
    expect([gold.buy, gold.sell]).toEqual([gold.spot, gold.spot]);
  });

  it('reports a garbage body for every product and does not cache it', async () => {
    const yahoo = provider();
    fake.setMode({ kind: 'garbage' }, { endpoint: 'quote', times: 1 });
    const broken = await yahoo.quotes(['AAPL', 'MES1!']);
    expect([...broken.values()]).toEqual([
      { ok: false, error: 'Yahoo Finance answered with malformed JSON' },
      { ok: false, error: 'Yahoo Finance answered with malformed JSON' },
    ]);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(1);
    const recovered = await yahoo.quotes(['AAPL', 'MES1!']);
    expect(quoteOf(recovered.get('AAPL')).spot).toBeGreaterThan(0);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(2);
  });

  it('rejects crypto and unknown ids without asking Yahoo for them', async () => {
    const yahoo = provider();
    const results = await yahoo.quotes(['BTC-USD', 'NOPE', 'AAPL']);
    expect(results.get('BTC-USD')).toEqual({
      ok: false,
      error: 'BTC-USD is crypto: Coinbase serves it, not Yahoo Finance',
    });
    expect(results.get('NOPE')).toEqual({ ok: false, error: 'Unknown symbol NOPE' });
    expect(results.get('AAPL')?.ok).toBe(true);
    expect(fake.requests({ endpoint: 'quote' }).map((request) => request.symbols)).toEqual([['AAPL']]);

    await expect(yahoo.candles('ETH-USD', 60, new Date(NOW - HOUR), new Date(NOW))).rejects.toThrow(
      new UpstreamError('ETH-USD is crypto: Coinbase serves it, not Yahoo Finance'),
    );
    await expect(yahoo.candles('NOPE', 60, new Date(NOW - HOUR), new Date(NOW))).rejects.toBeInstanceOf(UpstreamError);
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(0);
  });

  it('renews a crumb Yahoo no longer accepts', async () => {
    let clock = NOW;
    const yahoo = provider({ now: () => clock });
    expect((await yahoo.quotes(['AAPL'])).get('AAPL')?.ok).toBe(true);
    fake.rotateCrumb();
    clock += 20_000;
    expect((await yahoo.quotes(['AAPL'])).get('AAPL')?.ok).toBe(true);
    expect(fake.requests().map((request) => request.endpoint)).toEqual([
      'cookie',
      'crumb',
      'quote',
      'quote', // 401 Invalid Crumb
      'cookie',
      'crumb',
      'quote',
    ]);
  });
});

describe('Yahoo provider: transport discipline', () => {
  it('times out a slow answer within its budget', async () => {
    fake.setMode({ kind: 'slow', delayMs: 5_000 }, { endpoint: 'quote' });
    const [results, took] = await elapsed(() => provider({ timeoutMs: 200, retries: 1 }).quotes(['AAPL']));
    expect(results.get('AAPL')).toEqual({ ok: false, error: 'Yahoo Finance did not answer within 200 ms' });
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(2);
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(1_500);
  });

  it('retries a 500 and a dropped connection, then succeeds', async () => {
    const yahoo = provider();
    fake.setMode({ kind: 'status', status: 500 }, { endpoint: 'quote', times: 1 });
    expect((await yahoo.quotes(['SPY'])).get('SPY')?.ok).toBe(true);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(2);

    fake.setMode({ kind: 'close-socket' }, { endpoint: 'chart', times: 1 });
    const candles = await yahoo.candles('SPY', 60, new Date(NOW - 30 * MINUTE), new Date(NOW));
    expect(candles.length).toBeGreaterThan(20);
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(2);
  });

  it('gives up after its retries with the last status', async () => {
    fake.setMode({ kind: 'status', status: 503 }, { endpoint: 'chart' });
    await expect(provider().candles('AAPL', 60, new Date(NOW - HOUR), new Date(NOW))).rejects.toThrow(
      'Yahoo Finance answered HTTP 503',
    );
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(3);
  });

  it('waits as long as Retry-After says on 429', async () => {
    fake.setMode({ kind: 'rate-limited', retryAfterSeconds: 1 }, { endpoint: 'quote', times: 1 });
    const [results, took] = await elapsed(() => provider({ backoffMs: 5 }).quotes(['AAPL']));
    expect(results.get('AAPL')?.ok).toBe(true);
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(2);
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(2_500);

    fake.setMode({ kind: 'rate-limited', retryAfterSeconds: 0 }, { endpoint: 'quote' });
    const limited = await provider({ retries: 1 }).quotes(['AAPL']);
    expect(limited.get('AAPL')).toEqual({ ok: false, error: 'Yahoo Finance rate limit reached (429)' });
  });

  it('never retries a 404 or a 400', async () => {
    const yahoo = provider();
    await expect(yahoo.candles('VIX', 60, new Date(NOW - HOUR), new Date(NOW))).rejects.toThrow(
      'Yahoo Finance answered HTTP 404: No data found, symbol may be delisted',
    );
    expect(fake.requests({ endpoint: 'chart', symbol: '^VIX' })).toHaveLength(1);

    fake.setMode({ kind: 'status', status: 400 }, { endpoint: 'quote' });
    const results = await yahoo.quotes(['AAPL']);
    expect(results.get('AAPL')).toEqual({ ok: false, error: 'Yahoo Finance answered HTTP 400: HTTP 400' });
    expect(fake.requests({ endpoint: 'quote' })).toHaveLength(1);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    fake.setMode({ kind: 'slow', delayMs: 80 }, { endpoint: 'chart' });
    const yahoo = provider({ concurrency: 2, timeoutMs: 2_000 });
    const ids = ['AAPL', 'SPY', 'QQQ', 'SPX', 'MES1!', 'ES1!'];
    const all = await Promise.all(ids.map((id) => yahoo.candles(id, 60, new Date(NOW - HOUR), new Date(NOW))));
    expect(all.every((candles) => candles.length > 30)).toBe(true);
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(6);
    expect(fake.peakInFlight()).toBe(2);
  });

  it('probes with one request and no retries', async () => {
    expect(await provider().probe!()).toBe(true);
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(1);

    fake.resetStats();
    fake.setMode({ kind: 'status', status: 503 });
    expect(await provider().probe!()).toBe(false);
    expect(fake.requests()).toHaveLength(1);

    const offline = createYahooProvider({ apiBase: 'http://127.0.0.1:9', timeoutMs: 300 });
    expect(await offline.probe!()).toBe(false);
  });
});

describe('Yahoo provider: candles', () => {
  // 09:30 to 10:15 in New York (EST) on the test day; the clock stands at 10:10:30.
  const open = Date.UTC(2026, 0, 14, 14, 30);

  it('returns closed regular-session minutes in [start, end), oldest first, gaps kept as gaps', async () => {
    const start = new Date(open - HOUR); // pre-market: Yahoo serves none with includePrePost=false
    const end = new Date(open + 45 * MINUTE);
    const nulled = open + 7 * MINUTE;
    fake.overrideBar('AAPL', nulled / 1000, { open: null, high: null, low: null, close: null, volume: null });
    const candles = await provider().candles('AAPL', 60, start, end);

    const [request] = fake.requests({ endpoint: 'chart' });
    expect(request!.symbols).toEqual(['AAPL']);
    expect(request!.params).toMatchObject({ interval: '1m', includePrePost: 'false' });

    // 09:30 .. 10:09 have closed (10:10 is in progress at 10:10:30); nulls are left out.
    const expected = Array.from({ length: 40 }, (_, index) => open + index * MINUTE).filter(
      (time) => time !== nulled && !isFakeYahooGap('AAPL', time / 1000),
    );
    expect(candles.map((candle) => candle.time)).toEqual(expected);
    const first = candles[0]!;
    expect(first).toEqual({
      time: open,
      open: fakeYahooPrice('AAPL', open),
      high: expect.any(Number) as number,
      low: expect.any(Number) as number,
      close: fakeYahooPrice('AAPL', open + MINUTE),
      volume: expect.any(Number) as number,
    });
    expect(first.high).toBeGreaterThanOrEqual(Math.max(first.open, first.close));
    expect(first.low).toBeLessThanOrEqual(Math.min(first.open, first.close));
    expect(first.volume).toBeGreaterThan(0);
  });

  it('turns a nonsense bar into an error', async () => {
    fake.overrideBar('AAPL', (open + 3 * MINUTE) / 1000, { close: -1 });
    await expect(provider().candles('AAPL', 60, new Date(open), new Date(open + 10 * MINUTE))).rejects.toThrow(
      'Yahoo Finance sent a malformed bar for AAPL',
    );
  });

  it('asks for 1-minute history in windows Yahoo accepts, clipped to its last 30 days', async () => {
    // Five weeks of 1-minute futures bars (about 9,700 a window): a loaded machine can take longer
    // than the suite's 500 ms timeout to build one. This test is about the windows, not the
    // timeout or the transport's retries, so a window asked again is counted once.
    const candles = await provider({ timeoutMs: 10_000 }).candles('MES1!', 60, new Date(NOW - 40 * DAY), new Date(NOW));
    const requests = fake.requests({ endpoint: 'chart' });
    const windows = new Set(requests.map((request) => `${request.params.period1}-${request.params.period2}`));
    expect(windows.size).toBe(5);
    for (const request of requests) {
      const span = Number(request.params.period2) - Number(request.params.period1);
      expect(span).toBeLessThanOrEqual(8 * 86_400);
      expect(Number(request.params.period1) * 1000).toBeGreaterThanOrEqual(NOW - 30 * DAY);
    }
    expect(candles.length).toBeGreaterThan(20_000);
    expect(candles.every((candle, index) => index === 0 || candle.time > candles[index - 1]!.time)).toBe(true);
    expect(candles.at(-1)!.time).toBe(Date.UTC(2026, 0, 14, 15, 9));
    expect(candles[0]!.time).toBeGreaterThanOrEqual(NOW - 30 * DAY);
  });

  it('serves hourly bars of futures and of US equities in their sessions', async () => {
    const yahoo = provider();
    const start = new Date(Date.UTC(2026, 0, 13, 0, 0));
    const mes = await yahoo.candles('MES1!', 3600, start, new Date(NOW));
    expect(fake.requests({ endpoint: 'chart' })[0]!.params.interval).toBe('60m');
    const hours = mes.map((candle) => new Date(candle.time).getUTCHours());
    // Globex trades round the clock but for the 17:00-18:00 New York halt (22:00 UTC in winter).
    expect(hours).not.toContain(22);
    expect(mes.every((candle) => candle.time % HOUR === 0)).toBe(true);
    // The last closed hour: 14:00-15:00 UTC; 15:00 is still in progress at 15:10:30.
    expect(mes.at(-1)!.time).toBe(Date.UTC(2026, 0, 14, 14));
    expect(mes.at(-1)!.close).toBe(fakeYahooPrice('MES=F', Date.UTC(2026, 0, 14, 15)));

    const spy = await yahoo.candles('SPY', 3600, start, new Date(NOW));
    // Tuesday's regular session in hours from the 09:30 open; Wednesday's first hour has not closed.
    expect(spy.map((candle) => new Date(candle.time).toISOString().slice(11, 16))).toEqual([
      '14:30',
      '15:30',
      '16:30',
      '17:30',
      '18:30',
      '19:30',
      '20:30',
    ]);
  });

  it('shares candle requests among concurrent callers and reuses them within candleCacheMs', async () => {
    let clock = NOW;
    const yahoo = provider({ now: () => clock, candleCacheMs: 30_000 });
    const start = new Date(open);
    const end = new Date(open + 30 * MINUTE);
    const answers = await Promise.all(Array.from({ length: 10 }, () => yahoo.candles('SPX', 60, start, end)));
    expect(fake.requests({ endpoint: 'chart', symbol: '^GSPC' })).toHaveLength(1);
    expect(answers.every((answer) => answer.length === answers[0]!.length && answer.length > 25)).toBe(true);
    clock += 29_000;
    await yahoo.candles('SPX', 60, start, end);
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(1);
    clock += 2_000;
    await yahoo.candles('SPX', 60, start, end);
    expect(fake.requests({ endpoint: 'chart' })).toHaveLength(2);
  });
});
