// Every React Query key of the app, one factory per feature, so a key is written once and an
// invalidation cannot miss its query by a typo. Keys start with the feature's name; signing
// out removes every key but `me` (auth/useSignOut.ts).
import type { ChartTimeframe } from '../../shared/schemas/market.ts';
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
    card: (symbol: string, timeframe: string) => ['watos', symbol, timeframe] as const,
  },
  /** The track record (issue 20): every WATOS statement resolved and scored. */
  trackRecord: {
    all: ['track-record'] as const,
    /** GET /api/track-record for one set of filters (its query string, keys in a fixed order). */
    live: (query: string) => ['track-record', 'live', query] as const,
    /** GET /api/track-record/backtest for one symbol, signal (or all) and timeframe. */
    backtest: (symbol: string, signal: string | null, timeframe: string) =>
      ['track-record', 'backtest', symbol, signal, timeframe] as const,
    /** GET /api/track-record/mine: the trader's own rules' forecasts, scored (issue 36). */
    mine: ['track-record', 'mine'] as const,
    /** GET /api/track-record/rules: the rules traders published, scored apart (issue 36). */
    publishedRules: ['track-record', 'published-rules'] as const,
  },
  /** The scanner (issue 36): presets, the trader's saved scans. */
  scans: {
    presets: ['scans', 'presets'] as const,
    saved: ['scans', 'saved'] as const,
  },
  market: {
    all: ['market'] as const,
    /** The exchange price snapshot (GET /external-api/coinbase-prices). */
    prices: ['market', 'prices'] as const,
    /** One asset's bars of a timeframe with the overlays (comma-joined) and RSI period asked for. */
    candles: (productId: string, timeframe: ChartTimeframe, overlays: string, rsi: number | null) =>
      ['market', 'candles', productId, timeframe, overlays, rsi] as const,
    /** GET /api/market/watchlist: the watchlist table's figures for these symbols. */
    watchlist: (symbols: readonly string[]) => ['market', 'watchlist', symbols] as const,
  },
  alerts: {
    all: ['alerts'] as const,
    /** The alert log for one applied filter (its query string). */
    logs: ['alerts', 'log'] as const,
    log: (query: string) => ['alerts', 'log', query] as const,
    /** The latest alerts of the tracked symbols of the alerts watchlist. */
    watchlist: (symbols: readonly string[]) => ['alerts', 'watchlist', symbols] as const,
  },
  symbols: {
    /** GET /api/symbols/search: the watchlists' type-ahead for one typed text. */
    search: (q: string) => ['symbols', 'search', q] as const,
  },
  /** The trader's own alert rules (issue 16). */
  rules: {
    all: ['rules'] as const,
    /** GET /api/alert-rules: the rules' pages with the caps. */
    list: ['rules', 'list'] as const,
    /** GET /api/alert-rules?status=active: the chart's alert levels (under `list`, so one invalidation reaches both). */
    active: ['rules', 'list', 'active'] as const,
    /** GET /api/alert-rules/triggered: the firings' pages, newest first. */
    firings: ['rules', 'firings'] as const,
    /** GET /api/alert-rules/deliveries: the delivery log's pages, newest first. */
    deliveries: ['rules', 'deliveries'] as const,
    /** GET /api/alert-rules/webhook: the secret webhooks are signed with. */
    webhookSecret: ['rules', 'webhook-secret'] as const,
    /** The latest close of a symbol, to prefill a price level. */
    lastPrice: (symbol: string) => ['rules', 'last-price', symbol] as const,
  },
  embeds: ['embeds'] as const,
  /** GET /api/plans (the same for every visitor). */
  plans: ['plans'] as const,
  billing: {
    all: ['billing'] as const,
    /** The /success re-check of one checkout session. */
    confirmation: (sessionId: string | null) => ['billing', 'confirmation', sessionId] as const,
    /** The /success validation of the subscription the payment started. */
    validation: (subscriptionId: string | null) => ['billing', 'validation', subscriptionId] as const,
  },
  account: {
    all: ['account'] as const,
    /** Whether an e-mailed reset link is still valid. */
    resetToken: (token: string | null) => ['account', 'reset-token', token] as const,
  },
  files: {
    /** GET /files: the user's own and the public files. */
    list: ['files', 'list'] as const,
    /** GET /files/{id}/preview. */
    preview: (id: string) => ['files', 'preview', id] as const,
    /** GET /files/{id}/versions, while the file is at version `version`. */
    versions: (id: string, version: number) => ['files', 'versions', id, version] as const,
    /** GET /api/sheets/linked: the saved Google spreadsheet link. */
    linkedSheet: ['files', 'linked-sheet'] as const,
    /** POST /sheets/metadata: the sheet names of a linked spreadsheet. */
    sheetNames: (sheetUrl: string) => ['files', 'sheet-names', sheetUrl] as const,
  },
};
