// The backtest's worker pool (issue 33), through the real app over real HTTP: the walk-forward
// runs off the event loop (/healthz answers while one runs), one user holds at most one
// backtest at a time and a few a minute (429 with Retry-After; cached answers are free), a full
// queue answers 503 with Retry-After, and a client that goes away takes its queued backtest
// with it (no worker runs it). And the pooled walk answers exactly what the in-process one does.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TrackRecordResponse } from '../../shared/schemas/trackRecord.ts';
import { candleSeries } from '../../signals/candles.ts';
import { createDemoFeed } from '../market/service.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { rawRequest, type RawAnswer } from '../testing/rawHttp.ts';
import { subscribedUser } from '../testing/users.ts';
import { createBacktestPool } from './backtestPool.ts';
import { reportedWalkForward } from './backtestWorker.ts';

const HOUR = 3_600_000;

describe('the pooled walk-forward', () => {
  it('answers exactly what the walk-forward computes on the main thread, for all signals and one', async () => {
    const now = Date.UTC(2026, 2, 2, 12);
    const feed = createDemoFeed({ now: () => now });
    const series = candleSeries(await feed.candles('ETH-USD', 3600, new Date(now - 60 * 24 * HOUR), new Date(now)));
    const pool = createBacktestPool({ threads: 1, maxQueue: 4 });
    try {
      for (const task of [
        { series, horizon: 24 },
        { series, horizon: 6, signal: 'watos3' },
        { series, horizon: 24, maxBars: 200 },
      ]) {
        const pooled = await pool.run(task);
        const local = reportedWalkForward(task);
        expect(local.report.count).toBeGreaterThan(0);
        expect(pooled).toEqual(local);
      }
      expect(pool.stats()).toMatchObject({ completed: 3, queued: 0, running: 0 });
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('backtests over HTTP', () => {
  let test: TestApp;
  let origin: string;
  const cookies: string[] = [];

  beforeAll(async () => {
    // One worker and one waiting place, so three users fill the pool; two new backtests a minute.
    test = await createTestApp({
      BACKTEST_WORKERS: '1',
      BACKTEST_QUEUE_MAX: '1',
      BACKTEST_RATE_LIMIT_PER_MINUTE: '2',
    });
    // Each test has its own users, so one test's count of new backtests never limits another's.
    for (const name of ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal'])
      cookies.push((await subscribedUser(test, `${name}-backtest@example.com`)).browser.cookieHeader);
    origin = await test.app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);
  afterAll(async () => {
    await test?.close();
  });

  const stats = () => test.app.services.backtestPool.stats();
  const get = (cookie: string, path: string) => rawRequest(origin, 'GET', path, { headers: { cookie } });
  /** A request whose connection the test can cut. */
  function open(cookie: string, path: string): { request: ClientRequest; answer: Promise<RawAnswer | 'closed'> } {
    const { hostname, port } = new URL(origin);
    const request = httpRequest({ host: hostname, port: Number(port), path, headers: { cookie } });
    const answer = new Promise<RawAnswer | 'closed'>((resolve) => {
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: bytes.toString(), bytes });
        });
      });
      request.on('error', () => resolve('closed'));
    });
    request.end();
    return { request, answer };
  }
  /**
   * Loads a market's one-minute bars into the analyst's cache (the grid card reads the same
   * bars), so a backtest of it reaches the pool within milliseconds of being asked for.
   */
  async function warm(...symbols: string[]) {
    for (const symbol of symbols)
      expect((await get(cookies[0]!, `/api/watos/${symbol}?timeframe=1m`)).status).toBe(200);
  }
  const errorOf = (answer: RawAnswer) => (JSON.parse(answer.body) as { error: string }).error;

  it('keeps the event loop free while a backtest runs: /healthz answers before the backtest', async () => {
    const order: string[] = [];
    const before = stats().completed;
    const backtest = get(cookies[0]!, '/api/track-record/backtest?symbol=BTC&timeframe=1m').then((answer) => {
      order.push('backtest');
      return answer;
    });
    await vi.waitFor(() => expect(stats().running).toBe(1), { timeout: 30_000, interval: 5 });
    const health = await get(cookies[0]!, '/healthz');
    order.push('healthz');
    expect(health.status).toBe(200);
    // The health check came back while the walk was still in its worker.
    expect(stats().completed).toBe(before);
    expect((await backtest).status).toBe(200);
    expect(order).toEqual(['healthz', 'backtest']);
  }, 60_000);

  it("refuses a user's second backtest while the first still runs: 429 with Retry-After", async () => {
    const first = get(cookies[1]!, '/api/track-record/backtest?symbol=ETH&timeframe=1m');
    await vi.waitFor(() => expect(stats().running).toBe(1), { timeout: 30_000, interval: 5 });
    const second = await get(cookies[1]!, '/api/track-record/backtest?symbol=SOL&timeframe=1m');
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(errorOf(second)).toBe('Your previous backtest is still running. Wait for its answer, then try again.');
    expect((await first).status).toBe(200);
  }, 60_000);

  it('allows a user a few new backtests a minute (429 with Retry-After past them); cached answers are free', async () => {
    const path = (symbol: string) => `/api/track-record/backtest?symbol=${symbol}&timeframe=4h`;
    expect((await get(cookies[2]!, path('XRP'))).status).toBe(200);
    expect((await get(cookies[2]!, path('ADA'))).status).toBe(200);
    // The same backtest again comes from the cache and is not counted.
    const again = await get(cookies[2]!, path('XRP'));
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body) as TrackRecordResponse).toMatchObject({
      kind: 'backtest',
      filters: { symbol: 'XRP-USD' },
    });
    const third = await get(cookies[2]!, path('LTC'));
    expect(third.status).toBe(429);
    const retryAfter = Number(third.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(errorOf(third)).toMatch(
      /^Too many backtests: at most 2 new backtests a minute\. Please wait \d+ seconds? and try again\.$/,
    );
    // Another user is not affected.
    expect((await get(cookies[3]!, path('LTC'))).status).toBe(200);
  }, 60_000);

  it('answers 503 with Retry-After when every worker is busy and the queue is full', async () => {
    const refusedBefore = stats().refused;
    await warm('DOGE', 'AVAX', 'LINK');
    const running = get(cookies[4]!, '/api/track-record/backtest?symbol=DOGE&timeframe=1m');
    await vi.waitFor(() => expect(stats().running).toBe(1), { timeout: 30_000, interval: 5 });
    const waiting = get(cookies[5]!, '/api/track-record/backtest?symbol=AVAX&timeframe=1m');
    await vi.waitFor(() => expect(stats().queued).toBe(1), { timeout: 30_000, interval: 5 });
    const full = await get(cookies[6]!, '/api/track-record/backtest?symbol=LINK&timeframe=1m');
    expect(full.status).toBe(503);
    expect(Number(full.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(errorOf(full)).toBe('The server is busy running other backtests; try again in a few seconds.');
    expect(stats().refused).toBe(refusedBefore + 1);
    expect((await running).status).toBe(200);
    expect((await waiting).status).toBe(200);
  }, 90_000);

  it('drops a queued backtest whose client went away: no worker runs it', async () => {
    await warm('SOL', 'ETH');
    const before = stats();
    const running = get(cookies[0]!, '/api/track-record/backtest?symbol=SOL&timeframe=1m');
    await vi.waitFor(() => expect(stats().running).toBe(1), { timeout: 30_000, interval: 5 });
    const gone = open(cookies[7]!, '/api/track-record/backtest?symbol=ETH&timeframe=5m');
    await vi.waitFor(() => expect(stats().queued).toBe(1), { timeout: 30_000, interval: 5 });
    gone.request.destroy();
    expect(await gone.answer).toBe('closed');
    await vi.waitFor(() => expect(stats().cancelled).toBe(before.cancelled + 1), { timeout: 30_000, interval: 5 });
    expect(stats().queued).toBe(0);
    expect((await running).status).toBe(200);
    // Only the first backtest reached a worker.
    expect(stats().completed).toBe(before.completed + 1);
    // The user's place was given back with the cancelled one.
    expect((await get(cookies[7]!, '/api/track-record/backtest?symbol=ETH&timeframe=5m')).status).toBe(200);
  }, 90_000);
});
