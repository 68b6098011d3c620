// Coinbase's public market data, no key needed: spot/buy/sell from the price API
// ({priceApiBase}/v2/prices/{product}/{kind}) and candles from Coinbase Exchange
// ({exchangeApiBase}/products/{product}/candles); the hosts are configuration (config.ts:
// COINBASE_PRICE_API_URL, COINBASE_EXCHANGE_API_URL). Each request has a 5 s timeout;
// requests run with bounded concurrency (p-limit); failures retry with backoff, honouring Retry-After
// on 429 (upstreamRetry.ts, on p-retry). Garbage answers become errors for that product, never numbers.
import pLimit from 'p-limit';
import { giveUp, RateLimitedError, retryAfterMs, withRetries } from './upstreamRetry.ts';
import { UpstreamError, type CandleRow, type Granularity, type MarketDataProvider, type QuoteResult } from './types.ts';

export interface CoinbaseOptions {
  /** The price API's origin (config.COINBASE_PRICE_API_URL). */
  priceApiBase: string;
  /** Coinbase Exchange's origin (config.COINBASE_EXCHANGE_API_URL). */
  exchangeApiBase: string;
  timeoutMs?: number;
  concurrency?: number;
  retries?: number;
  /** Base backoff; doubles each retry. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** Coinbase Exchange returns at most 300 candles a request. */
const MAX_CANDLES_PER_REQUEST = 300;

function positiveNumber(value: unknown): number | null {
  const number = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(number) && number > 0 ? number : null;
}

export function createCoinbaseProvider(options: CoinbaseOptions): MarketDataProvider {
  const priceBase = options.priceApiBase;
  const exchangeBase = options.exchangeApiBase;
  const timeoutMs = options.timeoutMs ?? 5000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 250;
  const doFetch = options.fetch ?? fetch;
  const limit = pLimit(options.concurrency ?? 8);

  async function getJson(url: string): Promise<unknown> {
    return withRetries(
      async () => {
        let response: Response;
        try {
          response = await limit(() =>
            doFetch(url, {
              signal: AbortSignal.timeout(timeoutMs),
              headers: { Accept: 'application/json', 'User-Agent': 'watos-dashboard' },
            }),
          );
        } catch (error) {
          const timedOut = error instanceof Error && error.name === 'TimeoutError';
          throw new UpstreamError(
            timedOut ? `Coinbase did not answer within ${timeoutMs} ms` : 'Coinbase is unreachable',
          );
        }
        if (response.ok) {
          try {
            return await response.json();
          } catch {
            return giveUp(new UpstreamError('Coinbase answered with malformed JSON'));
          }
        }
        await response.body?.cancel();
        if (response.status === 429)
          throw new RateLimitedError(
            'Coinbase rate limit reached (429)',
            retryAfterMs(response.headers.get('retry-after')),
          );
        const error = new UpstreamError(`Coinbase answered HTTP ${response.status}`, response.status);
        // A 4xx other than 429 will not get better by asking again.
        if (response.status < 500) giveUp(error);
        throw error;
      },
      { retries, backoffMs },
    );
  }

  async function priceOf(productId: string, kind: 'spot' | 'buy' | 'sell'): Promise<number> {
    const body = (await getJson(`${priceBase}/v2/prices/${encodeURIComponent(productId)}/${kind}`)) as {
      data?: { amount?: unknown };
    } | null;
    const amount = positiveNumber(body?.data?.amount);
    if (amount === null) throw new UpstreamError(`Coinbase sent no ${kind} price for ${productId}`);
    return amount;
  }

  return {
    source: 'coinbase',
    async probe() {
      try {
        const response = await doFetch(`${priceBase}/v2/prices/BTC-USD/spot`, {
          signal: AbortSignal.timeout(Math.min(timeoutMs, 3000)),
        });
        await response.body?.cancel();
        return response.ok;
      } catch {
        return false;
      }
    },
    async quotes(productIds) {
      const results = new Map<string, QuoteResult>();
      await Promise.all(
        productIds.map(async (productId) => {
          try {
            const [spot, buy, sell] = await Promise.all([
              priceOf(productId, 'spot'),
              priceOf(productId, 'buy'),
              priceOf(productId, 'sell'),
            ]);
            results.set(productId, { ok: true, quote: { productId, spot, buy, sell, at: new Date() } });
          } catch (error) {
            results.set(productId, { ok: false, error: error instanceof Error ? error.message : 'Unknown error' });
          }
        }),
      );
      return results;
    },
    async candles(productId, granularity: Granularity, start, end) {
      const rows = new Map<number, CandleRow>();
      const span = granularity * 1000 * MAX_CANDLES_PER_REQUEST;
      for (let from = start.getTime(); from < end.getTime(); from += span) {
        const to = Math.min(from + span, end.getTime());
        const url = `${exchangeBase}/products/${encodeURIComponent(productId)}/candles?granularity=${granularity}&start=${new Date(from).toISOString()}&end=${new Date(to).toISOString()}`;
        const body = await getJson(url);
        if (!Array.isArray(body)) throw new UpstreamError(`Coinbase sent no candles for ${productId}`);
        for (const entry of body) {
          // Coinbase Exchange candle: [time (s), low, high, open, close, volume]
          if (!Array.isArray(entry) || entry.length < 6) continue;
          // Defaults never apply (six entries checked above); NaN would fail the check below.
          const [seconds = NaN, low = NaN, high = NaN, open = NaN, close = NaN, volume = NaN] = entry.map(Number);
          const time = seconds * 1000;
          if (
            ![time, low, high, open, close, volume].every(Number.isFinite) ||
            time < start.getTime() ||
            time >= end.getTime()
          )
            continue;
          rows.set(time, { time, open, high, low, close, volume });
        }
      }
      return [...rows.values()].sort((a, b) => a.time - b.time);
    },
  };
}
