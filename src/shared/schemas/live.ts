// The one live connection of a dashboard tab (issue 34): GET /api/live, server-sent events that
// carry the ticks of the symbols on screen, the market's alerts and the user's rule firings;
// PUT /api/live/subscriptions changes which symbols it carries without reconnecting.
//
// Events on the stream (each `data:` is JSON):
//   hello  {connection, symbols}          first event: the id to address subscription changes to
//   ticks  LiveTick[]                     the newest tick of each subscribed symbol that moved
//                                          since the last frame (latest value wins: a slow
//                                          browser gets the newest price, never a queue)
//   alert  LiveAlert (alerts.ts)          a market alert; `id:` carries the stream position
//   rule   RuleFiring (alertRules.ts)     one of this user's rule firings; `id:` likewise
//   end    {reason}                       the server ends the stream (same reasons as before)
// The stream position `id:` is `<last alert id>-<last firing id>`, so a reconnecting browser's
// Last-Event-ID replays what it missed of both. Ticks carry no id (nothing to replay: the next
// tick supersedes them).
import { z } from 'zod';
import { marketSource } from './market.ts';

/**
 * Symbols one live connection may carry at once.
 * @public read through the live connection's on-demand import of this module (web/live).
 */
export const LIVE_SYMBOLS_MAX = 50;

/** A symbol's forming one-minute bar as the ticks built it: [open time ms, o, h, l, c, volume]. */
const formingBar = z.tuple([z.number(), z.number(), z.number(), z.number(), z.number(), z.number()]);

/**
 * The newest price of a symbol, from its streaming feed (or the demo feed).
 * @public read through the live connection's on-demand import of this module (web/live).
 */
export const liveTick = z.object({
  /** Canonical id: BTC-USD, AAPL, MES1!. */
  symbol: z.string(),
  price: z.number(),
  /** When the provider stamped the price, epoch ms (UTC). */
  time: z.number(),
  source: marketSource,
  /** Minutes the exchange delays this symbol's prices by (0: real time). */
  delayMinutes: z.number().int().min(0),
  /** The forming one-minute bar including this tick (null when the feed does not give one). */
  bar: formingBar.nullable(),
});
export type LiveTick = z.infer<typeof liveTick>;

/** @public read through the live connection's on-demand import of this module (web/live). */
export const liveHello = z.object({
  connection: z.string(),
  symbols: z.array(z.string()),
});
export type LiveHello = z.infer<typeof liveHello>;

const symbolList = z
  .array(z.string().trim().min(1).max(20, 'symbol is too long'))
  .max(LIVE_SYMBOLS_MAX, `At most ${LIVE_SYMBOLS_MAX} live symbols a connection`);

/** GET /api/live query: the symbols to start with (comma-separated canonical ids or tickers). */
export const liveStreamQuery = z.object({
  symbols: z
    .string()
    .max(2000, 'symbols is too long')
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .pipe(symbolList),
});

/** PUT /api/live/subscriptions body: the full set of symbols the connection should carry now. */
export const liveSubscriptionsBody = z.object({
  connection: z.string().min(1).max(100),
  symbols: symbolList,
});

export const liveSubscriptionsResponse = z.object({
  /** Canonical ids now carried, in the order asked. */
  symbols: z.array(z.string()),
});

/** What a row, a chart or a card says about its price (issue 34, item 3). */
export type LiveState =
  { kind: 'live' } | { kind: 'delayed'; minutes: number } | { kind: 'demo' } | { kind: 'stale'; since: number };

/** A symbol whose market is open and whose feed has been silent this long is Stale. */
export const STALE_AFTER_MS = 30_000;
