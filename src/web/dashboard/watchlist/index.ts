// The watchlist feature's public surface: what other dashboard features may import (eslint.config.js).
export { useSavedWatchlist } from './useSavedWatchlist.ts';
export { useWatchlistView } from './watchlistQuotes.ts';
export { WatchlistTable, WatchlistViewToggle } from './WatchlistTable.tsx';
