// Ticks for stocks, ETFs, indices and futures by polling the provider's quotes (issue 34, item 1):
// Yahoo Finance has no maintained streaming client, so every few seconds ONE batched quotes()
// call for all carried symbols (the Yahoo provider sends them as one v7 request per 50), and a
// tick for each symbol whose price or quote time changed. This module owns that loop: batching,
// change detection, the delay label, failure accounting, and never two polls at once (a poll
// still running when the timer fires makes the timer skip that turn).
//
// Delay: Yahoo says per quote whether the exchange delays it (Quote.delayed, from Yahoo's
// exchangeDataDelayedBy). The minutes themselves are read from the quote when the provider gives
// them (an optional `delayMinutes` on the quote); otherwise a delayed quote is labelled with the
// exchange's usual delay on Yahoo: 10 minutes for CME futures (what Yahoo's recorded quotes say
// for =F symbols, see market/fixtures/yahoo/quote.json), 15 for anything else. Not delayed is 0.
//
// Note for callers: the Yahoo provider caches quotes (quoteCacheMs, 15 s by default); give this
// feed a provider whose cache is shorter than the poll interval, or polls repeat the cached price.
import { SYMBOL_TABLE, type MarketSymbol } from '../../../shared/symbolTable.ts';
import type { FeedStats, FeedTick, TickFeed } from './types.ts';
import type { MarketDataProvider, MarketSource, Quote, QuoteResult } from '../types.ts';
import { intervalScheduler, listenerSet, SILENT_FEED_LOG, type FeedLog, type Scheduler } from './listeners.ts';

export interface QuotePollingFeedOptions {
  /** Quotes come from here: the Yahoo provider, or the market router (its sourceOf labels them). */
  provider: MarketDataProvider & { sourceOf?(productId: string): MarketSource };
  /** Time between polls (default 5 s). */
  intervalMs?: number;
  /** Most symbols in one quotes() call; more are split into calls of this size (default 500). */
  batch?: number;
  /** Stamps lastTickAt (default Date.now). */
  now?: () => number;
  schedule?: Scheduler;
  /** The metric label (default the provider's source). */
  name?: string;
  /** The universe (default the symbol table), for the delay label's asset classes. */
  symbols?: readonly MarketSymbol[];
  log?: FeedLog;
}

interface QuotePollingStats extends FeedStats {
  /** Polls that got no quote at all (the provider threw, or every symbol failed). */
  failures: number;
  /** Timer turns skipped because the previous poll was still running. */
  skipped: number;
}

export interface QuotePollingFeed extends TickFeed {
  stats(): QuotePollingStats;
  /** Polls now (or joins the poll in flight): for tests, and after a subscription change. */
  poll(): Promise<void>;
}

/** Yahoo's usual exchange delay for a delayed quote of this row (see the header). */
function usualDelayMinutes(row: MarketSymbol | undefined): number {
  return row?.assetClass === 'future' || row?.assetClass === 'micro-future' ? 10 : 15;
}

function delayOf(quote: Quote, row: MarketSymbol | undefined): number {
  if (typeof quote.delayMinutes === 'number' && Number.isInteger(quote.delayMinutes) && quote.delayMinutes >= 0) {
    return quote.delayMinutes;
  }
  return quote.delayed === true ? usualDelayMinutes(row) : 0;
}

export function createQuotePollingFeed(options: QuotePollingFeedOptions): QuotePollingFeed {
  const { provider } = options;
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 5000;
  const batch = Math.max(1, options.batch ?? 500);
  const log = options.log ?? SILENT_FEED_LOG;
  const rows = new Map((options.symbols ?? SYMBOL_TABLE).map((row) => [row.id, row]));
  const ticks = listenerSet<FeedTick>(log, 'quote tick');
  const gapListeners = listenerSet<readonly string[]>(log, 'quote gap');
  const stats: QuotePollingStats = {
    connected: false,
    reconnects: 0,
    gaps: 0,
    rejected: 0,
    lastTickAt: null,
    failures: 0,
    skipped: 0,
  };
  let carried: string[] = [];
  /** The last price and quote time emitted per symbol: a tick only when one of them changes. */
  const last = new Map<string, { price: number; time: number }>();
  let inFlight: Promise<void> | null = null;
  /** Polls have been failing: the next answer is a recovery, and what was missed is a gap. */
  let failing = false;
  let answeredOnce = false;
  let closed = false;

  async function pollOnce(): Promise<void> {
    const symbols = carried;
    if (symbols.length === 0) return;
    let answered = 0;
    let failed: boolean;
    const emitted: FeedTick[] = [];
    try {
      const calls: Array<Promise<Map<string, QuoteResult>>> = [];
      for (let index = 0; index < symbols.length; index += batch) {
        calls.push(provider.quotes(symbols.slice(index, index + batch)));
      }
      for (const results of await Promise.all(calls)) {
        for (const [symbol, result] of results) {
          if (!result.ok) {
            stats.rejected += 1;
            continue;
          }
          const { quote } = result;
          const time = quote.at.getTime();
          if (!(quote.spot > 0) || !Number.isFinite(quote.spot) || !Number.isFinite(time)) {
            stats.rejected += 1;
            continue;
          }
          answered += 1;
          const previous = last.get(symbol);
          if (previous && previous.price === quote.spot && previous.time === time) continue;
          last.set(symbol, { price: quote.spot, time });
          emitted.push({
            symbol,
            price: quote.spot,
            time,
            size: 0,
            source: provider.sourceOf?.(symbol) ?? provider.source,
            delayMinutes: delayOf(quote, rows.get(symbol)),
          });
        }
      }
      failed = answered === 0;
    } catch (error) {
      failed = true;
      log.warn({ err: error, feed: options.name ?? provider.source }, 'quote poll failed');
    }
    // A symbol dropped or the feed closed while the poll ran: its answer is no longer wanted.
    if (closed) return;
    if (failed) {
      stats.failures += 1;
      stats.connected = false;
      if (answeredOnce) failing = true;
      return;
    }
    stats.connected = true;
    if (failing) {
      failing = false;
      stats.reconnects += 1;
      stats.gaps += 1;
      gapListeners.emit([...carried]);
    }
    answeredOnce = true;
    const wanted = new Set(carried);
    for (const tick of emitted) {
      if (!wanted.has(tick.symbol)) continue;
      stats.lastTickAt = now();
      ticks.emit(tick);
    }
  }

  function poll(): Promise<void> {
    if (closed) return Promise.resolve();
    if (inFlight) return inFlight;
    inFlight = pollOnce().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  const cancel = (options.schedule ?? intervalScheduler)(() => {
    if (inFlight) {
      stats.skipped += 1;
      return;
    }
    void poll();
  }, intervalMs);

  return {
    name: options.name ?? provider.source,
    setSymbols(symbols) {
      const next = [...new Set(symbols)];
      const added = next.some((symbol) => !carried.includes(symbol));
      carried = next;
      const kept = new Set(next);
      for (const symbol of last.keys()) if (!kept.has(symbol)) last.delete(symbol);
      // A new symbol gets its first price now rather than at the next turn of the timer.
      if (added && !inFlight) void poll();
    },
    onTick: ticks.add,
    onGap: gapListeners.add,
    stats: () => ({ ...stats }),
    poll,
    async close() {
      closed = true;
      cancel();
      ticks.clear();
      gapListeners.clear();
      stats.connected = false;
      // Let a poll in flight settle, so nothing runs after close() resolves.
      await inFlight?.catch(() => undefined);
    },
  };
}
