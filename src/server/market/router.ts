// Every asset class behind one provider (issue 15): crypto from Coinbase, stocks, ETFs, indices
// and futures from Yahoo Finance, each with the demo feed behind it. Products are the symbol
// table's canonical ids; the table's asset class picks the provider.
//
// MARKET_DATA decides per provider:
//   auto      each real provider while it answers; when one cannot be reached (probe fails, or a
//             call fails with a network error, a timeout, a 5xx or a 429) its classes use the
//             demo feed, labelled, and the real one is tried again a minute later. The other
//             provider is not affected: a Yahoo outage never turns crypto into demo data.
//   live      both real providers, never the demo feed (errors are errors).
//   coinbase  crypto forced to Coinbase (the mode's old meaning); the other classes as in auto.
//   demo      the demo feed for everything.
//
// `sourceOf(id)` says who answers for a product now. The alert engine takes a `pinned()` copy
// whose sources stay fixed for the life of the process, so stored bars of one symbol never mix
// real and simulated prices; the assistant asks the live router and labels what it got.
import { symbolById } from '../../shared/tickers.ts';
import {
  UpstreamError,
  type CandleRow,
  type Granularity,
  type MarketDataProvider,
  type MarketRouter,
  type MarketSource,
  type QuoteResult,
} from './types.ts';

export const MARKET_DATA_MODES = ['auto', 'live', 'coinbase', 'demo'] as const;
export type MarketDataMode = (typeof MARKET_DATA_MODES)[number];

/** The two real providers; every asset class belongs to one. */
export type ProviderSlot = 'coinbase' | 'yahoo';

export interface MarketRouterOptions {
  mode: MarketDataMode;
  coinbase: MarketDataProvider;
  yahoo: MarketDataProvider;
  demo: MarketDataProvider;
  /** How long auto mode stays on the demo feed after a provider failed, before trying it again. */
  retryMs?: number;
  now?: () => number;
}

/** The real provider that serves a canonical id: Coinbase for crypto, Yahoo for every other class. */
export function slotOf(productId: string): ProviderSlot {
  const symbol = symbolById(productId);
  // Ids outside the table (a benchmark's synthetic universe) are served like crypto: only
  // the demo feed knows them, and the slot only matters for a real provider.
  return symbol === undefined || symbol.assetClass === 'crypto' ? 'coinbase' : 'yahoo';
}

/** Whether a failure says the provider is unreachable (so auto mode falls back), not that one product is unknown. */
function isOutage(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return true;
  return error.status === undefined || error.status === 429 || error.status >= 500;
}

interface SlotState {
  /** auto: until when the demo feed answers for this slot. */
  downUntil: number;
  /** auto: the probe that decides, shared by concurrent callers. */
  probing: Promise<boolean> | null;
  /** auto: whether the real provider answered since it was last marked down. */
  confirmed: boolean;
}

type Forced = 'real' | 'demo' | null;

export function createMarketRouter(options: MarketRouterOptions): MarketRouter & {
  /** A router whose source per provider is decided now and then stays fixed (the alert engine's). */
  pinned(): Promise<MarketRouter>;
  /**
   * Bars from exactly `source`, never another (no fallback to the demo feed): for a history that
   * joins them to bars stored from that source. Throws UpstreamError when the source fails or
   * does not serve the product.
   */
  candlesFrom(
    source: MarketSource,
    productId: string,
    granularity: Granularity,
    start: Date,
    end: Date,
  ): Promise<CandleRow[]>;
} {
  const retryMs = options.retryMs ?? 60_000;
  const now = options.now ?? Date.now;
  const real: Record<ProviderSlot, MarketDataProvider> = { coinbase: options.coinbase, yahoo: options.yahoo };
  const state: Record<ProviderSlot, SlotState> = {
    coinbase: { downUntil: 0, probing: null, confirmed: false },
    yahoo: { downUntil: 0, probing: null, confirmed: false },
  };

  function forced(slot: ProviderSlot): Forced {
    if (options.mode === 'demo') return 'demo';
    if (options.mode === 'live') return 'real';
    if (options.mode === 'coinbase' && slot === 'coinbase') return 'real';
    return null;
  }

  function markDown(slot: ProviderSlot) {
    state[slot].downUntil = now() + retryMs;
    state[slot].confirmed = false;
  }

  /** Who answers for a slot now, probing once when auto mode does not know yet. */
  async function choose(slot: ProviderSlot): Promise<'real' | 'demo'> {
    const fixed = forced(slot);
    if (fixed) return fixed;
    const slotState = state[slot];
    if (now() < slotState.downUntil) return 'demo';
    if (slotState.confirmed || !real[slot].probe) return 'real';
    slotState.probing ??= real[slot].probe().finally(() => {
      slotState.probing = null;
    });
    if (await slotState.probing) {
      slotState.confirmed = true;
      return 'real';
    }
    markDown(slot);
    return 'demo';
  }

  function currentSource(slot: ProviderSlot): MarketSource {
    const fixed = forced(slot);
    if (fixed === 'demo') return 'demo';
    if (fixed === null && now() < state[slot].downUntil) return 'demo';
    return real[slot].source;
  }

  /** Runs a call on the chosen provider; in auto mode an outage falls back to the demo feed. */
  async function withFallback<T>(slot: ProviderSlot, call: (provider: MarketDataProvider) => Promise<T>): Promise<T> {
    if ((await choose(slot)) === 'demo') return call(options.demo);
    try {
      const answer = await call(real[slot]);
      if (forced(slot) === null) state[slot].confirmed = true;
      return answer;
    } catch (error) {
      if (forced(slot) !== null || !isOutage(error)) throw error;
      markDown(slot);
      return call(options.demo);
    }
  }

  async function quotes(productIds: readonly string[]): Promise<Map<string, QuoteResult>> {
    const results = new Map<string, QuoteResult>();
    const bySlot: Record<ProviderSlot, string[]> = { coinbase: [], yahoo: [] };
    for (const productId of productIds) bySlot[slotOf(productId)].push(productId);
    await Promise.all(
      (Object.keys(bySlot) as ProviderSlot[])
        .filter((slot) => bySlot[slot].length > 0)
        .map(async (slot) => {
          const ids = bySlot[slot];
          const answer = await withFallback(slot, async (provider) => {
            const got = await provider.quotes(ids);
            // Providers report failures per product. When every product failed, one quick probe
            // tells an outage of the provider (fall back) from products it does not know (report).
            if (
              provider !== options.demo &&
              ids.every((id) => got.get(id)?.ok !== true) &&
              provider.probe &&
              !(await provider.probe())
            )
              throw new UpstreamError(`${provider.source} is unreachable`);
            return got;
          }).catch((error: unknown) => {
            const message = error instanceof Error ? error.message : 'No answer';
            return new Map<string, QuoteResult>(ids.map((id) => [id, { ok: false, error: message }]));
          });
          for (const [id, result] of answer) results.set(id, result);
        }),
    );
    // In the order asked, whichever provider answered first.
    return new Map(productIds.map((id) => [id, results.get(id) ?? { ok: false, error: 'No answer' }]));
  }

  async function candles(productId: string, granularity: Granularity, start: Date, end: Date): Promise<CandleRow[]> {
    return withFallback(slotOf(productId), (provider) => provider.candles(productId, granularity, start, end));
  }

  async function candlesFrom(
    source: MarketSource,
    productId: string,
    granularity: Granularity,
    start: Date,
    end: Date,
  ): Promise<CandleRow[]> {
    const provider = source === options.demo.source ? options.demo : real[slotOf(productId)];
    if (provider.source !== source) throw new UpstreamError(`${productId} has no bars from ${source}`);
    return provider.candles(productId, granularity, start, end);
  }

  return {
    // The router's own label is Coinbase's: the exchange view's source. Per product, ask sourceOf.
    get source() {
      return currentSource('coinbase');
    },
    sourceOf: (productId) => currentSource(slotOf(productId)),
    quotes,
    candles,
    candlesFrom,
    async probe() {
      return (await choose('coinbase')) === 'real' || (await choose('yahoo')) === 'real';
    },
    async pinned() {
      const [coinbase, yahoo] = await Promise.all([choose('coinbase'), choose('yahoo')]);
      const chosen: Record<ProviderSlot, MarketDataProvider> = {
        coinbase: coinbase === 'real' ? real.coinbase : options.demo,
        yahoo: yahoo === 'real' ? real.yahoo : options.demo,
      };
      const providerOf = (productId: string) => chosen[slotOf(productId)];
      return {
        source: chosen.coinbase.source,
        sourceOf: (productId) => providerOf(productId).source,
        async quotes(productIds) {
          const results = new Map<string, QuoteResult>();
          for (const slot of ['coinbase', 'yahoo'] as const) {
            const ids = productIds.filter((id) => slotOf(id) === slot);
            if (ids.length > 0) for (const [id, result] of await chosen[slot].quotes(ids)) results.set(id, result);
          }
          return results;
        },
        candles: (productId, granularity, start, end) =>
          providerOf(productId).candles(productId, granularity, start, end),
      };
    },
  };
}

export type MarketRouterWithPin = ReturnType<typeof createMarketRouter>;
