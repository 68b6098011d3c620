// Yahoo Finance market data for stocks, ETFs, indices and futures (issue 15, item 3), through the
// yahoo-finance2 library (no key; figures are delayed where the exchange delays them). This module
// owns the mapping from canonical ids to Yahoo symbols, the transport discipline and the caches.
//
// The library speaks Yahoo's protocol (cookie and crumb handshake, v7 quote, v8 chart); we hand it
// our own fetch, which is where the discipline lives, because only a fetch sees each HTTP answer:
// a timeout per request, bounded concurrency (p-limit), retries of network errors and 5xx with
// doubling backoff, Retry-After honoured on 429, no retry of any other 4xx (upstreamRetry.ts, on
// p-retry). With `apiBase` set, that fetch sends every request the library makes, whatever Yahoo
// host it names, to that one origin: tests and fault journeys point it at a local fake, so nothing
// can reach Yahoo from them.
//
// Schema validation is off (the library's validator rejects a whole answer over one unexpected
// field), so every value we use is checked here: a nonsense price becomes an error, never a number.
import pLimit, { type LimitFunction } from 'p-limit';
import YahooFinance from 'yahoo-finance2';
import { ExtendedCookieJar } from 'yahoo-finance2/lib/cookieJar';
import { getCrumbClear } from 'yahoo-finance2/lib/getCrumb';
import { symbolById } from '../../shared/tickers.ts';
import type { MarketSymbol } from '../../shared/symbolTable.ts';
import { giveUp, RateLimitedError, retryAfterMs, withRetries } from './upstreamRetry.ts';
import { UpstreamError, type CandleRow, type Granularity, type MarketDataProvider, type QuoteResult } from './types.ts';

export interface YahooOptions {
  /** Origin (optionally with a path prefix) that replaces every host the library calls. */
  apiBase?: string;
  timeoutMs?: number;
  concurrency?: number;
  retries?: number;
  /** Base backoff; doubles each retry. */
  backoffMs?: number;
  /** How long a quote is reused: repeat callers within it cost no upstream request. */
  quoteCacheMs?: number;
  /** How long a candle range is reused. */
  candleCacheMs?: number;
  fetch?: typeof fetch;
  /** Epoch ms; decides which bars are closed, Yahoo's look-back limits and cache expiry. */
  now?: () => number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Yahoo's v7 quote endpoint takes many symbols; we keep each request to a modest batch. */
const QUOTE_BATCH = 50;
/**
 * Yahoo serves 1-minute bars for about the last 30 days and at most 8 days a request; hourly bars
 * for about 730 days. We stay a little inside both limits so an edge never turns into a 422.
 */
const CHART_LIMITS: Record<Granularity, { interval: '1m' | '60m'; lookbackMs: number; spanMs: number }> = {
  60: { interval: '1m', lookbackMs: 29 * DAY, spanMs: 7 * DAY },
  3600: { interval: '60m', lookbackMs: 729 * DAY, spanMs: 729 * DAY },
};
/** Statuses whose responses carry no body (the Response constructor rejects one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const SILENT_LOGGER = {
  // The library logs a survey notice, a Node-version warning (it asks for Node 22; we run on 20 and
  // check what we use) and validation reports we turned off: none is the trader's or operator's
  // business, and our errors say what failed.
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  dir: () => undefined,
};

function positiveNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

/** Yahoo sends epoch seconds; the library turns some of them into Dates. */
function epochMs(value: unknown): number | null {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : null;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value * 1000 : null;
}

/** Yahoo's JSON APIs live under /v1/.., /v7/.., /v8/..; the cookie page does not. */
function isApiPath(url: URL): boolean {
  return /^\/v\d+\//.test(url.pathname);
}

/** Yahoo's error bodies: { "<root>": { "result": null, "error": { "description": "..." } } }. */
function yahooErrorDescription(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return null;
    for (const root of Object.values(parsed)) {
      const description: unknown = (root as { error?: { description?: unknown } } | null)?.error?.description;
      if (typeof description === 'string' && description !== '') return description.slice(0, 200);
    }
  } catch {
    // Not JSON (an HTML error page): the status says enough.
  }
  return null;
}

function errorMessage(error: unknown): string {
  if (error instanceof UpstreamError) return error.message;
  const detail = error instanceof Error ? error.message : String(error);
  return `Yahoo Finance answered unexpectedly (${detail.slice(0, 160)})`;
}

function asUpstreamError(error: unknown): UpstreamError {
  return error instanceof UpstreamError ? error : new UpstreamError(errorMessage(error));
}

interface TransportOptions {
  apiBase?: string;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  fetch: typeof fetch;
  limit: LimitFunction;
}

/** Where a request goes: with apiBase, that origin (and path prefix) instead of any host. */
function rewrite(url: URL, apiBase: string | undefined): URL {
  if (apiBase === undefined) return url;
  const base = new URL(apiBase);
  return new URL(base.pathname.replace(/\/$/, '') + url.pathname + url.search, base.origin);
}

/**
 * The fetch we give the library. Bodies are read inside the timeout and handed back buffered,
 * so a stalled body is a timeout we can retry rather than a hang inside the library. A failed JSON
 * API answer becomes an UpstreamError here (the library would print the URL to the console).
 */
function yahooTransport(options: TransportOptions): typeof fetch {
  return async function yahooFetch(input, init) {
    // The library passes string URLs; a Request would lose its method and body here.
    const asked = new URL(input instanceof Request ? input.url : input.toString());
    const target = rewrite(asked, options.apiBase);
    const headers = new Headers(init?.headers);
    // Lets a fake (and its request log) know which Yahoo host the library meant.
    if (options.apiBase !== undefined) headers.set('x-forwarded-host', asked.host);
    const api = isApiPath(asked);

    return withRetries(
      async () => {
        const timeout = AbortSignal.timeout(options.timeoutMs);
        const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
        let response: Response;
        try {
          response = await options.limit(async () => {
            const answer = await options.fetch(target, { ...init, headers, signal });
            const body = NULL_BODY_STATUSES.has(answer.status) ? null : await answer.arrayBuffer();
            return new Response(body, {
              status: answer.status,
              statusText: answer.statusText,
              headers: answer.headers,
            });
          });
        } catch (error) {
          // The library's own abort is its answer, not the provider's failure.
          if (init?.signal?.aborted) giveUp(error instanceof Error ? error : new Error(String(error)));
          throw timeout.aborted
            ? new UpstreamError(`Yahoo Finance did not answer within ${options.timeoutMs} ms`)
            : new UpstreamError('Yahoo Finance is unreachable');
        }
        const { status } = response;
        if (status === 429)
          throw new RateLimitedError(
            'Yahoo Finance rate limit reached (429)',
            retryAfterMs(response.headers.get('retry-after')),
          );
        if (status >= 500) throw new UpstreamError(`Yahoo Finance answered HTTP ${status}`, status);
        if (status >= 400 && api) {
          // A 4xx other than 429 will not get better by asking again.
          const description = yahooErrorDescription(await response.clone().text());
          giveUp(
            new UpstreamError(`Yahoo Finance answered HTTP ${status}${description ? `: ${description}` : ''}`, status),
          );
        }
        if (status < 300 && api && !asked.pathname.endsWith('/getcrumb')) {
          try {
            JSON.parse(await response.clone().text());
          } catch {
            giveUp(new UpstreamError('Yahoo Finance answered with malformed JSON'));
          }
        }
        // Everything else, including the cookie page's redirects and its own 4xx, is the library's
        // handshake to judge.
        return response;
      },
      {
        retries: options.retries,
        backoffMs: options.backoffMs,
        // The library gave up on the request: no further attempt, and no wait for one.
        ...(init?.signal ? { signal: init.signal } : {}),
      },
    );
  };
}

/** A quote entry of Yahoo's v7 answer, or an error for that product. */
function quoteFromEntry(row: MarketSymbol, entry: Record<string, unknown> | undefined): QuoteResult {
  if (!entry) return { ok: false, error: `Yahoo Finance has no quote for ${row.id}` };
  const spot = positiveNumber(entry.regularMarketPrice);
  if (spot === null) return { ok: false, error: `Yahoo Finance sent no valid price for ${row.id}` };
  const at = epochMs(entry.regularMarketTime);
  if (at === null) return { ok: false, error: `Yahoo Finance sent no valid quote time for ${row.id}` };
  const bid = positiveNumber(entry.bid);
  const ask = positiveNumber(entry.ask);
  // Outside hours Yahoo often sends 0 or a stale book; a side within 10% of the last price and a
  // non-crossed book is usable, anything else falls back to the price itself.
  const saneBook = bid !== null && ask !== null && bid <= ask && bid >= spot * 0.9 && ask <= spot * 1.1;
  const delayedBy = entry.exchangeDataDelayedBy;
  return {
    ok: true,
    quote: {
      productId: row.id,
      spot,
      buy: saneBook ? ask : spot,
      sell: saneBook ? bid : spot,
      at: new Date(at),
      delayed: typeof delayedBy === 'number' && delayedBy > 0,
      ...(typeof delayedBy === 'number' && Number.isInteger(delayedBy) && delayedBy >= 0
        ? { delayMinutes: delayedBy }
        : {}),
    },
  };
}

/** A bar value: null or absent means a gap, a non-positive or non-numeric value is nonsense. */
function barValue(value: unknown, allowZero: boolean): number | null | 'nonsense' {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'nonsense';
  return value > 0 || (allowZero && value === 0) ? value : 'nonsense';
}

interface ChartAnswer {
  timestamp?: unknown;
  indicators?: { quote?: Array<Record<string, unknown>> };
}

/** Bars of one chart answer, closed and within [from, to); a bar of nulls is a gap. */
function barsFromChart(
  id: string,
  answer: unknown,
  granularity: Granularity,
  from: number,
  to: number,
  closedBefore: number,
): CandleRow[] {
  const chart = answer as ChartAnswer | null;
  if (typeof chart !== 'object' || chart === null) throw new UpstreamError(`Yahoo Finance sent no candles for ${id}`);
  // No timestamps: Yahoo has no bars in the range (a weekend, a holiday).
  if (chart.timestamp === undefined) return [];
  const quote = chart.indicators?.quote?.[0];
  if (!Array.isArray(chart.timestamp) || !quote) throw new UpstreamError(`Yahoo Finance sent no candles for ${id}`);
  const column = (name: string): unknown[] => (Array.isArray(quote[name]) ? (quote[name] as unknown[]) : []);
  const opens = column('open');
  const highs = column('high');
  const lows = column('low');
  const closes = column('close');
  const volumes = column('volume');
  const rows: CandleRow[] = [];
  chart.timestamp.forEach((seconds: unknown, index) => {
    const time = epochMs(seconds);
    if (time === null) throw new UpstreamError(`Yahoo Finance sent a malformed bar time for ${id}`);
    // Only whole-minute bars that have closed: Yahoo appends the bar in progress, sometimes
    // stamped with the last trade's second.
    if (time % MINUTE !== 0 || time < from || time >= to || time + granularity * 1000 > closedBefore) return;
    const open = barValue(opens[index], false);
    const high = barValue(highs[index], false);
    const low = barValue(lows[index], false);
    const close = barValue(closes[index], false);
    const volume = barValue(volumes[index], true);
    if (
      open === 'nonsense' ||
      high === 'nonsense' ||
      low === 'nonsense' ||
      close === 'nonsense' ||
      volume === 'nonsense'
    ) {
      throw new UpstreamError(`Yahoo Finance sent a malformed bar for ${id}`);
    }
    // A missing minute stays a gap, never a bar of zeros.
    if (open === null || high === null || low === null || close === null) return;
    rows.push({ time, open, high, low, close, volume: volume ?? 0 });
  });
  return rows;
}

export function createYahooProvider(options: YahooOptions = {}): MarketDataProvider {
  const timeoutMs = options.timeoutMs ?? 5000;
  const retries = options.retries ?? 2;
  const quoteCacheMs = options.quoteCacheMs ?? 15_000;
  const candleCacheMs = options.candleCacheMs ?? 30_000;
  const now = options.now ?? Date.now;
  const limit = pLimit(options.concurrency ?? 4);
  const transport = (overrides: Partial<TransportOptions> = {}) =>
    yahooTransport({
      apiBase: options.apiBase,
      timeoutMs,
      retries,
      backoffMs: options.backoffMs ?? 250,
      fetch: options.fetch ?? fetch,
      limit,
      ...overrides,
    });
  // One cookie jar per provider: the library's default jar is shared by every instance in the process.
  const cookieJar = new ExtendedCookieJar();
  const yahoo = new YahooFinance({
    fetch: transport(),
    cookieJar,
    logger: SILENT_LOGGER,
    suppressNotices: ['yahooSurvey'],
    // The version check asks the npm registry from inside the library, outside our fetch.
    versionCheck: false,
    validation: { logErrors: false, logOptionsErrors: false },
    // The library's request queue is one per process; our fetch bounds concurrency per provider.
    queue: { concurrency: 64 },
  });

  /**
   * The library keeps the crumb in module state shared by every instance, and once it has answered
   * from its cache it keeps answering that crumb whatever jar asks. Forgetting that state (on a
   * throwaway jar) just before each call makes the library read the crumb stored in this
   * provider's own jar, or shake hands anew. Two providers whose handshakes interleave can still
   * get each other's crumb; Yahoo then answers 401 (Invalid Crumb), and we drop this jar's cookies,
   * shake hands again and ask once more.
   */
  async function withOwnCrumb<T>(call: () => Promise<T>): Promise<T> {
    void getCrumbClear(new ExtendedCookieJar());
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof UpstreamError && error.status === 401)) throw error;
      await getCrumbClear(cookieJar);
      return call();
    }
  }

  function rowOf(id: string): MarketSymbol | string {
    const row = symbolById(id);
    if (!row) return `Unknown symbol ${id}`;
    if (row.assetClass === 'crypto') return `${id} is crypto: Coinbase serves it, not Yahoo Finance`;
    return row;
  }

  // One entry per canonical id: in flight (expires Infinity) or answered (until its expiry).
  const quoteCache = new Map<string, { expires: number; result: Promise<QuoteResult> }>();

  function requestQuotes(rows: MarketSymbol[]): void {
    const batch = withOwnCrumb(async () => {
      const answer: unknown = await yahoo.quote(
        rows.map((row) => row.providerSymbol),
        { return: 'array' },
        { validateResult: false },
      );
      if (!Array.isArray(answer)) throw new UpstreamError('Yahoo Finance sent no quotes');
      const bySymbol = new Map<unknown, Record<string, unknown>>();
      for (const entry of answer as unknown[]) {
        if (typeof entry === 'object' && entry !== null) {
          const record = entry as Record<string, unknown>;
          bySymbol.set(record.symbol, record);
        }
      }
      return bySymbol;
    });
    for (const row of rows) {
      const entry = {
        expires: Number.POSITIVE_INFINITY,
        result: batch.then(
          (bySymbol) => quoteFromEntry(row, bySymbol.get(row.providerSymbol)),
          (error: unknown): QuoteResult => ({ ok: false, error: errorMessage(error) }),
        ),
      };
      quoteCache.set(row.id, entry);
      // Yahoo's answers are kept for quoteCacheMs; a failed request is not, so the next call asks again.
      batch.then(
        () => {
          entry.expires = now() + quoteCacheMs;
        },
        () => {
          if (quoteCache.get(row.id) === entry) quoteCache.delete(row.id);
        },
      );
    }
  }

  // Per (id, granularity, range): in flight or answered, shared by every caller.
  const candleCache = new Map<string, { expires: number; rows: Promise<CandleRow[]> }>();

  async function fetchCandles(row: MarketSymbol, granularity: Granularity, start: number, end: number) {
    const limits = CHART_LIMITS[granularity];
    const at = now();
    const from = Math.max(start, at - limits.lookbackMs);
    const to = Math.min(end, at);
    const windows: Array<[number, number]> = [];
    for (let windowStart = from; windowStart < to; windowStart += limits.spanMs) {
      windows.push([windowStart, Math.min(windowStart + limits.spanMs, to)]);
    }
    const answers = await Promise.all(
      windows.map(([windowStart, windowEnd]) =>
        yahoo.chart(
          row.providerSymbol,
          {
            period1: new Date(windowStart),
            // Yahoo's period2 is exclusive at second resolution; one more second keeps the last bar.
            period2: new Date(windowEnd + 1000),
            interval: limits.interval,
            includePrePost: false,
            return: 'object',
          },
          { validateResult: false },
        ),
      ),
    );
    const rows = new Map<number, CandleRow>();
    for (const answer of answers) {
      for (const bar of barsFromChart(row.id, answer, granularity, start, end, at)) rows.set(bar.time, bar);
    }
    return [...rows.values()].sort((a, b) => a.time - b.time);
  }

  return {
    source: 'yahoo',
    async probe() {
      try {
        const at = now();
        await yahoo.chart(
          'SPY',
          { period1: new Date(at - 5 * DAY), period2: new Date(at), interval: '1d', return: 'object' },
          { validateResult: false, fetch: transport({ retries: 0, timeoutMs: Math.min(timeoutMs, 3000) }) },
        );
        return true;
      } catch {
        return false;
      }
    },
    async quotes(productIds) {
      const results = new Map<string, QuoteResult>();
      const waiting: Array<[string, Promise<QuoteResult>]> = [];
      const missing: MarketSymbol[] = [];
      const at = now();
      for (const id of new Set(productIds)) {
        const row = rowOf(id);
        if (typeof row === 'string') {
          results.set(id, { ok: false, error: row });
          continue;
        }
        const cached = quoteCache.get(id);
        if (cached && cached.expires > at) waiting.push([id, cached.result]);
        else missing.push(row);
      }
      for (let index = 0; index < missing.length; index += QUOTE_BATCH) {
        requestQuotes(missing.slice(index, index + QUOTE_BATCH));
      }
      for (const row of missing) waiting.push([row.id, quoteCache.get(row.id)!.result]);
      for (const [id, result] of waiting) results.set(id, await result);
      // Keep the caller's order, as the other providers do.
      return new Map(productIds.filter((id) => results.has(id)).map((id) => [id, results.get(id)!]));
    },
    async candles(productId, granularity, start, end) {
      const row = rowOf(productId);
      if (typeof row === 'string') throw new UpstreamError(row);
      if (!(granularity in CHART_LIMITS)) throw new UpstreamError(`Unsupported granularity ${String(granularity)}`);
      const key = `${productId}|${granularity}|${start.getTime()}|${end.getTime()}`;
      const at = now();
      for (const [cachedKey, entry] of candleCache) if (entry.expires <= at) candleCache.delete(cachedKey);
      const cached = candleCache.get(key);
      if (cached) return cached.rows;
      const entry = {
        expires: Number.POSITIVE_INFINITY,
        rows: fetchCandles(row, granularity, start.getTime(), end.getTime()),
      };
      candleCache.set(key, entry);
      entry.rows.then(
        () => {
          entry.expires = now() + candleCacheMs;
        },
        () => {
          if (candleCache.get(key) === entry) candleCache.delete(key);
        },
      );
      try {
        return await entry.rows;
      } catch (error) {
        throw asUpstreamError(error);
      }
    },
  };
}
