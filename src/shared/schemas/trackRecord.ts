// The track record (issue 20): GET /api/track-record (the live record: every WATOS statement
// the product showed, resolved and scored) and GET /api/track-record/backtest (a walk-forward
// backtest over the stored history). Both answer the same shape, told apart by `kind`; demo
// and real records are never mixed in one answer (`source`).
import { z } from 'zod';
import { WATOS_SIGNALS } from '../constants.ts';
import { ASSET_CLASSES } from '../symbolTable.ts';
import { WATOS_TIMEFRAMES } from './chat.ts';

export const TRACK_RECORD_PERIODS = ['7d', '30d', '90d', 'all'] as const;
export type TrackRecordPeriod = (typeof TRACK_RECORD_PERIODS)[number];

export const FORECAST_SOURCES = ['demo', 'real'] as const;
const forecastSource = z.enum(FORECAST_SOURCES, { error: 'source must be demo or real' });
export type ForecastSourceName = z.infer<typeof forecastSource>;

const signalIds = WATOS_SIGNALS.map((signal) => signal.id) as [string, ...string[]];
const signalField = z.enum(signalIds, { error: `signal must be one of ${signalIds.join(', ')}` });
const symbolField = z
  .string()
  .regex(/^[A-Za-z0-9:._/!^=-]{1,30}$/, 'symbol may only contain letters, digits and : . _ / ! ^ = - (up to 30)');
const timeframeField = z.enum(WATOS_TIMEFRAMES, { error: `timeframe must be one of ${WATOS_TIMEFRAMES.join(', ')}` });

/** GET /api/track-record filters; source defaults to the source the server is serving. */
export const trackRecordQuery = z.object({
  signal: signalField.optional(),
  symbol: symbolField.optional(),
  assetClass: z.enum(ASSET_CLASSES, { error: `assetClass must be one of ${ASSET_CLASSES.join(', ')}` }).optional(),
  timeframe: timeframeField.optional(),
  period: z
    .enum(TRACK_RECORD_PERIODS, { error: `period must be one of ${TRACK_RECORD_PERIODS.join(', ')}` })
    .default('all'),
  source: forecastSource.optional(),
});
export type TrackRecordQuery = z.infer<typeof trackRecordQuery>;

/** GET /api/track-record/backtest: one symbol, all six signals or one, on a timeframe (1h by default). */
export const backtestQuery = z.object({
  symbol: symbolField,
  signal: signalField.optional(),
  timeframe: timeframeField.default('1h'),
});
export type BacktestQuery = z.infer<typeof backtestQuery>;

const reliabilityBin = z.object({
  /** The decile of stated probability [from, to). */
  from: z.number(),
  to: z.number(),
  count: z.number(),
  /** Mean stated probability of a higher close. */
  stated: z.number(),
  /** Share that closed higher. */
  realised: z.number(),
  /** 95% Wilson interval of `realised`. */
  interval: z.tuple([z.number(), z.number()]),
});

const signalScore = z.object({
  signal: z.string(),
  name: z.string(),
  count: z.number(),
  stated: z.number(),
  realised: z.number(),
  /** Share whose signal direction came true (bullish: closed higher; bearish: did not). */
  hitRate: z.number(),
  brierSkill: z.number().nullable(),
  /** Brier skill negative over at least `flagMinResolved` resolved forecasts. */
  flagged: z.boolean(),
});

const scores = {
  source: forecastSource,
  counts: z.object({ resolved: z.number(), pending: z.number(), unresolvable: z.number() }),
  brier: z.number().nullable(),
  baseBrier: z.number().nullable(),
  brierSkill: z.number().nullable(),
  reliability: z.array(reliabilityBin),
  signals: z.array(signalScore),
  flagMinResolved: z.number(),
};

export const trackRecordResponse = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('live'),
    filters: z.object({
      signal: z.string().nullable(),
      /** The canonical id (BTC-USD for BTC). */
      symbol: z.string().nullable(),
      assetClass: z.string().nullable(),
      timeframe: z.string().nullable(),
      period: z.enum(TRACK_RECORD_PERIODS),
    }),
    ...scores,
  }),
  z.object({
    kind: z.literal('backtest'),
    filters: z.object({ symbol: z.string(), signal: z.string().nullable(), timeframe: z.string() }),
    horizonBars: z.number(),
    /** Bars walked, and the open times of the first and last (ISO, UTC). */
    bars: z.number(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    ...scores,
  }),
]);
export type TrackRecordResponse = z.infer<typeof trackRecordResponse>;
export type LiveTrackRecord = Extract<TrackRecordResponse, { kind: 'live' }>;
export type BacktestTrackRecord = Extract<TrackRecordResponse, { kind: 'backtest' }>;

/** POST /api/test/forecasts/resolve (TEST_HOOKS only): resolve as if it were `now` (ISO; default the clock). */
export const testResolveForecastsBody = z.object({ now: z.iso.datetime({ offset: true }).optional() }).default({});
export const testResolveForecastsResponse = z.object({
  storedBars: z.number(),
  resolved: z.number(),
  unresolvable: z.number(),
  waiting: z.number(),
});

/**
 * GET /api/track-record/mine (issue 36): the trader's own rules scored like the product's live
 * record (one "signal" a rule, `rule:<id>`, once it has a resolved forecast), and every rule of
 * the record with its published flag and counts, pending ones included (so they can be published).
 */
export const myTrackRecordResponse = z.object({
  ...trackRecordResponse.options[0].shape,
  /** Every rule with a forecast in the record, scored or still pending: its name (while the rule exists), flag and counts. */
  rules: z.array(
    z.object({
      ruleId: z.number(),
      name: z.string(),
      published: z.boolean(),
      pending: z.number(),
      resolved: z.number(),
    }),
  ),
});
export type MyTrackRecord = z.infer<typeof myTrackRecordResponse>;

/** POST /api/track-record/mine/publish (issue 36): show (or withdraw) one of my rules' records among the traders' published rules. */
export const publishRuleRecordBody = z.object({
  ruleId: z
    .number({ error: 'ruleId must be a number' })
    .int('ruleId must be a whole number')
    .min(1, 'ruleId must be at least 1')
    .max(2_147_483_647, 'ruleId is too large'),
  published: z.boolean({ error: 'published must be true or false' }),
});
export const publishRuleRecordResponse = z.object({
  ruleId: z.number(),
  published: z.boolean(),
  /** The rule's forecasts now published (or withdrawn). */
  forecasts: z.number(),
});
