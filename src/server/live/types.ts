// The live path's parts as they hand each other ticks (issue 34): a streaming feed (Coinbase's
// WebSocket, Yahoo's quotes polled every few seconds, the demo feed's deterministic ticks; their
// interface belongs to the market feature) gives ticks for the symbols it is asked to carry; the
// instance that owns a symbol's shard runs its feed, evaluates price rules on each tick and
// publishes coalesced ticks on the bus; every instance forwards them to the browsers that watch
// the symbol (live/hub.ts).
import type { LiveTick } from '../../shared/schemas/live.ts';

export type { LiveTick };
export type { FeedStats, FeedTick, TickFeed } from '../market/service.ts';
