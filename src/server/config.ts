// Every environment variable the server reads, in one zod schema with its default.
// A bad value stops start-up with a message that names the variable.
import { createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { MARKET_DATA_MODES } from './market/service.ts';

/**
 * Coinbase's public market-data hosts (no key needed): the price API (spot, buy, sell), Coinbase
 * Exchange (candles) and its WebSocket feed (live ticks); COINBASE_PRICE_API_URL,
 * COINBASE_EXCHANGE_API_URL and COINBASE_WS_URL override them.
 */
const COINBASE_PRICE_API = 'https://api.coinbase.com';
const COINBASE_EXCHANGE_API = 'https://api.exchange.coinbase.com';
const COINBASE_WS_FEED = 'wss://ws-feed.exchange.coinbase.com';

const optionalUrl = z.url().optional();

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY as Fastify's trustProxy takes it: false, a hop count, or a list of addresses. */
function parseTrustProxy(value: string | undefined, context: z.RefinementCtx): false | number | string[] {
  if (value === undefined) return false;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) context.addIssue({ code: 'custom', message: 'a hop count must be at most 32' });
    return hops === 0 ? false : hops;
  }
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (PROXY_NAMES.has(entry)) continue;
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address!);
    const maxBits = family === 6 ? 128 : 32;
    const bitsValid = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsValid || rest.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not an IP address, a CIDR range, loopback, linklocal or uniquelocal (or give a hop count)`,
      });
    }
  }
  if (entries.length === 0)
    context.addIssue({ code: 'custom', message: 'must be a hop count or a list of proxy addresses' });
  return entries;
}
const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Public origin of the app (links in e-mails, Stripe return URLs, auth origin check). */
  PUBLIC_URL: optionalUrl,
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Which proxies in front of the app may tell the client's address (X-Forwarded-For):
   * unset trusts none (the connection's address is the client); a number of hops, or a
   * comma-separated list of proxy addresses/CIDRs (or loopback, linklocal, uniquelocal).
   */
  TRUST_PROXY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .optional()
      .transform((value, context) => parseTrustProxy(value, context)),
  ),

  /** Test-only hooks (the outbox at GET /api/test/outbox, POST /api/test/alerts). Never in production. */
  TEST_HOOKS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),

  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
  ),
  /**
   * Namespace of every Redis key and channel of this deployment. Redis database numbers do not
   * separate pub/sub channels, so two deployments sharing a Redis need different prefixes.
   */
  REDIS_PREFIX: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1 to 64 letters, digits or : _ . - (for example watos:prod:)')
      .optional(),
  ),

  AUTH_SECRET: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  /** Better Auth's session cookie cache: seconds a signed copy of the session is trusted without the database (0: read it every request). */
  SESSION_CACHE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(3600).default(30)),
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_FROM: z.string().min(3).default('WATOS Dashboard <no-reply@localhost>'),
  /** SMTP mail queue: how long a message is retried, the first retry delay, the longest gap. */
  MAIL_RETRY_HOURS: z.preprocess(emptyToUndefined, z.coerce.number().positive().max(168).default(24)),
  MAIL_RETRY_BASE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(3600).default(30)),
  MAIL_RETRY_MAX_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(86_400).default(3600)),

  STRIPE_SECRET_KEY: z.preprocess(emptyToUndefined, z.string().startsWith('sk_').optional()),
  STRIPE_WEBHOOK_SECRET: z.preprocess(emptyToUndefined, z.string().startsWith('whsec_').optional()),
  STRIPE_PUBLISHABLE_KEY: z.preprocess(emptyToUndefined, z.string().startsWith('pk_').optional()),
  STRIPE_PRICE_LIVE_TEST: z.preprocess(emptyToUndefined, z.string().startsWith('price_').optional()),
  STRIPE_PRICE_THREE_DAY: z.preprocess(emptyToUndefined, z.string().startsWith('price_').optional()),
  STRIPE_PRICE_MONTHLY: z.preprocess(emptyToUndefined, z.string().startsWith('price_').optional()),

  /** auto: each real provider (Coinbase, Yahoo Finance) while it answers, the demo feed when not; live: real only; coinbase: crypto forced to Coinbase; demo: demo feed only. */
  MARKET_DATA: z.enum(MARKET_DATA_MODES).default('auto'),
  /** Yahoo Finance's hosts rewritten to this origin; change only for a mirror or egress proxy (the fault tests point it at a local fake). */
  YAHOO_API_URL: z.preprocess(emptyToUndefined, optionalUrl),
  /** Coinbase's public API hosts; change only to go through an egress proxy or mirror. */
  COINBASE_PRICE_API_URL: z.preprocess(emptyToUndefined, z.url().default(COINBASE_PRICE_API)),
  COINBASE_EXCHANGE_API_URL: z.preprocess(emptyToUndefined, z.url().default(COINBASE_EXCHANGE_API)),
  COINBASE_WS_URL: z.preprocess(
    emptyToUndefined,
    z.url({ protocol: /^wss?$/, error: 'COINBASE_WS_URL must be a ws:// or wss:// URL' }).default(COINBASE_WS_FEED),
  ),
  /** Alpaca market data (optional): with both keys, US stocks' and ETFs' live ticks come from its trade stream; Yahoo Finance stays the keyless default. */
  ALPACA_KEY_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  ALPACA_SECRET_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  ALPACA_WS_URL: z.preprocess(
    emptyToUndefined,
    z
      .url({ protocol: /^wss?$/, error: 'ALPACA_WS_URL must be a ws:// or wss:// URL' })
      .default('wss://stream.data.alpaca.markets/v2/iex'),
  ),
  /**
   * How long the exchange view's price snapshot (84 Coinbase price calls) is reused before the
   * next view or Refresh Data asks Coinbase again (seconds).
   */
  EXCHANGE_QUOTE_CACHE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(300).default(10)),
  /** How often the live path polls Yahoo Finance's quotes for the watched stocks, ETFs, indices and futures (ms). */
  LIVE_QUOTE_POLL_MS: z.coerce.number().int().min(1_000).max(60_000).default(5_000),

  LLM_BASE_URL: z.preprocess(emptyToUndefined, optionalUrl),
  LLM_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  LLM_MODEL: z.preprocess(emptyToUndefined, z.string().optional()),
  /** AI assistant: chat and prompt calls a user may make per minute, and the attached-file limits. */
  AI_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(20),
  AI_FILE_MAX_MB: z.coerce.number().positive().max(1024).default(10),
  AI_FILE_MAX_ROWS: z.coerce.number().int().min(10).max(10_000_000).default(50_000),
  /** Track-record backtests (issue 33): worker threads (unset: one per core beyond the first, 1 to 4), queue length, per-user bounds. */
  BACKTEST_WORKERS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(64).optional()),
  BACKTEST_QUEUE_MAX: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(10_000).default(16)),
  BACKTEST_CONCURRENT_PER_USER: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(100).default(1)),
  BACKTEST_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(10_000).default(10),
  ),
  /** Time budget of reading one spreadsheet (My Stuff preview, the assistant's file analysis, sheet names); past it the read is stopped and refused. */
  SHEET_READ_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(600_000).default(10_000)),

  S3_ENDPOINT: z.preprocess(emptyToUndefined, optionalUrl),
  S3_BUCKET: z.preprocess(emptyToUndefined, z.string().optional()),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  S3_SECRET_ACCESS_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  UPLOAD_MAX_MB: z.coerce.number().positive().max(1024).default(25),
  /** My Stuff quotas per user (public files do not count) and the upload rate limit. */
  FILES_MAX_PER_USER: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(500)),
  FILES_MAX_TOTAL_MB: z.preprocess(emptyToUndefined, z.coerce.number().positive().max(1_048_576).default(1024)),
  UPLOAD_RATE_LIMIT_PER_MINUTE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(30)),

  /** Alert rules (issue 16): active and all rules per user, Web Push keys, webhook timeout and the delivery retry budget. */
  ALERT_RULES_MAX_ACTIVE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(100_000).default(50)),
  ALERT_RULES_MAX_TOTAL: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(500)),
  VAPID_PUBLIC_KEY: z.preprocess(emptyToUndefined, z.string().min(20).optional()),
  VAPID_PRIVATE_KEY: z.preprocess(emptyToUndefined, z.string().min(20).optional()),
  VAPID_SUBJECT: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^(mailto:|https:\/\/)/, 'must start with mailto: or https://')
      .optional(),
  ),
  WEBHOOK_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(100).max(60_000).default(5000)),
  DELIVERY_RETRY_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(50).default(6)),
  DELIVERY_RETRY_BASE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(3600).default(10)),
  GOOGLE_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  SPREADSHEET_EMBED_URL: z.preprocess(emptyToUndefined, optionalUrl),
  DEMO_TRADING_EMBED_URL: z.preprocess(emptyToUndefined, optionalUrl),

  /** Turns on GET /metrics (Prometheus text format), answered only with `Authorization: Bearer <METRICS_TOKEN>`; unset: no /metrics. */
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16, 'must be at least 16 characters').optional()),

  // --- Deployment guards and HTTP timeouts (issue 14: items 4, 7, 15c) ---
  /** Payments: `stripe` (the Stripe keys are required), `test` (the built-in TEST MODE checkout, on purpose), unset: decided by the keys. */
  BILLING: z.preprocess(emptyToUndefined, z.enum(['stripe', 'test']).optional()),
  /** Refuse to start without S3 storage (several instances must see the same files). */
  REQUIRE_SHARED_STORAGE: z.preprocess(
    emptyToUndefined,
    z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
  ),
  /** Seconds a client has to send the request line and headers. */
  HTTP_HEADERS_TIMEOUT_S: z.preprocess(emptyToUndefined, z.coerce.number().positive().max(600).default(20)),
  /** Seconds without a byte from a client the server is waiting on (headers, body, or reading the answer); also the window of the body rate below. */
  HTTP_IDLE_TIMEOUT_S: z.preprocess(emptyToUndefined, z.coerce.number().positive().max(3600).default(30)),
  /** Slowest accepted request body, in bytes a second averaged over each idle window; 0 turns the check off. */
  HTTP_BODY_MIN_BYTES_PER_S: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(100_000_000).default(500),
  ),
  /** Longest time to receive a whole request; unset: enough for UPLOAD_MAX_MB at 64 kbit/s (at least 300 s); 0: no limit. */
  HTTP_REQUEST_TIMEOUT_S: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number()
      .min(0)
      .max(7 * 24 * 3600)
      .optional(),
  ),
});

type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  /** Absolute data directory. */
  dataDir: string;
  /** Origin the browser sees; defaults to http://HOST:PORT. */
  publicUrl: string;
  /** Which embedded defaults stand in for outside services (printed at start-up). */
  embedded: string[];
  /** Reachable from other machines: a non-loopback PUBLIC_URL or HOST (see isLoopbackHost). */
  publicDeployment: boolean;
  /** The HTTP server's timeouts (applied by http/timeouts.ts), in milliseconds. */
  httpTimeouts: HttpTimeouts;
  /** REDIS_PREFIX, or one derived from the database this deployment uses (see defaultRedisPrefix). */
  redisPrefix: string;
}

export interface HttpTimeouts {
  headersMs: number;
  idleMs: number;
  /** 0: no limit. */
  requestMs: number;
  /** 0: no minimum. */
  minBodyBytesPerSecond: number;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * True for a host only this machine can reach: localhost, 127.0.0.0/8, ::1 (with or without
 * brackets). 0.0.0.0 and :: listen on every interface, so they are not loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (name === 'localhost') return true;
  const family = isIP(name);
  return family !== 0 && loopback.check(name, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The namespace a deployment gets in Redis when REDIS_PREFIX is unset: the instances of one
 * deployment share a database, so its name (PostgreSQL) or the data directory (PGlite) tells
 * deployments apart. The database name alone, not host or user: instances that reach the same
 * database under different host names must still share their channel.
 */
function defaultRedisPrefix(databaseUrl: string | undefined, dataDir: string): string {
  let identity = `pglite:${dataDir}`;
  if (databaseUrl) {
    let name: string;
    try {
      const url = new URL(databaseUrl);
      // PostgreSQL's default database is the one named like the user.
      name = decodeURIComponent(url.pathname.replace(/^\//, '') || url.username);
    } catch {
      name = databaseUrl;
    }
    if (/^[A-Za-z0-9_-]{1,40}$/.test(name)) return `watos:${name}:`;
    identity = `postgres:${name}`;
  }
  return `watos:${createHash('sha256').update(identity).digest('hex').slice(0, 12)}:`;
}

export class ConfigError extends Error {}

/** Parses an environment (process.env by default) into the typed configuration. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const values = parsed.data;
  const pairs: Array<[string, boolean]> = [
    ['S3_BUCKET', Boolean(values.S3_BUCKET)],
    ['S3_ACCESS_KEY_ID', Boolean(values.S3_ACCESS_KEY_ID)],
    ['S3_SECRET_ACCESS_KEY', Boolean(values.S3_SECRET_ACCESS_KEY)],
  ];
  const s3Set = pairs.filter(([, set]) => set).length;
  if (s3Set > 0 && s3Set < pairs.length) {
    const missing = pairs.filter(([, set]) => !set).map(([name]) => name);
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.join(', ')}: required when any S3_* storage variable is set`,
    );
  }
  if (values.STRIPE_SECRET_KEY && !values.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError('Invalid configuration:\n  STRIPE_WEBHOOK_SECRET: required when STRIPE_SECRET_KEY is set');
  }
  if (Boolean(values.VAPID_PUBLIC_KEY) !== Boolean(values.VAPID_PRIVATE_KEY)) {
    throw new ConfigError(
      'Invalid configuration:\n  VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: set both (npx web-push generate-vapid-keys) or neither',
    );
  }
  if (Boolean(values.ALPACA_KEY_ID) !== Boolean(values.ALPACA_SECRET_KEY)) {
    throw new ConfigError(
      'Invalid configuration:\n  ALPACA_KEY_ID, ALPACA_SECRET_KEY: set both (your Alpaca market-data keys) or neither',
    );
  }
  if (values.LLM_BASE_URL && !values.LLM_MODEL) {
    throw new ConfigError(
      'Invalid configuration:\n  LLM_MODEL: required when LLM_BASE_URL is set (e.g. gpt-4o-mini, llama3.1)',
    );
  }

  const host = values.HOST === '0.0.0.0' || values.HOST === '::' ? '127.0.0.1' : values.HOST;
  // An IPv6 HOST (::1) needs brackets in a URL.
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const publicUrl = (values.PUBLIC_URL ?? `http://${urlHost}:${values.PORT}`).replace(/\/$/, '');
  const publicDeployment = checkDeployment(values, publicUrl);
  const httpTimeouts = httpTimeoutsOf(values);
  const embedded: string[] = [];
  if (!values.DATABASE_URL) embedded.push('database: PGlite in DATA_DIR/db');
  if (!values.SMTP_URL) embedded.push('e-mail: outbox (links printed to this log)');
  if (!values.STRIPE_SECRET_KEY) embedded.push('payments: built-in TEST MODE checkout');
  if (!values.LLM_BASE_URL) embedded.push('AI assistant: built-in analyst (no LLM)');
  if (values.MARKET_DATA !== 'live')
    embedded.push(
      `market data: ${values.MARKET_DATA === 'demo' ? 'demo feed' : values.MARKET_DATA === 'coinbase' ? 'Coinbase for crypto; Yahoo Finance for stocks, ETFs, indices and futures, demo feed when unreachable' : 'Coinbase for crypto, Yahoo Finance for stocks, ETFs, indices and futures, each with the demo feed when unreachable'}`,
    );
  if (!values.REDIS_URL) embedded.push('rate limits and live fan-out: in-process');
  if (!values.S3_BUCKET) embedded.push('file storage: DATA_DIR/uploads');
  if (!values.VAPID_PUBLIC_KEY) embedded.push('Web Push keys: generated into DATA_DIR/vapid-keys.json');

  const dataDir = resolve(values.DATA_DIR);
  const redisPrefix = values.REDIS_PREFIX ?? defaultRedisPrefix(values.DATABASE_URL, dataDir);
  return { ...values, dataDir, publicUrl, embedded, publicDeployment, httpTimeouts, redisPrefix };
}

/**
 * The rules that keep a reachable deployment from running with the laptop defaults: no free
 * TEST MODE subscriptions, no test hooks in production, S3 when shared storage is required.
 * Returns whether the deployment is public. A server listening on every interface (HOST
 * 0.0.0.0) is public even when PUBLIC_URL (or its default) names a loopback address.
 */
function checkDeployment(values: Env, publicUrl: string): boolean {
  const publicUrlHost = new URL(publicUrl).hostname;
  const publicDeployment = !isLoopbackHost(values.HOST) || !isLoopbackHost(publicUrlHost);
  const where = !isLoopbackHost(publicUrlHost)
    ? `PUBLIC_URL ${publicUrl} is not a loopback address`
    : `HOST ${values.HOST} is not a loopback address`;
  const fail = (message: string) => {
    throw new ConfigError(`Invalid configuration:\n  ${message}`);
  };

  if (values.BILLING === 'stripe' && !values.STRIPE_SECRET_KEY)
    fail('STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: required when BILLING=stripe');
  if (values.BILLING === 'test' && values.STRIPE_SECRET_KEY)
    fail('BILLING: test contradicts STRIPE_SECRET_KEY; unset one of them');
  if (publicDeployment && !values.STRIPE_SECRET_KEY && values.BILLING !== 'test') {
    fail(
      `STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: required on a public deployment (${where}); ` +
        'without them anyone could subscribe for free through the built-in TEST MODE checkout. ' +
        'Set both Stripe keys, or BILLING=test to run the TEST MODE checkout on purpose (a demo or staging server).',
    );
  }
  if (publicDeployment && values.TEST_HOOKS && values.NODE_ENV === 'production') {
    fail(
      `TEST_HOOKS: never with NODE_ENV=production on a public deployment (${where}); the hooks expose the e-mail outbox and push alerts. Unset TEST_HOOKS.`,
    );
  }
  if (values.REQUIRE_SHARED_STORAGE && !values.S3_BUCKET) {
    fail(
      'S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: required with REQUIRE_SHARED_STORAGE=true ' +
        '(every instance must read the same files; S3_ENDPOINT too for a server other than AWS)',
    );
  }
  return publicDeployment;
}

function httpTimeoutsOf(values: Env): HttpTimeouts {
  // Unset: the time UPLOAD_MAX_MB takes at 64 kbit/s (8 KiB/s), so a slow but steady upload
  // of the largest accepted file is never cut; 25 MB: 3200 s.
  const requestSeconds =
    values.HTTP_REQUEST_TIMEOUT_S ?? Math.max(300, Math.ceil((values.UPLOAD_MAX_MB * 1024 * 1024) / 8192));
  if (requestSeconds > 0 && requestSeconds < values.HTTP_HEADERS_TIMEOUT_S) {
    throw new ConfigError(
      'Invalid configuration:\n  HTTP_REQUEST_TIMEOUT_S: must be 0 (no limit) or at least HTTP_HEADERS_TIMEOUT_S',
    );
  }
  return {
    headersMs: Math.round(values.HTTP_HEADERS_TIMEOUT_S * 1000),
    idleMs: Math.round(values.HTTP_IDLE_TIMEOUT_S * 1000),
    requestMs: Math.round(requestSeconds * 1000),
    minBodyBytesPerSecond: values.HTTP_BODY_MIN_BYTES_PER_S,
  };
}

/**
 * Loud start-up warnings (main.ts prints each through the logger and on the console): set-ups
 * that start but are probably not what the operator meant.
 */
export function startupWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.DATABASE_URL && !config.S3_BUCKET) {
    warnings.push(
      [
        'SHARED DATABASE, LOCAL FILES: DATABASE_URL points at a PostgreSQL server, but uploaded files are',
        `stored on this machine only (${resolve(config.DATA_DIR, 'uploads')}).`,
        'If another instance uses the same database, a file uploaded on one answers 404 on the other and',
        'a delete on the other leaves the bytes behind.',
        'Running several instances: set S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (and S3_ENDPOINT',
        'for a server other than AWS). One instance only: ignore this. REQUIRE_SHARED_STORAGE=true turns this',
        'warning into a refusal to start.',
      ].join('\n'),
    );
  }
  if (config.publicDeployment && !config.STRIPE_SECRET_KEY) {
    warnings.push(
      [
        `TEST MODE PAYMENTS ON A PUBLIC ADDRESS (${config.publicUrl}, HOST ${config.HOST}): BILLING=test, so anyone`,
        'who reaches this server can subscribe without paying through the built-in TEST MODE checkout.',
        'Set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (and unset BILLING) to take real payments.',
      ].join('\n'),
    );
  }
  if (config.publicDeployment && config.TEST_HOOKS) {
    warnings.push(
      [
        `TEST HOOKS ON A PUBLIC ADDRESS (${config.publicUrl}, HOST ${config.HOST}): any subscriber can push alerts to`,
        'every subscriber, and (without SMTP_URL) anyone can read every e-mailed link (verification, password reset) at',
        'GET /api/test/outbox. Unset TEST_HOOKS outside test runs.',
      ].join('\n'),
    );
  }
  return warnings;
}
