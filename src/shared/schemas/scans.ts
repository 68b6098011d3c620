// The scanner and the setup study (issue 36): the conditions a scan filters the whole universe
// with, a scan's request and answer, saved scans, the presets, and the setup study's request
// and answer. Shared by the server (validation, the scan engine) and the browser (the scanner
// panel's form), so both give the same errors, each naming its field.
//
// Scan conditions are states at the newest closed bar of the scan's timeframe ("RSI(14) is below
// 30", "the close is above its EMA 50", "EMA 20 crossed above EMA 50 within the last 3 bars"),
// where an alert rule's condition is an event (the moment it becomes true). `toRuleCondition`
// (server) turns the conditions that have a rule counterpart into an alert rule's.
import { z } from 'zod';
import { ALERT_TYPES } from '../constants.ts';
import { RULE_TIMEFRAMES } from './alertRules.ts';
import { marketSource } from './market.ts';
import { ASSET_CLASSES } from '../symbolTable.ts';

export const SCAN_CONDITIONS_MAX = 8;
const SCAN_ROWS_MAX = 500;
export const SAVED_SCANS_MAX = 50;

const finite = (name: string) =>
  z.number({ error: `${name} must be a number` }).refine(Number.isFinite, `${name} must be a finite number`);
const positive = (name: string) => finite(name).refine((value) => value > 0, `${name} must be above 0`);
const wholeNumber = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);
const side = z.enum(['above', 'below'], { error: "side must be 'above' or 'below'" });

/** The close's change over the last `bars` bars: at least +percent (above) or at most -percent (below). */
const changeScanCondition = z.object({
  kind: z.literal('change'),
  side,
  percent: positive('percent').refine((value) => value <= 1000, 'percent must be at most 1000'),
  bars: wholeNumber('bars', 1, 500),
});
const rsiScanCondition = z.object({
  kind: z.literal('rsi'),
  side,
  level: finite('level').refine((value) => value > 0 && value < 100, 'level must be between 0 and 100'),
  period: wholeNumber('period', 2, 100).default(14),
});
/** EMA(fast) crossed EMA(slow) in `side`'s direction within the last `withinBars` bars. */
const emaCrossScanCondition = z
  .object({
    kind: z.literal('ema_cross'),
    side,
    fast: wholeNumber('fast', 2, 500),
    slow: wholeNumber('slow', 2, 500),
    withinBars: wholeNumber('withinBars', 1, 50).default(1),
  })
  .refine((value) => value.fast !== value.slow, { message: 'fast and slow must differ', path: ['slow'] });
/** The close is above (below) its EMA(period). */
const priceVsEmaScanCondition = z.object({
  kind: z.literal('price_vs_ema'),
  side,
  period: wholeNumber('period', 2, 500),
});
/** The close is above the upper band (above) or below the lower band (below). */
const bollingerScanCondition = z.object({
  kind: z.literal('bollinger'),
  side,
  period: wholeNumber('period', 2, 200).default(20),
  deviations: finite('deviations')
    .refine((value) => value >= 0.5 && value <= 5, 'deviations must be between 0.5 and 5')
    .default(2),
});
/** The last bar's volume z-score is at least `threshold`. */
const volumeZScanCondition = z.object({
  kind: z.literal('volume_z'),
  threshold: finite('threshold').refine((value) => value >= 0.5 && value <= 20, 'threshold must be between 0.5 and 20'),
  period: wholeNumber('period', 5, 500).default(20),
});
/** A built-in alert (of this type, or any) within the last `withinBars` bars. */
const builtinScanCondition = z.object({
  kind: z.literal('builtin'),
  alertType: z.enum(ALERT_TYPES, { error: `alertType must be one of ${ALERT_TYPES.join(', ')}` }).optional(),
  withinBars: wholeNumber('withinBars', 1, 500).default(10),
});
/** An active WATOS signal whose odds of a rise (fall) have a measurable edge over the base rate. */
const watosEdgeScanCondition = z.object({
  kind: z.literal('watos_edge'),
  outcome: z.enum(['rise', 'fall'], { error: "outcome must be 'rise' or 'fall'" }).default('rise'),
});
const assetClassScanCondition = z.object({
  kind: z.literal('asset_class'),
  classes: z
    .array(z.enum(ASSET_CLASSES, { error: `classes must be among ${ASSET_CLASSES.join(', ')}` }))
    .min(1, 'classes must name at least one asset class'),
});
const priceRangeScanCondition = z
  .object({
    kind: z.literal('price_range'),
    min: positive('min').optional(),
    max: positive('max').optional(),
  })
  .refine((value) => value.min !== undefined || value.max !== undefined, {
    message: 'give min, max or both',
    path: ['min'],
  })
  .refine((value) => value.min === undefined || value.max === undefined || value.min < value.max, {
    message: 'min must be below max',
    path: ['max'],
  });
/** The change since the session's open (stocks: the regular session; crypto: the UTC day). */
const sessionChangeScanCondition = z.object({
  kind: z.literal('session_change'),
  side,
  percent: finite('percent').refine((value) => value >= 0 && value <= 1000, 'percent must be between 0 and 1000'),
});

export const SCAN_CONDITION_KINDS = [
  'change',
  'rsi',
  'ema_cross',
  'price_vs_ema',
  'bollinger',
  'volume_z',
  'builtin',
  'watos_edge',
  'asset_class',
  'price_range',
  'session_change',
] as const;
export type ScanConditionKind = (typeof SCAN_CONDITION_KINDS)[number];
export const SCAN_CONDITION_LABELS: Record<ScanConditionKind, string> = {
  change: '% change over N bars',
  rsi: 'RSI above / below',
  ema_cross: 'EMA crossover within N bars',
  price_vs_ema: 'Price above / below an EMA',
  bollinger: 'Close outside Bollinger band',
  volume_z: 'Volume surge (z-score)',
  builtin: 'Built-in alert in the last N bars',
  watos_edge: 'WATOS odds with a measurable edge',
  asset_class: 'Asset class',
  price_range: 'Price range',
  session_change: 'Change since the session open',
};

export const scanCondition = z.discriminatedUnion(
  'kind',
  [
    changeScanCondition,
    rsiScanCondition,
    emaCrossScanCondition,
    priceVsEmaScanCondition,
    bollingerScanCondition,
    volumeZScanCondition,
    builtinScanCondition,
    watosEdgeScanCondition,
    assetClassScanCondition,
    priceRangeScanCondition,
    sessionChangeScanCondition,
  ],
  { error: `condition kind must be one of ${SCAN_CONDITION_KINDS.join(', ')}` },
);
export type ScanCondition = z.infer<typeof scanCondition>;

const scanConditions = z
  .array(scanCondition)
  .min(1, 'add at least one condition')
  .max(SCAN_CONDITIONS_MAX, `at most ${SCAN_CONDITIONS_MAX} conditions a scan`);

/** POST /api/scans/run: every condition must hold (AND), on the chosen timeframe's closed bars. */
export const scanRequest = z.object({
  timeframe: z.enum(RULE_TIMEFRAMES, { error: `timeframe must be one of ${RULE_TIMEFRAMES.join(', ')}` }),
  conditions: scanConditions,
  limit: wholeNumber('limit', 1, SCAN_ROWS_MAX).default(100),
});
export type ScanRequest = z.infer<typeof scanRequest>;

/** One symbol that passed: the watchlist table's columns and each condition's value, in order. */
const scanRow = z.object({
  /** Canonical id: BTC-USD, AAPL, MES1!. */
  id: z.string(),
  ticker: z.string(),
  name: z.string(),
  assetClass: z.string(),
  /** Close of the newest closed bar of the timeframe. */
  last: z.number(),
  /** Open time of that bar, ISO 8601 UTC. */
  barTime: z.string(),
  /** Change since the session's open, and in percent (null when the session's open is not stored). */
  change: z.number().nullable(),
  changePercent: z.number().nullable(),
  /** Per condition, the figure it tested (the RSI, the % change, the z-score...); null where there is none. */
  values: z.array(z.number().nullable()),
  source: z.string(),
});
export type ScanRow = z.infer<typeof scanRow>;

export const scanResponse = z.object({
  timeframe: z.enum(RULE_TIMEFRAMES),
  /** Symbols evaluated, and those skipped for too few stored bars. */
  evaluated: z.number(),
  skipped: z.number(),
  matched: z.number(),
  /** The strongest first (by the first condition's value), at most `limit`. */
  rows: z.array(scanRow),
  /** When the newest bar used closed, ISO 8601 UTC. */
  asOf: z.string().nullable(),
});
export type ScanResponse = z.infer<typeof scanResponse>;

/** POST /api/scans (save), PUT /api/scans/:id. */
export const savedScanBody = z.object({
  name: z.string().trim().min(1, 'name is required').max(60, 'name must be at most 60 characters'),
  timeframe: scanRequest.shape.timeframe,
  conditions: scanConditions,
});
export type SavedScanBody = z.infer<typeof savedScanBody>;

export const savedScan = savedScanBody.extend({
  id: z.number(),
  createdAt: z.string(),
  /** The id of the alert rule "alert me when a symbol enters this scan", when there is one. */
  alertRuleId: z.number().nullable(),
});
export type SavedScan = z.infer<typeof savedScan>;

export const savedScanList = z.object({ scans: z.array(savedScan) });

/** A preset scan: a name, what it looks for, and its request. */
export interface ScanPreset {
  id: string;
  name: string;
  description: string;
  timeframe: ScanRequest['timeframe'];
  conditions: ScanCondition[];
}

// ---------------------------------------------------------------------------------------------
// The setup study (issue 36, item 2): every time a condition became true on the stored history
// of the chosen symbols, what the price did over the next `horizon` bars.

export const STUDY_SYMBOLS_MAX = 50;

export const studyRequest = z.object({
  /** Canonical ids or any form the symbol table resolves. */
  symbols: z
    .array(z.string().trim().min(1).max(64, 'symbol is too long'))
    .min(1, 'symbols must name at least one symbol')
    .max(STUDY_SYMBOLS_MAX, `at most ${STUDY_SYMBOLS_MAX} symbols a study`),
  timeframe: scanRequest.shape.timeframe,
  /** The setup: the moments all of these became true together (a scan's conditions). */
  conditions: scanConditions,
  /** Bars after the signal bar at which the outcome is read. */
  horizon: wholeNumber('horizon', 1, 500).default(24),
  /** Round-trip fee per trade in percent of the entry, for the equity curve. */
  feePercent: finite('feePercent')
    .refine((value) => value >= 0 && value <= 5, 'feePercent must be between 0 and 5')
    .default(0.1),
});
export type StudyRequest = z.infer<typeof studyRequest>;

const share = z.number().min(0).max(1);

export const studyResponse = z.object({
  symbols: z.array(z.string()),
  timeframe: scanRequest.shape.timeframe,
  horizon: z.number(),
  /** The stored history the study read, ISO 8601 UTC (null when there was none). */
  from: z.string().nullable(),
  to: z.string().nullable(),
  /** Times the setup became true with `horizon` bars after it stored. */
  signals: z.number(),
  /** Signals counted once per overlapping run (signals closer than the horizon share outcomes). */
  effectiveSamples: z.number(),
  /** The product's estimator: the shrunk share of signals followed by a higher close, and its 95% interval. */
  rose: z.object({ share, low: share, high: share }),
  /** The share of all bars followed by a higher close `horizon` bars later, same symbols and window. */
  baseRate: share,
  /** False when the interval holds the base rate: "no measurable edge". */
  edge: z.boolean(),
  /** The sentence a trader reads, e.g. "When AAPL ... 54% of the time (n=41, 95% 39-68%); base rate 52%: no measurable edge". */
  verdict: z.string(),
  outcomes: z.object({
    hitRate: share.nullable(),
    averageMovePercent: z.number().nullable(),
    medianMovePercent: z.number().nullable(),
    /** Mean of each trade's worst (adverse) and best (favourable) excursion within the horizon, in percent. */
    adverseExcursionPercent: z.number().nullable(),
    favourableExcursionPercent: z.number().nullable(),
  }),
  /** "Enter on the signal's close, exit `horizon` bars later", fee included: equity from 1. */
  equity: z.array(z.object({ time: z.string(), equity: z.number() })),
  trades: z.number(),
  /** Per symbol: its signals, and who produced its bars (null: no bars); 'demo' is the simulated demo feed. */
  perSymbol: z.array(z.object({ symbol: z.string(), signals: z.number(), source: marketSource.nullable() })),
});
export type StudyResponse = z.infer<typeof studyResponse>;
