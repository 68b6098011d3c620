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
  files: {
    /** GET /files: the user's own and the public files. */
    list: ['files', 'list'] as const,
    /** GET /files/{id}/preview. */
    preview: (id: string) => ['files', 'preview', id] as const,
    /** GET /api/sheets/linked: the saved Google spreadsheet link. */
    linkedSheet: ['files', 'linked-sheet'] as const,
    /** POST /sheets/metadata: the sheet names of a linked spreadsheet. */
    sheetNames: (sheetUrl: string) => ['files', 'sheet-names', sheetUrl] as const,
  },
};
