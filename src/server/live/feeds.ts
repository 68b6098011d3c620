// The upstream feeds of this instance's live path and which one carries a symbol (issue 34).
// A symbol ticks from the same source its stored bars come from (the alert engine's pinned
// router), so the chart's forming candle and the stored bars never mix real and demo prices:
//   coinbase  Coinbase Exchange's WebSocket, one connection for every carried crypto symbol;
//   yahoo     Yahoo Finance's quotes, polled in one batch every LIVE_QUOTE_POLL_MS, labelled with
//             the exchange's delay; with Alpaca keys, US stocks and ETFs from Alpaca's trade
//             stream instead (real time, no poll);
//   demo      the demo feed's deterministic ticks, whose minutes equal the demo bars.
// Feeds open their upstream connection only while they carry a symbol.
import { symbolById } from '../../shared/tickers.ts';
import type { MarketSource } from '../../shared/schemas/market.ts';
import {
  createAlpacaTickFeed,
  createCoinbaseTickFeed,
  createDemoTickFeed,
  createQuotePollingFeed,
  createYahooProvider,
  type TickFeed,
} from '../market/service.ts';

export interface LiveFeedsOptions {
  config: {
    COINBASE_WS_URL: string;
    YAHOO_API_URL?: string;
    ALPACA_KEY_ID?: string;
    ALPACA_SECRET_KEY?: string;
    ALPACA_WS_URL: string;
    LIVE_QUOTE_POLL_MS: number;
  };
  /** Where a symbol's stored bars come from (the engine's pinned router). */
  sourceOf(symbol: string): MarketSource;
  log: { info(details: object, message: string): void; warn(details: object, message: string): void };
  /** Tests: the Coinbase feed's silence limit and backoff (the feed's own defaults otherwise). */
  coinbaseTimings?: { heartbeatTimeoutMs?: number; backoffBaseMs?: number; backoffCapMs?: number };
}

export interface LiveFeeds {
  feeds: readonly TickFeed[];
  feedFor(symbol: string): TickFeed;
  close(): Promise<void>;
}

export function createLiveFeeds(options: LiveFeedsOptions): LiveFeeds {
  const { config } = options;
  const log = {
    info: (details: object, message: string) => options.log.info(details, message),
    warn: (details: object, message: string) => options.log.warn(details, message),
  };
  const demo = createDemoTickFeed({ log });
  const coinbase = createCoinbaseTickFeed({ url: config.COINBASE_WS_URL, log, ...options.coinbaseTimings });
  // A provider of its own without the quote cache: a poll must see Yahoo's newest price.
  const yahoo = createQuotePollingFeed({
    provider: createYahooProvider({ apiBase: config.YAHOO_API_URL, quoteCacheMs: 0 }),
    intervalMs: config.LIVE_QUOTE_POLL_MS,
    name: 'yahoo',
    log,
  });
  const alpaca =
    config.ALPACA_KEY_ID && config.ALPACA_SECRET_KEY
      ? createAlpacaTickFeed({
          key: config.ALPACA_KEY_ID,
          secret: config.ALPACA_SECRET_KEY,
          url: config.ALPACA_WS_URL,
          log,
        })
      : null;
  const feeds = [demo, coinbase, yahoo, ...(alpaca ? [alpaca] : [])];

  function feedFor(symbol: string): TickFeed {
    switch (options.sourceOf(symbol)) {
      case 'coinbase':
        return coinbase;
      case 'yahoo':
      case 'alpaca': {
        const assetClass = symbolById(symbol)?.assetClass;
        return alpaca && (assetClass === 'stock' || assetClass === 'etf') ? alpaca : yahoo;
      }
      case 'demo':
        return demo;
    }
  }

  return {
    feeds,
    feedFor,
    async close() {
      await Promise.all(feeds.map((feed) => feed.close()));
    },
  };
}
