// The own chart's options and the watchlist quotes' limit, without zod: the dashboard's first
// paint (the candle chart's buttons, the watchlist table) uses them, while the schemas that check
// the market answers (market.ts, which re-exports these) load with the first answer.

/** Candle sizes the store keeps, in seconds: one minute and one hour. */
export type CandleGranularity = 60 | 3600;

/** The own chart's timeframes, each a UTC-aligned bucket of stored 1m (up to 15m) or 1h bars. */
export const CHART_TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1D'] as const;
export type ChartTimeframe = (typeof CHART_TIMEFRAMES)[number];
/** Each timeframe's bar length in seconds and the stored bar size it is built from. */
export const CHART_TIMEFRAME_SPECS: Record<ChartTimeframe, { seconds: number; from: CandleGranularity }> = {
  '1m': { seconds: 60, from: 60 },
  '5m': { seconds: 300, from: 60 },
  '15m': { seconds: 900, from: 60 },
  '1h': { seconds: 3600, from: 3600 },
  '4h': { seconds: 14_400, from: 3600 },
  '1D': { seconds: 86_400, from: 3600 },
};

/** Price overlays the chart can draw, computed on the server: SMA 20/50, EMA 20, Bollinger 20,2. */
export const CHART_OVERLAYS = ['sma20', 'sma50', 'ema20', 'bb20'] as const;
export type ChartOverlay = (typeof CHART_OVERLAYS)[number];
export const CHART_OVERLAY_LABELS: Record<ChartOverlay, string> = {
  sma20: 'SMA 20',
  sma50: 'SMA 50',
  ema20: 'EMA 20',
  bb20: 'BB 20,2',
};

/** Symbols GET /api/market/watchlist answers at most in one call. */
export const WATCHLIST_QUOTES_MAX = 50;
