// The interface every streaming feed implements (issue 34): a source of ticks for the symbols
// it is asked to carry, with its own health figures. The live path (src/server/live) runs the
// feeds of the symbols this instance owns.
import type { MarketSource } from '../../../shared/schemas/market.ts';

/** A price as a feed reports it, before the owner adds the forming bar. */
export interface FeedTick {
  /** Canonical id: BTC-USD, AAPL, MES1!. */
  symbol: string;
  price: number;
  /** The provider's time stamp, epoch ms. */
  time: number;
  /** Size traded at this price, when the provider says (0 when unknown). */
  size: number;
  source: MarketSource;
  /** Minutes the exchange delays it by (0: real time). */
  delayMinutes: number;
}

export interface FeedStats {
  /** Whether the upstream connection is open (polling feeds: the last poll answered). */
  connected: boolean;
  /** Upstream (re)connections after the first. */
  reconnects: number;
  /** Sequence gaps and silences that needed a refill from REST. */
  gaps: number;
  /** Messages that could not be read (malformed, unknown product, out of order). */
  rejected: number;
  /** When the last tick arrived here, epoch ms, or null. */
  lastTickAt: number | null;
}

/** One streaming source of ticks. */
export interface TickFeed {
  /** 'coinbase' | 'yahoo' | 'demo' | 'alpaca': the metric label. */
  readonly name: string;
  /** The symbols to carry from now on (subscribes and unsubscribes upstream as needed). */
  setSymbols(symbols: readonly string[]): void;
  /** Each tick as it arrives. */
  onTick(listener: (tick: FeedTick) => void): () => void;
  /**
   * Ticks of these symbols may have been missed (a reconnect, a sequence gap, silence past the
   * heartbeat): their minute bars must be filled from REST (the alert engine does that).
   */
  onGap(listener: (symbols: readonly string[]) => void): () => void;
  stats(): FeedStats;
  close(): Promise<void>;
}
