// The one Drizzle schema for both drivers (PGlite and PostgreSQL). drizzle-kit turns changes
// here into SQL migrations under ./migrations; never edit a migration that has shipped.
// Auth tables keep Better Auth's field names as JS keys (its Drizzle adapter maps by key).
// Columns holding one of a fixed set of values are typed with it (`text({ enum })` or
// `.$type<>()`, JSON columns with `.$type<>()`): TypeScript only, the SQL stays plain text/jsonb,
// so the stores read rows without casts and writing another value is a type error.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  DELIVERY_STATUSES,
  RULE_CHANNELS,
  RULE_STATUSES,
  RULE_TIMEFRAMES,
  RULE_TRIGGERS,
  type RuleChannel,
  type RuleCondition,
} from '../../shared/schemas/alertRules.ts';
import type { ChatRole } from '../../shared/schemas/chat.ts';
import type { MarketSource } from '../../shared/schemas/market.ts';
import type { ScanCondition } from '../../shared/schemas/scans.ts';
import { WATOS_TIMEFRAMES } from '../../shared/schemas/chatTexts.ts';
import { FORECAST_SOURCES } from '../../shared/schemas/trackRecord.ts';
import type { WatchlistKind } from '../../shared/schemas/watchlists.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const user = pgTable('user', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull().unique(),
  emailVerified: boolean('email_verified').notNull().default(false),
  image: text('image'),
  username: text('username'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const session = pgTable(
  'session',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    token: text('token').notNull().unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
  },
  (table) => [index('session_user_id_idx').on(table.userId)],
);

export const account = pgTable(
  'account',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true }),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    password: text('password'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('account_user_id_idx').on(table.userId)],
);

export const verification = pgTable(
  'verification',
  {
    id: text('id').primaryKey(),
    identifier: text('identifier').notNull(),
    value: text('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('verification_identifier_idx').on(table.identifier)],
);

/** docs/SPEC.md: profiles (id, username). One row a user, created at sign-up. */
export const profiles = pgTable('profiles', {
  id: text('id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  username: text('username').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const products = pgTable('products', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  features: jsonb('features')
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'::jsonb`),
  popular: boolean('popular').notNull().default(false),
  active: boolean('active').notNull().default(true),
  createdAt: createdAt(),
});

export const prices = pgTable('prices', {
  id: text('id').primaryKey(),
  productId: text('product_id')
    .notNull()
    .references(() => products.id),
  active: boolean('active').notNull().default(true),
  /** Integer cents. */
  unitAmount: integer('unit_amount').notNull(),
  currency: text('currency').notNull().default('usd'),
  interval: text('interval', { enum: ['one_time', 'month'] }).notNull(),
  /** Days of access a one-time price buys; null for recurring prices. */
  accessDays: integer('access_days'),
  /** The payment provider's price id when it differs from ours (Stripe price_...). */
  providerPriceId: text('provider_price_id'),
  createdAt: createdAt(),
});

/** docs/SPEC.md: subscriptions (user_id, status, current_period_end, id). */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    priceId: text('price_id').references(() => prices.id),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    provider: text('provider').notNull(),
    providerSubscriptionId: text('provider_subscription_id'),
    providerCustomerId: text('provider_customer_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('subscriptions_user_id_idx').on(table.userId),
    uniqueIndex('subscriptions_provider_subscription_idx').on(table.provider, table.providerSubscriptionId),
  ],
);

/** Outbound e-mail kept by the embedded outbox (and as an audit trail when SMTP is used). */
export const outbox = pgTable('outbox', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  html: text('html').notNull(),
  createdAt: createdAt(),
});

/** Checkout sessions we created, whichever provider hosts the payment page. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    priceId: text('price_id')
      .notNull()
      .references(() => prices.id),
    provider: text('provider').notNull(),
    status: text('status', { enum: ['open', 'paid', 'expired'] })
      .notNull()
      .default('open'),
    url: text('url'),
    createdAt: createdAt(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (table) => [index('checkout_sessions_user_id_idx').on(table.userId)],
);

/** Payment-provider webhook events already handled: a replay changes nothing. */
export const webhookEvents = pgTable('webhook_events', {
  id: text('id').primaryKey(),
  provider: text('provider').notNull(),
  type: text('type').notNull(),
  processedAt: timestamp('processed_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A user's saved watchlists: 'chart' (EXCHANGE:SYMBOL) and 'alerts' (plain symbols). */
export const watchlists = pgTable(
  'watchlists',
  {
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<WatchlistKind>().notNull(),
    symbols: jsonb('symbols').$type<string[]>().notNull(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('watchlists_user_kind_idx').on(table.userId, table.kind)],
);

/** The prompt catalogue (docs/SPEC.md 'Prompt Catalog'), seeded at start-up. */
export const prompts = pgTable(
  'prompts',
  {
    id: text('id').primaryKey(),
    category: text('category').notNull(),
    prompt: text('prompt').notNull(),
    /** Whether the prompt uses the Timeframe and Symbol selections. */
    usesMarketContext: boolean('uses_market_context').notNull().default(true),
    sortOrder: integer('sort_order').notNull().default(0),
    active: boolean('active').notNull().default(true),
  },
  (table) => [index('prompts_category_idx').on(table.category, table.sortOrder)],
);

/** Closed candles per product and granularity (60 or 3600 s), from Coinbase or the demo feed. */
export const candles = pgTable(
  'candles',
  {
    productId: text('product_id').notNull(),
    granularity: integer('granularity').notNull(),
    time: timestamp('time', { withTimezone: true }).notNull(),
    open: doublePrecision('open').notNull(),
    high: doublePrecision('high').notNull(),
    low: doublePrecision('low').notNull(),
    close: doublePrecision('close').notNull(),
    volume: doublePrecision('volume').notNull(),
    source: text('source').$type<MarketSource>().notNull(),
  },
  (table) => [primaryKey({ columns: [table.productId, table.granularity, table.time] })],
);

/** Market-wide alerts from the alert engine; one per ticker, generator and bar. */
export const alerts = pgTable(
  'alerts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ticker: text('ticker').notNull(),
    alertType: text('alert_type').notNull(),
    message: text('message').notNull(),
    /** When the condition was seen: the close time of the bar that triggered it. */
    timestamp: timestamp('timestamp', { withTimezone: true }).notNull(),
    source: text('source').notNull(),
  },
  (table) => [
    uniqueIndex('alerts_ticker_type_time_idx').on(table.ticker, table.alertType, table.timestamp),
    // Each ends in (timestamp, id), the alert log's ORDER BY timestamp desc, id desc: a backward
    // index scan hands rows over already in order and stops at the LIMIT, no sort step.
    index('alerts_timestamp_id_idx').on(table.timestamp, table.id),
    index('alerts_type_timestamp_id_idx').on(table.alertType, table.timestamp, table.id),
    index('alerts_ticker_timestamp_id_idx').on(table.ticker, table.timestamp, table.id),
  ],
);

/**
 * docs/SPEC.md 'My Stuff' files: uploaded_by_user_id null means a public file (published by an
 * operator). The bytes live in file storage (disk or S3) under `storageKey`, a
 * server-generated name; the original file name is kept only as data.
 */
export const files = pgTable(
  'files',
  {
    id: text('id').primaryKey(),
    originalFilename: text('original_filename').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    contentType: text('content_type').notNull(),
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    uploadedByUserId: text('uploaded_by_user_id').references(() => user.id, { onDelete: 'cascade' }),
    uploadDate: timestamp('upload_date', { withTimezone: true }).notNull().defaultNow(),
    /** The number of the version the row's object is (1 for a first upload, N + 1 after N). */
    version: integer('version').notNull().default(1),
  },
  (table) => [index('files_owner_date_idx').on(table.uploadedByUserId, table.uploadDate)],
);

/**
 * The earlier versions of a user's file: when a user uploads a file with the name of one they
 * own, the `files` row takes the new object and its previous object moves here, keeping its
 * own size, type and date. Deleting the file deletes these rows (and their objects) with it.
 */
export const fileVersions = pgTable(
  'file_versions',
  {
    fileId: text('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    contentType: text('content_type').notNull(),
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    uploadDate: timestamp('upload_date', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.fileId, table.version] })],
);

/** The spreadsheet a user linked in My Stuff (one a user). */
export const linkedSheets = pgTable('linked_sheets', {
  userId: text('user_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  sheetUrl: text('sheet_url').notNull(),
  updatedAt: updatedAt(),
});

/** A user's AI assistant conversations, restored on reload. */
export const conversations = pgTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('conversations_user_updated_idx').on(table.userId, table.updatedAt)],
);

/** Messages of a conversation, in order of `id`. */
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    role: text('role').$type<ChatRole>().notNull(),
    content: text('content').notNull(),
    /** Name of the file attached to a user message, if any. */
    attachmentName: text('attachment_name'),
    createdAt: createdAt(),
  },
  (table) => [index('chat_messages_conversation_idx').on(table.conversationId, table.id)],
);

/**
 * A trader's own alert rules (issue 16): a condition on one symbol (canonical id), evaluated by
 * the alert engine on the rule's timeframe. `condition` is the shared schema's RuleCondition.
 */
export const alertRules = pgTable(
  'alert_rules',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    symbol: text('symbol').notNull(),
    timeframe: text('timeframe', { enum: RULE_TIMEFRAMES }).notNull(),
    condition: jsonb('condition').$type<RuleCondition>().notNull(),
    trigger: text('trigger', { enum: RULE_TRIGGERS }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    message: text('message'),
    channels: jsonb('channels').$type<RuleChannel[]>().notNull(),
    webhookUrl: text('webhook_url'),
    status: text('status', { enum: RULE_STATUSES }).notNull().default('active'),
    triggerCount: integer('trigger_count').notNull().default(0),
    lastTriggeredAt: timestamp('last_triggered_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('alert_rules_user_idx').on(table.userId, table.id),
    index('alert_rules_status_symbol_idx').on(table.status, table.symbol),
    index('alert_rules_updated_idx').on(table.updatedAt),
  ],
);

/**
 * One firing of a rule. `triggerKey` makes firing idempotent: 0 for a "once" rule, the open
 * time (ms) of the rule's bar for "once per bar", the one-minute bar's time for "every time";
 * the engine re-running a bar after a restart or failover hits the unique key and fires nothing.
 */
export const ruleFirings = pgTable(
  'rule_firings',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ruleId: integer('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    symbol: text('symbol').notNull(),
    triggerKey: bigint('trigger_key', { mode: 'number' }).notNull(),
    barTime: timestamp('bar_time', { withTimezone: true }).notNull(),
    price: doublePrecision('price').notNull(),
    message: text('message').notNull(),
    source: text('source').notNull(),
    firedAt: timestamp('fired_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('rule_firings_rule_key_idx').on(table.ruleId, table.triggerKey),
    index('rule_firings_user_idx').on(table.userId, table.id),
  ],
);

/** One delivery of a firing to one channel: at most one row per (firing, channel), the delivery log. */
export const ruleDeliveries = pgTable(
  'rule_deliveries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    firingId: bigint('firing_id', { mode: 'number' })
      .notNull()
      .references(() => ruleFirings.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: RULE_CHANNELS }).notNull(),
    target: text('target').notNull().default(''),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    latencyMs: integer('latency_ms'),
  },
  (table) => [
    uniqueIndex('rule_deliveries_firing_channel_idx').on(table.firingId, table.channel),
    index('rule_deliveries_user_idx').on(table.userId, table.id),
    index('rule_deliveries_status_idx').on(table.status, table.createdAt),
  ],
);

/**
 * A browser's Web Push subscription (PushSubscription.toJSON()), per account: a browser two
 * accounts signed in on holds a row for each, and one account's firings go only to its own rows.
 */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('push_subscriptions_user_endpoint_idx').on(table.userId, table.endpoint)],
);

/** The per-user secret that signs the user's webhooks (HMAC-SHA256). */
export const webhookSecrets = pgTable('webhook_secrets', {
  userId: text('user_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  createdAt: createdAt(),
});

/**
 * Every WATOS odds statement the product showed (issue 20), once per statement: the grid card,
 * the assistant's answers and watos_odds rule firings. `dedupKey` (source|symbol|timeframe|
 * signal|direction|horizon|bar time) makes identical repeats within a bar one forecast. The
 * resolver (forecasts/service.ts) settles each one after its horizon against the candle store:
 * 'resolved' with `rose` and `exitClose`, or 'unresolvable' when the data has gaps.
 */
export const forecasts = pgTable(
  'forecasts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    dedupKey: text('dedup_key').notNull(),
    /** Canonical id of the symbol table (BTC-USD, AAPL, MES1!). */
    symbol: text('symbol').notNull(),
    assetClass: text('asset_class').notNull(),
    timeframe: text('timeframe', { enum: WATOS_TIMEFRAMES }).notNull(),
    /** watos1 .. watos6 */
    signal: text('signal').notNull(),
    /** The signal's direction. */
    direction: text('direction', { enum: ['bullish', 'bearish'] }).notNull(),
    /** The stated probability of a higher close after the horizon (0..1). */
    stated: doublePrecision('stated').notNull(),
    intervalLow: doublePrecision('interval_low'),
    intervalHigh: doublePrecision('interval_high'),
    /** The raw measured frequency behind a calibrated statement, when the estimator gives one. */
    rawFrequency: doublePrecision('raw_frequency'),
    horizonBars: integer('horizon_bars').notNull(),
    /** Close time of the bar the statement is about. */
    barTime: timestamp('bar_time', { withTimezone: true }).notNull(),
    /** Close time of the horizon-th bar after it: when the forecast can be resolved. */
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    baseRate: doublePrecision('base_rate').notNull(),
    sampleSize: integer('sample_size').notNull(),
    /** The market data provider serving the symbol when it was stated. */
    source: text('source', { enum: FORECAST_SOURCES }).notNull(),
    /** Where it was shown: the grid card, an assistant's answer, a watos_odds rule's firing, or a trader's own rule's firing. */
    origin: text('origin', { enum: ['grid', 'answer', 'alert', 'rule'] }).notNull(),
    /** origin 'rule': the trader whose rule fired; private to them unless `published`. Null for the product's own. */
    userId: text('user_id').references(() => user.id, { onDelete: 'cascade' }),
    /** origin 'rule': the rule that fired (kept when the rule is deleted, so its record stays). */
    ruleId: integer('rule_id'),
    published: boolean('published').notNull().default(false),
    entryClose: doublePrecision('entry_close').notNull(),
    createdAt: createdAt(),
    status: text('status', { enum: ['pending', 'resolved', 'unresolvable'] })
      .notNull()
      .default('pending'),
    rose: boolean('rose'),
    exitClose: doublePrecision('exit_close'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    /** Why a forecast could not be resolved (gaps, no candle at the due time, another feed). */
    note: text('note'),
  },
  (table) => [
    uniqueIndex('forecasts_dedup_key_idx').on(table.dedupKey),
    index('forecasts_status_due_idx').on(table.status, table.dueAt),
    index('forecasts_score_idx').on(table.source, table.status, table.timeframe, table.signal, table.barTime),
    index('forecasts_symbol_idx').on(table.symbol, table.barTime),
    index('forecasts_user_idx').on(table.userId, table.barTime),
  ],
);

/** A trader's saved scans (issue 36): a name, a timeframe and the conditions, all of which must hold. */
export const savedScans = pgTable(
  'saved_scans',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    timeframe: text('timeframe', { enum: RULE_TIMEFRAMES }).notNull(),
    conditions: jsonb('conditions').$type<ScanCondition[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('saved_scans_user_name_idx').on(table.userId, table.name)],
);
