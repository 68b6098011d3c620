// Alert rules (issue 16): a trader's own conditions on any symbol of the symbol table, the
// firings they produce and the deliveries of each firing to the channels the rule names.
// Shared by the server (validation, storage, evaluation) and the browser (the rules panel's
// form, the Triggered list and the delivery log), so both give the same errors.
import { z } from 'zod';
import { ALERT_TYPES, type AlertType } from '../constants.ts';
import { resolveSymbol, unknownSymbolMessage } from '../symbols.ts';
import {
  RULE_MESSAGE_MAX,
  RULE_NAME_MAX,
  RULE_PAGE_DEFAULT,
  RULE_PAGE_MAX,
  WEBHOOK_URL_MAX,
} from './alertRuleLimits.ts';
import { int32PathId } from './pathIds.ts';
import { refuseUnsafeCharacters } from './userText.ts';

export const RULE_TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1D'] as const;
export type RuleTimeframe = (typeof RULE_TIMEFRAMES)[number];
export const RULE_TIMEFRAME_MS: Record<RuleTimeframe, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1D': 86_400_000,
};

/**
 * TradingView's triggers (issue 34). once: the first time the condition is met, then the rule
 * is done; once_per_bar: at most once per bar of its timeframe, on the first price that meets
 * it (a price condition is checked on every tick, an indicator condition on each closed
 * one-minute bar); once_per_bar_close: checked only on closed one-minute bars, at most once per
 * bar of its timeframe; every_time: each time the condition becomes true, at most once a minute.
 */
export const RULE_TRIGGERS = ['once', 'once_per_bar', 'once_per_bar_close', 'every_time'] as const;
export type RuleTrigger = (typeof RULE_TRIGGERS)[number];
export const RULE_TRIGGER_LABELS: Record<RuleTrigger, string> = {
  once: 'Only once',
  once_per_bar: 'Once per bar',
  once_per_bar_close: 'Once per bar close',
  every_time: 'Every time',
};

export const RULE_CHANNELS = ['in_app', 'email', 'push', 'webhook'] as const;
export type RuleChannel = (typeof RULE_CHANNELS)[number];
export const RULE_CHANNEL_LABELS: Record<RuleChannel, string> = {
  in_app: 'In app',
  email: 'E-mail',
  push: 'Push',
  webhook: 'Webhook',
};

/** active: evaluated; paused: kept but not evaluated; triggered: a "once" rule that fired; expired: past its expiry. */
export const RULE_STATUSES = ['active', 'paused', 'triggered', 'expired'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export * from './alertRuleLimits.ts';

/** The placeholders a rule's message may use. */
export const RULE_TEMPLATE_FIELDS = [
  'ticker',
  'symbol',
  'close',
  'price',
  'time',
  'rule',
  'timeframe',
  'name',
] as const;
export type RuleTemplateField = (typeof RULE_TEMPLATE_FIELDS)[number];

/** The header a webhook's signature travels in: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Watos-Signature';
/** The header naming the delivery (the same on every retry): receivers drop repeats by it. */
export const WEBHOOK_DELIVERY_HEADER = 'X-Watos-Delivery';

const finite = (name: string) =>
  z.number({ error: `${name} must be a number` }).refine(Number.isFinite, `${name} must be a finite number`);
const price = (name: string) => finite(name).refine((value) => value > 0, `${name} must be above 0`);
const wholeNumber = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);
const direction = z.enum(['above', 'below'], { error: "direction must be 'above' or 'below'" });

export const priceCrossCondition = z.object({
  kind: z.literal('price_cross'),
  /** above: the close crosses up through the level; below: down through it. */
  direction,
  level: price('level'),
});
export const channelCondition = z
  .object({
    kind: z.literal('channel'),
    direction: z.enum(['enters', 'exits'], { error: "direction must be 'enters' or 'exits'" }),
    lower: price('lower'),
    upper: price('upper'),
  })
  .refine((value) => value.lower < value.upper, { message: 'lower must be below upper', path: ['upper'] });
export const percentMoveCondition = z.object({
  kind: z.literal('percent_move'),
  /** Signed: +3 is a rise of 3% or more, -3 a fall of 3% or more, over the window. */
  percent: finite('percent').refine(
    (value) => value !== 0 && Math.abs(value) <= 1000,
    'percent must be between -1000 and 1000, not 0',
  ),
  windowMinutes: wholeNumber('windowMinutes', 1, 1440),
});
export const rsiCondition = z.object({
  kind: z.literal('rsi'),
  direction,
  level: finite('level').refine((value) => value > 0 && value < 100, 'level must be between 0 and 100'),
  period: wholeNumber('period', 2, 100).default(14),
});
export const emaCrossCondition = z
  .object({
    kind: z.literal('ema_cross'),
    /** above: EMA(fast) crosses above EMA(slow); below: crosses below it. */
    direction,
    fast: wholeNumber('fast', 2, 500),
    slow: wholeNumber('slow', 2, 500),
  })
  .refine((value) => value.fast !== value.slow, { message: 'fast and slow must differ', path: ['slow'] });
export const bollingerCondition = z.object({
  kind: z.literal('bollinger'),
  /** above: the close moves above the upper band; below: below the lower band. */
  direction,
  period: wholeNumber('period', 2, 200).default(20),
  deviations: finite('deviations')
    .refine((value) => value >= 0.5 && value <= 5, 'deviations must be between 0.5 and 5')
    .default(2),
});
export const volumeZCondition = z.object({
  kind: z.literal('volume_z'),
  threshold: finite('threshold').refine((value) => value >= 0.5 && value <= 20, 'threshold must be between 0.5 and 20'),
  period: wholeNumber('period', 5, 500).default(20),
});
export const builtinCondition = z.object({
  kind: z.literal('builtin'),
  alertType: z.enum(ALERT_TYPES, { error: `alertType must be one of ${ALERT_TYPES.join(', ')}` }),
});
export const watosOddsCondition = z.object({
  kind: z.literal('watos_odds'),
  /** Fires when an active WATOS signal's measured odds of a rise (fall) reach this percentage. */
  outcome: z.enum(['rise', 'fall'], { error: "outcome must be 'rise' or 'fall'" }).default('rise'),
  threshold: finite('threshold').refine((value) => value >= 50 && value <= 99, 'threshold must be between 50 and 99'),
});

export const RULE_CONDITION_KINDS = [
  'price_cross',
  'channel',
  'percent_move',
  'rsi',
  'ema_cross',
  'bollinger',
  'volume_z',
  'builtin',
  'watos_odds',
] as const;
export type RuleConditionKind = (typeof RULE_CONDITION_KINDS)[number];
export const RULE_CONDITION_LABELS: Record<RuleConditionKind, string> = {
  price_cross: 'Price crosses a level',
  channel: 'Price enters / exits a channel',
  percent_move: 'Percentage move',
  rsi: 'RSI above / below',
  ema_cross: 'EMA crossover',
  bollinger: 'Close outside Bollinger band',
  volume_z: 'Volume surge (z-score)',
  builtin: 'Built-in alert',
  watos_odds: 'WATOS odds',
};

export const ruleCondition = z.discriminatedUnion(
  'kind',
  [
    priceCrossCondition,
    channelCondition,
    percentMoveCondition,
    rsiCondition,
    emaCrossCondition,
    bollingerCondition,
    volumeZCondition,
    builtinCondition,
    watosOddsCondition,
  ],
  { error: `condition kind must be one of ${RULE_CONDITION_KINDS.join(', ')}` },
);
export type RuleCondition = z.infer<typeof ruleCondition>;

/** The conditions on the price itself: evaluated on every tick unless the trigger is once_per_bar_close. */
export const PRICE_CONDITION_KINDS = ['price_cross', 'channel', 'percent_move'] as const;
export type PriceConditionKind = (typeof PRICE_CONDITION_KINDS)[number];

export function isPriceCondition(kind: RuleConditionKind): kind is PriceConditionKind {
  return (PRICE_CONDITION_KINDS as readonly string[]).includes(kind);
}

/**
 * The trigger a rule gets when none is given: once_per_bar (on the tick) for a price condition,
 * once_per_bar_close for the others, which are computed from closed bars anyway.
 */
export function defaultTrigger(kind: RuleConditionKind): RuleTrigger {
  return isPriceCondition(kind) ? 'once_per_bar' : 'once_per_bar_close';
}

/** Any symbol of the symbol table, in any form it resolves (AAPL, NASDAQ:AAPL, BTC, BTC-USD, MES1!); stored as its canonical id. */
export const ruleSymbol = z
  .string({ error: 'symbol is required' })
  .max(60, 'symbol is too long')
  .transform((value, context) => {
    const found = resolveSymbol(value);
    if (!found) {
      context.addIssue({ code: 'custom', message: unknownSymbolMessage(value) });
      return z.NEVER;
    }
    return found.id;
  });

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

/** The placeholders of a template that are not ours, in order of appearance. */
export function unknownPlaceholders(template: string): string[] {
  const known: readonly string[] = RULE_TEMPLATE_FIELDS;
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!).filter((name) => !known.includes(name));
}

/** Fills `{{ticker}}`-style placeholders; unknown ones are left as written. */
export function fillTemplate(template: string, values: Record<RuleTemplateField, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    (RULE_TEMPLATE_FIELDS as readonly string[]).includes(name) ? values[name as RuleTemplateField] : whole,
  );
}

const ruleMessage = z
  .string()
  .trim()
  .max(RULE_MESSAGE_MAX, `message must be at most ${RULE_MESSAGE_MAX} characters`)
  // Several lines are fine (the panel's field is a text area; e-mail and push show them), split
  // by LF only: a CR could still overwrite a line where the message is printed.
  .superRefine(refuseUnsafeCharacters('message', { lineFeeds: true }))
  .superRefine((value, context) => {
    const unknown = unknownPlaceholders(value);
    if (unknown.length > 0)
      context.addIssue({
        code: 'custom',
        message: `Unknown placeholder {{${unknown[0]}}}: use ${RULE_TEMPLATE_FIELDS.map((name) => `{{${name}}}`).join(', ')}`,
      });
  });

export const webhookUrl = z
  .string()
  .trim()
  .max(WEBHOOK_URL_MAX, `webhookUrl must be at most ${WEBHOOK_URL_MAX} characters`)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'webhookUrl must be an https:// address without a user name or password');

const isoTime = z.iso.datetime({ offset: true, error: 'expiresAt must be an ISO date and time' });

/** POST /api/alert-rules and PUT /api/alert-rules/:id. */
export const ruleInput = z
  .object({
    name: z
      .string()
      .trim()
      .max(RULE_NAME_MAX, `name must be at most ${RULE_NAME_MAX} characters`)
      .superRefine(refuseUnsafeCharacters('name'))
      .optional(),
    symbol: ruleSymbol,
    timeframe: z
      .enum(RULE_TIMEFRAMES, { error: `timeframe must be one of ${RULE_TIMEFRAMES.join(', ')}` })
      .default('1h'),
    condition: ruleCondition,
    // Left out: defaultTrigger of the condition (filled in below, once the condition is known).
    trigger: z.enum(RULE_TRIGGERS, { error: `trigger must be one of ${RULE_TRIGGERS.join(', ')}` }).optional(),
    expiresAt: isoTime.nullable().optional(),
    message: ruleMessage.optional(),
    channels: z
      .array(z.enum(RULE_CHANNELS, { error: `channels must be among ${RULE_CHANNELS.join(', ')}` }))
      .min(1, 'Choose at least one channel')
      .max(RULE_CHANNELS.length)
      .transform((channels) => RULE_CHANNELS.filter((channel) => channels.includes(channel)))
      .default(['in_app']),
    webhookUrl: webhookUrl.nullable().optional(),
  })
  .superRefine((value, context) => {
    if (value.channels.includes('webhook') && !value.webhookUrl)
      context.addIssue({ code: 'custom', message: 'A webhook rule needs a webhook URL', path: ['webhookUrl'] });
  })
  .transform((value) => ({ ...value, trigger: value.trigger ?? defaultTrigger(value.condition.kind) }));
export type RuleInput = z.input<typeof ruleInput>;
export type ParsedRuleInput = z.output<typeof ruleInput>;

/** PATCH /api/alert-rules/:id: pause or resume. */
export const ruleStatusBody = z.object({
  status: z.enum(['active', 'paused'], { error: "status must be 'active' or 'paused'" }),
});

export const ruleIdParams = z.object({ id: int32PathId });

export const alertRule = z.object({
  id: z.number(),
  name: z.string(),
  /** Canonical id: AAPL, BTC-USD, MES1!. */
  symbol: z.string(),
  ticker: z.string(),
  timeframe: z.enum(RULE_TIMEFRAMES),
  condition: ruleCondition,
  trigger: z.enum(RULE_TRIGGERS),
  expiresAt: z.string().nullable(),
  message: z.string().nullable(),
  channels: z.array(z.enum(RULE_CHANNELS)),
  webhookUrl: z.string().nullable(),
  status: z.enum(RULE_STATUSES),
  /** The condition in words: "AAPL crosses above 190 (1h)". */
  description: z.string(),
  triggerCount: z.number(),
  lastTriggeredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AlertRule = z.infer<typeof alertRule>;

/**
 * The query of a paged list (the rules, the Triggered list, the delivery log), newest first:
 * `cursor` is the `nextCursor` of the page before, passed back unchanged.
 */
export const rulePageQuery = z.object({
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/, 'cursor must be the nextCursor of an earlier page')
    .transform(Number)
    .optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1, 'limit must be at least 1')
    .max(RULE_PAGE_MAX, `limit must be at most ${RULE_PAGE_MAX}`)
    .default(RULE_PAGE_DEFAULT),
});
/** GET /api/alert-rules: a page of the rules, of one status when `status` is given. */
export const ruleListQuery = rulePageQuery.extend({
  status: z.enum(RULE_STATUSES, { error: `status must be one of ${RULE_STATUSES.join(', ')}` }).optional(),
});

/** The cursor of the page after this one; null on the last page. */
const nextCursor = z.string().nullable();

export const alertRuleList = z.object({
  rules: z.array(alertRule),
  nextCursor,
  /** The user's active rules (all of them, not only this page's) and how many are allowed. */
  activeCount: z.number(),
  maxActive: z.number(),
  /** The user's rules of any status and how many are allowed. */
  totalCount: z.number(),
  maxTotal: z.number(),
});
export type AlertRuleList = z.infer<typeof alertRuleList>;

/** One firing of a rule (the Triggered list, the live stream's `rule` event). */
export const ruleFiring = z.object({
  id: z.number(),
  ruleId: z.number(),
  ruleName: z.string(),
  symbol: z.string(),
  ticker: z.string(),
  timeframe: z.enum(RULE_TIMEFRAMES),
  price: z.number(),
  message: z.string(),
  /** ISO time of the bar that triggered it. */
  barTime: z.string(),
  firedAt: z.string(),
  /** Where the price came from: coinbase, yahoo or demo. */
  source: z.string(),
});
export type RuleFiring = z.infer<typeof ruleFiring>;
export const ruleFiringList = z.object({ firings: z.array(ruleFiring), nextCursor });

export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One (firing, channel) delivery: the delivery log's row. */
export const ruleDelivery = z.object({
  id: z.number(),
  firingId: z.number(),
  ruleId: z.number(),
  ruleName: z.string(),
  ticker: z.string(),
  channel: z.enum(RULE_CHANNELS),
  /** Where it went, shown to the user: the e-mail address, the webhook's host, "2 browsers". */
  target: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  /** From the firing to the delivery, in milliseconds. */
  latencyMs: z.number().nullable(),
});
export type RuleDelivery = z.infer<typeof ruleDelivery>;
export const ruleDeliveryList = z.object({ deliveries: z.array(ruleDelivery), nextCursor });

/** GET /api/push/key. */
export const pushKeyResponse = z.object({ publicKey: z.string() });
/** POST /api/push/subscriptions: the browser's PushSubscription.toJSON(). */
export const pushSubscriptionBody = z.object({
  endpoint: z.string().max(2000).url('endpoint must be a URL'),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
});
export type PushSubscriptionBody = z.infer<typeof pushSubscriptionBody>;
export const pushUnsubscribeBody = z.object({ endpoint: z.string().max(2000) });
export const pushSubscriptionsResponse = z.object({ count: z.number() });

/** GET /api/alert-rules/webhook: the secret a user's webhooks are signed with. */
export const webhookSecretResponse = z.object({ secret: z.string(), header: z.string() });
/** POST /api/alert-rules/webhook/test. */
export const webhookTestBody = z.object({ url: webhookUrl });
export const webhookTestResponse = z.object({
  ok: z.boolean(),
  status: z.number().nullable(),
  latencyMs: z.number(),
  error: z.string().nullable(),
});

/** POST /api/test/rules/price (TEST_HOOKS only): a price update for a symbol, as if its demo feed moved there. */
export const testRulePriceBody = z.object({ symbol: ruleSymbol, price: price('price') });
export const testRulePriceResponse = z.object({ fired: z.number() });

/** The built-in generators in a trader's words. */
export const ALERT_TYPE_LABELS: Record<AlertType, string> = {
  VolatilitySpikeAlertGenerator: 'volatility spike',
  MomentumShiftAlertGenerator: 'momentum shift',
  BreakoutAlertGenerator: 'breakout',
  TrendChangeAlertGenerator: 'trend change',
};

// One formatter for all: toLocaleString builds a new one on every call (about 15 µs), and a
// rule's words are made on its first firing, which may be on a tick.
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const compact = (value: number) => (Math.abs(value) >= 1000 ? grouped.format(value) : String(value));

/** A condition in words, e.g. "AAPL crosses above 190", "BTC RSI(14) above 70". */
export function describeCondition(condition: RuleCondition, ticker: string): string {
  switch (condition.kind) {
    case 'price_cross':
      return `${ticker} crosses ${condition.direction} ${compact(condition.level)}`;
    case 'channel':
      return `${ticker} ${condition.direction} ${compact(condition.lower)}–${compact(condition.upper)}`;
    case 'percent_move':
      return `${ticker} ${condition.percent > 0 ? 'up' : 'down'} ${Math.abs(condition.percent)}% in ${condition.windowMinutes} min`;
    case 'rsi':
      return `${ticker} RSI(${condition.period}) ${condition.direction} ${condition.level}`;
    case 'ema_cross':
      return `${ticker} EMA(${condition.fast}) crosses ${condition.direction} EMA(${condition.slow})`;
    case 'bollinger':
      return `${ticker} closes ${condition.direction} the ${condition.direction === 'above' ? 'upper' : 'lower'} Bollinger band (${condition.period}, ${condition.deviations})`;
    case 'volume_z':
      return `${ticker} volume z-score above ${condition.threshold} (${condition.period})`;
    case 'builtin':
      return `${ticker} ${ALERT_TYPE_LABELS[condition.alertType]}`;
    case 'watos_odds':
      return `${ticker} WATOS odds of a ${condition.outcome} at least ${condition.threshold}%`;
  }
}
