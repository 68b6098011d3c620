// Every environment variable the server reads, in one zod schema with its default.
// A bad value stops start-up with a message that names the variable.
import { resolve } from 'node:path';
import { z } from 'zod';
import { COINBASE_EXCHANGE_API, COINBASE_PRICE_API } from './market/coinbase.ts';

const optionalUrl = z.url().optional();
const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Public origin of the app (links in e-mails, Stripe return URLs, auth origin check). */
  PUBLIC_URL: optionalUrl,
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  /** Test-only hooks (the outbox at GET /api/test/outbox, POST /api/test/alerts). Never in production. */
  TEST_HOOKS: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),

  DATABASE_URL: z.preprocess(emptyToUndefined, z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional()),
  REDIS_URL: z.preprocess(emptyToUndefined, z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional()),

  AUTH_SECRET: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  SMTP_URL: z.preprocess(emptyToUndefined, z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional()),
  MAIL_FROM: z.string().min(3).default('WATOS Dashboard <no-reply@localhost>'),

  STRIPE_SECRET_KEY: z.preprocess(emptyToUndefined, z.string().startsWith('sk_').optional()),
  STRIPE_WEBHOOK_SECRET: z.preprocess(emptyToUndefined, z.string().startsWith('whsec_').optional()),
  STRIPE_PUBLISHABLE_KEY: z.preprocess(emptyToUndefined, z.string().startsWith('pk_').optional()),
  STRIPE_PRICE_LIVE_TEST: z.preprocess(emptyToUndefined, z.string().startsWith('price_').optional()),
  STRIPE_PRICE_THREE_DAY: z.preprocess(emptyToUndefined, z.string().startsWith('price_').optional()),
  STRIPE_PRICE_MONTHLY: z.preprocess(emptyToUndefined, z.string().startsWith('price_').optional()),

  MARKET_DATA: z.enum(['auto', 'coinbase', 'demo']).default('auto'),
  /** Coinbase's public API hosts; change only to go through an egress proxy or mirror. */
  COINBASE_PRICE_API_URL: z.preprocess(emptyToUndefined, z.url().default(COINBASE_PRICE_API)),
  COINBASE_EXCHANGE_API_URL: z.preprocess(emptyToUndefined, z.url().default(COINBASE_EXCHANGE_API)),

  LLM_BASE_URL: z.preprocess(emptyToUndefined, optionalUrl),
  LLM_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  LLM_MODEL: z.preprocess(emptyToUndefined, z.string().optional()),
  /** AI assistant: chat and prompt calls a user may make per minute, and the attached-file limits. */
  AI_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(20),
  AI_FILE_MAX_MB: z.coerce.number().positive().max(1024).default(10),
  AI_FILE_MAX_ROWS: z.coerce.number().int().min(10).max(10_000_000).default(50_000),
  /** Time budget of reading one spreadsheet (My Stuff preview, the assistant's file analysis, sheet names); past it the read is stopped and refused. */
  SHEET_READ_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(600_000).default(10_000)),

  S3_ENDPOINT: z.preprocess(emptyToUndefined, optionalUrl),
  S3_BUCKET: z.preprocess(emptyToUndefined, z.string().optional()),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  S3_SECRET_ACCESS_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  UPLOAD_MAX_MB: z.coerce.number().positive().max(1024).default(25),

  GOOGLE_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  SPREADSHEET_EMBED_URL: z.preprocess(emptyToUndefined, optionalUrl),
  DEMO_TRADING_EMBED_URL: z.preprocess(emptyToUndefined, optionalUrl),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  /** Absolute data directory. */
  dataDir: string;
  /** Origin the browser sees; defaults to http://HOST:PORT. */
  publicUrl: string;
  /** Which embedded defaults stand in for outside services (printed at start-up). */
  embedded: string[];
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
    throw new ConfigError(`Invalid configuration:\n  ${missing.join(', ')}: required when any S3_* storage variable is set`);
  }
  if (values.STRIPE_SECRET_KEY && !values.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError('Invalid configuration:\n  STRIPE_WEBHOOK_SECRET: required when STRIPE_SECRET_KEY is set');
  }
  if (values.LLM_BASE_URL && !values.LLM_MODEL) {
    throw new ConfigError('Invalid configuration:\n  LLM_MODEL: required when LLM_BASE_URL is set (e.g. gpt-4o-mini, llama3.1)');
  }

  const host = values.HOST === '0.0.0.0' || values.HOST === '::' ? '127.0.0.1' : values.HOST;
  const publicUrl = (values.PUBLIC_URL ?? `http://${host}:${values.PORT}`).replace(/\/$/, '');
  const embedded: string[] = [];
  if (!values.DATABASE_URL) embedded.push('database: PGlite in DATA_DIR/db');
  if (!values.SMTP_URL) embedded.push('e-mail: outbox (links printed to this log)');
  if (!values.STRIPE_SECRET_KEY) embedded.push('payments: built-in TEST MODE checkout');
  if (!values.LLM_BASE_URL) embedded.push('AI assistant: built-in analyst (no LLM)');
  if (values.MARKET_DATA !== 'coinbase') embedded.push(`market data: ${values.MARKET_DATA === 'demo' ? 'demo feed' : 'Coinbase, demo feed when unreachable'}`);
  if (!values.REDIS_URL) embedded.push('rate limits and live fan-out: in-process');
  if (!values.S3_BUCKET) embedded.push('file storage: DATA_DIR/uploads');

  return { ...values, dataDir: resolve(values.DATA_DIR), publicUrl, embedded };
}
