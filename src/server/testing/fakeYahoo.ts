// A local fake of Yahoo Finance on 127.0.0.1 for the yahoo-finance2 library, so tests and fault
// journeys exercise the real library with no network. It replays the recorded response shapes in
// src/server/market/fixtures/yahoo/ for everything the library asks: the cookie page and crumb of
// its handshake (crumb and cookie are checked, as Yahoo does), the v7 quote and the v8 chart.
//
// Prices and bars are generated for any symbol and range, deterministically, from the fixtures'
// shapes: a smooth walk around a plausible level per symbol, bars only inside the symbol's trading
// session (the shared session calendars), the bar in progress included as Yahoo does, and a few
// 1-minute bars of nulls (Yahoo's missing minutes). Yahoo's limits are enforced (1m: 8 days a
// request, last 30 days). Switches make it fail as a real upstream does: an HTTP status, 429 with
// Retry-After, a closed socket, slowness, a garbage body; and recover.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { sessionAt } from '../../shared/sessions.ts';
import { SYMBOL_TABLE, type MarketSymbol, type SessionCalendarId } from '../../shared/symbolTable.ts';

type FakeYahooEndpoint = 'cookie' | 'crumb' | 'quote' | 'chart' | 'other';

type FakeYahooMode =
  | { kind: 'ok' }
  /** Answers with this status and Yahoo's JSON error body. */
  | { kind: 'status'; status: number }
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  /** Destroys the socket without an answer. */
  | { kind: 'close-socket' }
  /** Answers normally after a delay. */
  | { kind: 'slow'; delayMs: number }
  /** A 200 whose body is truncated JSON. */
  | { kind: 'garbage' };

interface FakeYahooRequest {
  endpoint: FakeYahooEndpoint;
  /** The Yahoo host the library asked for (the provider's x-forwarded-host), else Host. */
  host: string;
  path: string;
  /** Yahoo symbols asked: the quote's symbols, the chart's one. */
  symbols: string[];
  params: Record<string, string>;
}

type BarField = 'open' | 'high' | 'low' | 'close' | 'volume';

export interface FakeYahoo {
  url: string;
  /** Serve `mode` on an endpoint (default all) for `times` requests (default until recover()). */
  setMode(mode: FakeYahooMode, scope?: { endpoint?: FakeYahooEndpoint | 'all'; times?: number }): void;
  /** Back to normal: no failure modes, no overrides. */
  recover(): void;
  requests(filter?: { endpoint?: FakeYahooEndpoint; symbol?: string }): FakeYahooRequest[];
  /** Most requests in flight at once since the last resetStats(). */
  peakInFlight(): number;
  resetStats(): void;
  /** Patch a symbol's quote entry (undefined deletes a field): garbage prices, missing books. */
  setQuoteFields(symbol: string, fields: Record<string, unknown>): void;
  /** Replace values of one bar (by its open time, epoch seconds) of a symbol's chart. */
  overrideBar(symbol: string, timeSeconds: number, values: Partial<Record<BarField, unknown>>): void;
  /** A new crumb, as when Yahoo's session expires: the old one gets 401 Invalid Crumb. */
  rotateCrumb(): void;
  close(): Promise<void>;
}

export interface FakeYahooOptions {
  /** The fake's clock, epoch ms (default Date.now): last trades, bars in progress, 30-day limit. */
  now?: () => number;
  /** Yahoo symbols the fake does not know: quotes omit them, charts answer 404. */
  unknownSymbols?: string[];
}

type Json = Record<string, unknown>;

const FIXTURES = new URL('../market/fixtures/yahoo/', import.meta.url);
function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;
}

type QuoteFixtureEntry = Json & { symbol: string; quoteType: string; regularMarketPrice: number };
const QUOTE_FIXTURE = fixture<{ quoteResponse: { result: QuoteFixtureEntry[] } }>('quote.json');
const CHART_FIXTURE = fixture<{ chart: { result: Json[] } }>('chart.json');
const FUTURE_CHART_FIXTURE = fixture<{ chart: { result: Json[] } }>('chart-future.json');
const SESSION = fixture<{
  cookiePage: { status: number; setCookie: string[]; body: string };
  crumb: string;
  errors: Record<string, unknown>;
}>('session.json');

const QUOTE_TEMPLATES = new Map<string, Json>(
  QUOTE_FIXTURE.quoteResponse.result.map((entry) => [entry.quoteType, entry]),
);

/** Levels around which prices move: the recorded quotes' and a few more, so journeys look real. */
const LEVELS: Record<string, number> = {
  ...Object.fromEntries(QUOTE_FIXTURE.quoteResponse.result.map((entry) => [entry.symbol, entry.regularMarketPrice])),
  'BRK-B': 471.2,
  QQQ: 571.4,
  '^NDX': 23480,
  '^DJI': 45310,
  '^RUT': 2372,
  '^VIX': 15.3,
  'ES=F': 6530.25,
  'NQ=F': 23610,
  'MNQ=F': 23610,
  'YM=F': 45520,
  'MYM=F': 45520,
  'RTY=F': 2384,
  'M2K=F': 2384,
  'GC=F': 3612.4,
  'MGC=F': 3612.4,
  'SI=F': 41.2,
  'SIL=F': 41.2,
  'CL=F': 63.4,
  'MCL=F': 63.4,
  'NG=F': 3.08,
};

const BY_PROVIDER_SYMBOL = new Map<string, MarketSymbol>(
  SYMBOL_TABLE.filter((row) => row.assetClass !== 'crypto').map((row) => [row.providerSymbol, row]),
);

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function levelOf(symbol: string): number {
  return LEVELS[symbol] ?? 20 + (fnv1a(symbol) % 50_000) / 100;
}

function round(value: number, decimals = 2): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** The fake's price of a symbol at an instant: a deterministic walk around its level. */
export function fakeYahooPrice(symbol: string, timeMs: number): number {
  const seconds = timeMs / 1000;
  const phase = (fnv1a(symbol) % 1000) / 1000;
  const wave =
    0.015 * Math.sin(2 * Math.PI * (seconds / (5 * 86_400) + phase)) +
    0.003 * Math.sin(2 * Math.PI * (seconds / 5_400 + phase)) +
    0.001 * Math.sin(2 * Math.PI * (seconds / 420));
  return round(levelOf(symbol) * (1 + wave));
}

/** Whether the fake serves this 1-minute bar as Yahoo's nulls (a missing minute). */
export function isFakeYahooGap(symbol: string, timeSeconds: number): boolean {
  return fnv1a(`${symbol}@${timeSeconds}`) % 41 === 0;
}

function calendarOf(symbol: string): SessionCalendarId {
  return BY_PROVIDER_SYMBOL.get(symbol)?.calendar ?? (symbol.endsWith('=F') ? 'cme-globex' : 'us-equities');
}

function quoteTypeOf(symbol: string): string {
  const assetClass = BY_PROVIDER_SYMBOL.get(symbol)?.assetClass;
  if (assetClass === 'etf') return 'ETF';
  if (assetClass === 'index' || symbol.startsWith('^')) return 'INDEX';
  if (assetClass === 'future' || assetClass === 'micro-future' || symbol.endsWith('=F')) return 'FUTURE';
  return 'EQUITY';
}

const INTERVAL_SECONDS: Record<string, number> = { '1m': 60, '60m': 3600, '1h': 3600, '1d': 86_400 };

/** Bar open times (epoch seconds) in [from, to) inside the symbol's sessions. */
function barTimes(symbol: string, intervalSeconds: number, from: number, to: number, prePost: boolean): number[] {
  const calendar = calendarOf(symbol);
  // Hourly bars start at the session's open (09:30 for US equities), daily bars at the open itself.
  const probeStep = intervalSeconds === 60 ? 60 : 1800;
  const times: number[] = [];
  for (let time = Math.ceil(from / probeStep) * probeStep; time < to; time += probeStep) {
    const state = sessionAt(calendar, time * 1000);
    const trading = state.open || (prePost && (state.phase === 'pre' || state.phase === 'post'));
    if (!trading) continue;
    if (intervalSeconds > 60 && state.sessionOpen !== undefined) {
      const sinceOpen = time * 1000 - state.sessionOpen;
      if (intervalSeconds === 86_400 ? sinceOpen !== 0 : sinceOpen % (intervalSeconds * 1000) !== 0) continue;
    }
    times.push(time);
  }
  return times;
}

/** The last instant (ms) at or before `at` when the symbol traded. */
function lastTradeAt(symbol: string, at: number): number {
  const calendar = calendarOf(symbol);
  if (sessionAt(calendar, at).open) return Math.floor(at / 1000) * 1000;
  let time = Math.floor(at / 1_800_000) * 1_800_000;
  for (let steps = 0; steps < 400 && !sessionAt(calendar, time - 60_000).open; steps += 1) time -= 1_800_000;
  // `time` is now the first closed instant after a session: step back to its close minute.
  while (!sessionAt(calendar, time - 60_000).open && time > at - 30 * 86_400_000) time -= 60_000;
  return time;
}

export async function startFakeYahoo(options: FakeYahooOptions = {}): Promise<FakeYahoo> {
  const now = options.now ?? Date.now;
  const unknown = new Set(options.unknownSymbols ?? []);
  let rules: Array<{ mode: FakeYahooMode; endpoint: FakeYahooEndpoint | 'all'; remaining: number }> = [];
  const quoteFields = new Map<string, Record<string, unknown>>();
  const barOverrides = new Map<string, Partial<Record<BarField, unknown>>>();
  let log: FakeYahooRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  let crumb = SESSION.crumb;
  let crumbGeneration = 0;
  const timers = new Set<NodeJS.Timeout>();

  function modeFor(endpoint: FakeYahooEndpoint): FakeYahooMode {
    for (const rule of rules) {
      if ((rule.endpoint === endpoint || rule.endpoint === 'all') && rule.remaining > 0) {
        rule.remaining -= 1;
        return rule.mode;
      }
    }
    return { kind: 'ok' };
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const type = typeof body === 'string' ? 'text/plain;charset=utf-8' : 'application/json;charset=utf-8';
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(text);
  }

  function quoteEntry(symbol: string): Json {
    const template = QUOTE_TEMPLATES.get(quoteTypeOf(symbol)) ?? QUOTE_TEMPLATES.get('EQUITY')!;
    const row = BY_PROVIDER_SYMBOL.get(symbol);
    const tradedAt = lastTradeAt(symbol, now());
    const price = fakeYahooPrice(symbol, tradedAt);
    const previousClose = fakeYahooPrice(symbol, tradedAt - 86_400_000);
    const tick = row?.tickSize ?? 0.01;
    const entry: Json = {
      ...template,
      symbol,
      shortName: row?.name ?? symbol,
      longName: row?.name ?? symbol,
      marketState: sessionAt(calendarOf(symbol), now()).open ? 'REGULAR' : 'CLOSED',
      regularMarketPrice: price,
      regularMarketTime: Math.floor(tradedAt / 1000),
      regularMarketPreviousClose: previousClose,
      regularMarketChange: round(price - previousClose, 4),
      regularMarketChangePercent: round(((price - previousClose) / previousClose) * 100, 5),
      regularMarketDayHigh: round(price * 1.004),
      regularMarketDayLow: round(price * 0.996),
    };
    if ('bid' in template) {
      entry.bid = round(price - tick, 4);
      entry.ask = round(price + tick, 4);
    }
    if (template.symbol !== symbol) {
      for (const field of ['underlyingSymbol', 'expireDate', 'expireIsoDate', 'messageBoardId', 'displayName']) {
        delete entry[field];
      }
      if ('headSymbolAsString' in template) entry.headSymbolAsString = symbol;
    }
    for (const [field, value] of Object.entries(quoteFields.get(symbol) ?? {})) {
      if (value === undefined) delete entry[field];
      else entry[field] = value;
    }
    return entry;
  }

  function chartAnswer(res: ServerResponse, symbol: string, params: URLSearchParams) {
    const errors = SESSION.errors;
    if (unknown.has(symbol)) return send(res, 404, errors.chartNotFound);
    const interval = params.get('interval') ?? '1d';
    const step = INTERVAL_SECONDS[interval];
    const period1 = Number(params.get('period1'));
    const period2 = Number(params.get('period2') ?? Math.floor(now() / 1000));
    if (!step || !Number.isFinite(period1) || !Number.isFinite(period2) || period2 <= period1) {
      return send(res, 400, { chart: { result: null, error: { code: 'Bad Request', description: 'Invalid input' } } });
    }
    if (step === 60 && period2 - period1 > 8 * 86_400) return send(res, 422, errors.chartTooLong);
    if (step === 60 && period1 * 1000 < now() - 30 * 86_400_000) return send(res, 422, errors.chartTooOld);
    // Bars up to now, the one in progress included (its close is the latest price).
    const until = Math.min(period2, Math.floor(now() / 1000) + 1);
    const times = barTimes(symbol, step, period1, until, params.get('includePrePost') === 'true');
    const level = levelOf(symbol);
    const columns: Record<BarField, unknown[]> = {
      open: [],
      high: [],
      low: [],
      close: [],
      volume: [],
    };
    for (const time of times) {
      const gap = step === 60 && isFakeYahooGap(symbol, time);
      const open = fakeYahooPrice(symbol, time * 1000);
      const close = fakeYahooPrice(symbol, Math.min(time + step, now() / 1000) * 1000);
      const bar: Record<BarField, unknown> = gap
        ? { open: null, high: null, low: null, close: null, volume: null }
        : {
            open,
            high: round(Math.max(open, close) + level * 0.0004),
            low: round(Math.min(open, close) - level * 0.0004),
            close,
            volume: quoteTypeOf(symbol) === 'INDEX' ? 0 : ((fnv1a(`${symbol}#${time}`) % 9000) + 1000) * (step / 60),
          };
      Object.assign(bar, barOverrides.get(`${symbol}@${time}`));
      for (const field of Object.keys(columns) as BarField[]) columns[field].push(bar[field]);
    }
    const template = (symbol.endsWith('=F') ? FUTURE_CHART_FIXTURE : CHART_FIXTURE).chart.result[0]!;
    const quote = quoteEntry(symbol);
    const meta: Json = {
      ...(template.meta as Json),
      symbol,
      instrumentType: quote.quoteType,
      exchangeName: quote.exchange,
      fullExchangeName: quote.fullExchangeName,
      longName: quote.longName,
      shortName: quote.shortName,
      regularMarketPrice: quote.regularMarketPrice,
      regularMarketTime: quote.regularMarketTime,
      chartPreviousClose: quote.regularMarketPreviousClose,
      previousClose: quote.regularMarketPreviousClose,
      dataGranularity: interval,
    };
    // Yahoo's answer for a range without bars: no timestamp and one empty quote object.
    const result: Json =
      times.length === 0
        ? { meta, indicators: { quote: [{}] } }
        : { meta, timestamp: times, indicators: { quote: [columns] } };
    return send(res, 200, { chart: { result: [result], error: null } });
  }

  function answer(req: IncomingMessage, res: ServerResponse, endpoint: FakeYahooEndpoint, url: URL) {
    const cookie = req.headers.cookie ?? '';
    if (endpoint === 'cookie') {
      return send(res, SESSION.cookiePage.status, SESSION.cookiePage.body, {
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': SESSION.cookiePage.setCookie,
      });
    }
    if (endpoint === 'crumb') {
      return cookie.includes('A3=') ? send(res, 200, crumb) : send(res, 401, 'Unauthorized');
    }
    if (endpoint === 'quote') {
      if (url.searchParams.get('crumb') !== crumb || !cookie.includes('A3=')) {
        return send(res, 401, SESSION.errors.invalidCrumb);
      }
      const symbols = (url.searchParams.get('symbols') ?? '').split(',').filter(Boolean);
      if (symbols.length === 0) return send(res, 400, SESSION.errors.badRequest);
      const result = symbols.filter((symbol) => !unknown.has(symbol)).map(quoteEntry);
      return send(res, 200, { quoteResponse: { result, error: null } });
    }
    if (endpoint === 'chart') {
      return chartAnswer(res, decodeURIComponent(url.pathname.slice('/v8/finance/chart/'.length)), url.searchParams);
    }
    return send(res, 404, {
      finance: { result: null, error: { code: 'Not Found', description: 'HTTP 404 Not Found' } },
    });
  }

  function classify(path: string): FakeYahooEndpoint {
    if (path === '/v1/test/getcrumb') return 'crumb';
    if (path === '/v7/finance/quote') return 'quote';
    if (path.startsWith('/v8/finance/chart/')) return 'chart';
    if (path === '/' || path.startsWith('/quote/')) return 'cookie';
    return 'other';
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const endpoint = classify(url.pathname);
    const symbols =
      endpoint === 'quote'
        ? (url.searchParams.get('symbols') ?? '').split(',').filter(Boolean)
        : endpoint === 'chart'
          ? [decodeURIComponent(url.pathname.slice('/v8/finance/chart/'.length))]
          : [];
    const forwardedHost = req.headers['x-forwarded-host'];
    log.push({
      endpoint,
      host: (typeof forwardedHost === 'string' ? forwardedHost : req.headers.host) ?? '',
      path: url.pathname,
      symbols,
      params: Object.fromEntries(url.searchParams),
    });
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    res.on('close', () => {
      inFlight -= 1;
    });

    const mode = modeFor(endpoint);
    switch (mode.kind) {
      case 'status': {
        const root = endpoint === 'chart' ? 'chart' : 'finance';
        const code = mode.status >= 500 ? 'internal-error' : mode.status === 404 ? 'Not Found' : 'Bad Request';
        return send(res, mode.status, {
          [root]: { result: null, error: { code, description: `HTTP ${mode.status}` } },
        });
      }
      case 'rate-limited':
        return send(res, 429, SESSION.errors.tooManyRequests, {
          'retry-after': String(mode.retryAfterSeconds),
        });
      case 'close-socket':
        return void req.socket.destroy();
      case 'garbage': {
        const truncated =
          endpoint === 'chart'
            ? '{"chart":{"result":[{"meta":{"currency":"US'
            : '{"quoteResponse":{"result":[{"language":"en-US","regularMarketPrice":';
        return send(res, 200, truncated, { 'content-type': 'application/json;charset=utf-8' });
      }
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) answer(req, res, endpoint, url);
        }, mode.delayMs);
        timers.add(timer);
        return;
      }
      case 'ok':
        return answer(req, res, endpoint, url);
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(mode, scope = {}) {
      rules.unshift({ mode, endpoint: scope.endpoint ?? 'all', remaining: scope.times ?? Number.POSITIVE_INFINITY });
    },
    recover() {
      rules = [];
      quoteFields.clear();
      barOverrides.clear();
    },
    requests(filter = {}) {
      return log.filter(
        (request) =>
          (filter.endpoint === undefined || request.endpoint === filter.endpoint) &&
          (filter.symbol === undefined || request.symbols.includes(filter.symbol)),
      );
    },
    peakInFlight: () => peak,
    resetStats() {
      log = [];
      peak = inFlight;
    },
    setQuoteFields(symbol, fields) {
      quoteFields.set(symbol, { ...quoteFields.get(symbol), ...fields });
    },
    overrideBar(symbol, timeSeconds, values) {
      barOverrides.set(`${symbol}@${timeSeconds}`, values);
    },
    rotateCrumb() {
      crumbGeneration += 1;
      crumb = `${SESSION.crumb}${crumbGeneration}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
