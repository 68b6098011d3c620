// Every React Query key of the app, one factory per feature, so a key is written once and an
// invalidation cannot miss its query by a typo. Keys start with the feature's name; signing
// out removes every key but `me` (auth/useSignOut.ts).
import type { WatchlistKind } from '../../shared/schemas/watchlists.ts';

export const queryKeys = {
  me: ['me'] as const,
  watchlists: {
    all: ['watchlist'] as const,
    one: (kind: WatchlistKind) => ['watchlist', kind] as const,
  },
  conversations: {
    all: ['conversations'] as const,
  },
  prompts: {
    all: ['prompts'] as const,
  },
  watos: {
    card: (symbol: string) => ['watos', symbol] as const,
  },
};
