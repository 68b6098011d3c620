// The watchlists' text and limit without zod: the chart watchlist on the dashboard's first paint
// uses them, while the schemas that check the answers (watchlists.ts, which re-exports these) load
// with the first answer.

export const WATCHLIST_FORMAT_ALERT = 'Please use format EXCHANGE:SYMBOL (e.g., NASDAQ:AAPL)';
export const WATCHLIST_MAX_SYMBOLS = 50;
