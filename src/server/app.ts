// buildApp(options): the whole HTTP application as a Fastify instance, without listening.
// main.ts listens; tests call buildApp and use app.inject or listen on a free port.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { createAuth, type Auth } from './auth/auth.ts';
import type { AuthRateLimitPolicy } from './auth/rateLimits.ts';
import { authRoutes } from './auth/routes.ts';
import { createAccessCache } from './auth/guards.ts';
import { resolveAuthSecret } from './auth/secret.ts';
import type { Config } from './config.ts';
import { migrationsFolder, type DatabaseHandle } from './db/client.ts';
import { installCsrfGuard } from './http/csrf.ts';
import { installErrorHandling } from './http/errors.ts';
import { loggerOptions } from './http/logging.ts';
import { installRequestGuards } from './http/requestGuards.ts';
import { installSecurityHeaders } from './http/security.ts';
import { registerSpa } from './http/spa.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { createRedis } from './redis.ts';
import { seedPlans } from './billing/plans.ts';
import type { PaymentProvider } from './billing/provider.ts';
import { billingRoutes } from './billing/routes.ts';
import { createTestCheckoutProvider, testCheckoutRoutes } from './billing/testCheckout.ts';
import { createStripeProvider, type StripeApiLocation } from './billing/stripe.ts';
import { stripeWebhookRoutes } from './billing/stripeWebhook.ts';
import { embedRoutes } from './embeds/routes.ts';
import { dashboardFeature, registerDashboardApi } from './http/dashboardApi.ts';
import { watchlistRoutes } from './watchlists/routes.ts';
import { promptRoutes, seedPrompts } from './prompts/routes.ts';
import { createCoinbaseProvider } from './market/coinbase.ts';
import { createDemoFeed } from './market/demoFeed.ts';
import { createQuoteService, type QuoteService } from './market/quotes.ts';
import { marketRoutes } from './market/routes.ts';
import type { MarketDataProvider } from './market/types.ts';
import { alertRoutes } from './alerts/routes.ts';
import { createAlertBus, type AlertBus } from './alerts/bus.ts';
import { alertStreamRoutes, alertTestHookRoutes } from './alerts/stream.ts';
import { aiRouteOptions, aiRoutes } from './ai/routes.ts';
import { fileRouteOptions, fileRoutes, sheetRoutes } from './files/routes.ts';
import {
  createFileStorage,
  createSheetNameReader,
  type FileStorage,
  type GoogleSheetsLocation,
} from './files/service.ts';

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  /** Folder of the built web app (dist/web); null serves the API only. */
  webRoot: string | null;
  /** Overrides the logger (tests pass false to keep output quiet). */
  logger?: boolean;
  /** Where the request log goes instead of stdout (the log-secrets test reads it). */
  logStream?: NodeJS.WritableStream;
  /** Overrides the auth rate limits (tests). */
  authRateLimits?: AuthRateLimitPolicy;
  /** Where the Stripe API lives (tests point it at a local fake). */
  stripeApi?: StripeApiLocation;
  /** Where Google Sheets lives (tests point it at a local fake; production always uses Google). */
  googleSheets?: GoogleSheetsLocation;
}

export interface AppServices {
  config: Config;
  database: DatabaseHandle;
  mailer: Mailer;
  auth: Auth;
  payments: PaymentProvider;
  quotes: QuoteService;
  market: { coinbase: MarketDataProvider; demo: MarketDataProvider };
  alertBus: AlertBus;
  /** My Stuff's file bytes: DATA_DIR/uploads or the S3 bucket. */
  fileStorage: FileStorage;
  redis?: Redis;
}

/** One registered route: the method and the URL pattern (`:id` parameters, `*` wildcards). */
export interface RouteEntry {
  method: string;
  url: string;
  /** Registered in the dashboard API scope (401 without a user, 403 without a subscription). */
  dashboard?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: AppServices;
    /** Every route of the app, in registration order (the API fuzz and security tests walk it). */
    routeTable: RouteEntry[];
  }
}

export type App = FastifyInstance;

function expectedMigrationCount(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/**
 * Fastify's trustProxy for TRUST_PROXY. A hop count becomes "trust the nearest N addresses"
 * (Fastify itself takes a bare number as trusting nothing).
 */
export function trustProxyOption(
  trust: Config['TRUST_PROXY'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config, database } = options;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : { ...loggerOptions(config), ...(options.logStream ? { stream: options.logStream } : {}) },
    // X-Forwarded-For is the client's to write: believe it only from the proxies TRUST_PROXY
    // names (by hop count or address), never by default.
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    bodyLimit: 1024 * 1024,
  }).withTypeProvider<ZodTypeProvider>();

  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routeTable.push({ method, url: route.url });
    }
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  installSecurityHeaders(app, config);
  installRequestGuards(app);
  installCsrfGuard(app, config.publicUrl);

  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL) : undefined;
  // With SMTP_URL, this instance also delivers the queued mail (stopped in onClose below).
  const mailer = await createMailer(config, database, app.log, { deliver: true });
  const auth = createAuth({ config, db: database.db, mailer, secret: resolveAuthSecret(config), log: app.log });
  await seedPlans(database.db, config);
  await seedPrompts(database.db);
  const stripePayments = config.STRIPE_SECRET_KEY ? createStripeProvider(database.db, config, options.stripeApi) : null;
  const payments: PaymentProvider = stripePayments ?? createTestCheckoutProvider(database.db, config.publicUrl);
  const market = {
    coinbase: createCoinbaseProvider({
      priceApiBase: config.COINBASE_PRICE_API_URL,
      exchangeApiBase: config.COINBASE_EXCHANGE_API_URL,
    }),
    demo: createDemoFeed(),
  };
  const quotes = createQuoteService({ mode: config.MARKET_DATA, ...market });
  const alertBus = createAlertBus(redis, config.DATABASE_URL, config.redisPrefix);
  const fileStorage = createFileStorage(config, app.log);
  const services: AppServices = {
    config,
    database,
    mailer,
    auth,
    payments,
    quotes,
    market,
    alertBus,
    fileStorage,
    redis,
  };
  app.decorate('services', services);
  app.addHook('onClose', async () => {
    await mailer.close();
    await alertBus.close();
    await fileStorage.close();
    redis?.disconnect();
  });

  const migrations = expectedMigrationCount();
  app.get('/healthz', async (_request, reply) => {
    try {
      const result = await database.db.execute<{ applied: number }>(
        sql`select count(*)::int as applied from drizzle.__drizzle_migrations`,
      );
      const applied = (result as unknown as { rows: Array<{ applied: number }> }).rows[0]?.applied ?? 0;
      if (applied < migrations) {
        return reply
          .code(503)
          .send({ status: 'starting', error: `Migrations pending: ${applied} of ${migrations} applied` });
      }
      return { status: 'ok' };
    } catch (error) {
      app.log.warn({ err: error }, 'health check failed');
      return reply.code(503).send({ status: 'unavailable', error: 'Database is not answering' });
    }
  });

  const accessCache = createAccessCache();
  await app.register(authRoutes, {
    auth,
    db: database.db,
    mailer,
    publicUrl: config.publicUrl,
    redis,
    keyPrefix: config.redisPrefix,
    rateLimits: options.authRateLimits,
    exposeOutbox: config.TEST_HOOKS,
    accessCache,
  });

  await app.register(billingRoutes, { db: database.db, auth, provider: payments, publicUrl: config.publicUrl });
  if (stripePayments) {
    await app.register(stripeWebhookRoutes, { db: database.db, provider: stripePayments });
  } else {
    await app.register(testCheckoutRoutes, { db: database.db, auth });
  }

  // Multipart bodies (uploads, chat attachments, prompts): one file a request, and the file
  // size limit enforced while streaming; routes may lower it.
  await app.register(multipart, {
    limits: { fileSize: config.UPLOAD_MAX_MB * 1024 * 1024, files: 1, fields: 20, fieldSize: 1024 * 1024, parts: 25 },
  });

  await registerDashboardApi(app, {
    auth,
    db: database.db,
    accessCache,
    features: [
      dashboardFeature(watchlistRoutes, { db: database.db }),
      dashboardFeature(embedRoutes, { config }),
      dashboardFeature(promptRoutes, { db: database.db }),
      dashboardFeature(marketRoutes, { quotes, db: database.db }),
      dashboardFeature(alertRoutes, { db: database.db }),
      dashboardFeature(alertStreamRoutes, { db: database.db, bus: alertBus, auth, accessCache }),
      dashboardFeature(aiRoutes, aiRouteOptions(services, app.log)),
      dashboardFeature(fileRoutes, fileRouteOptions(services)),
      dashboardFeature(sheetRoutes, {
        db: database.db,
        reader: createSheetNameReader({ apiKey: config.GOOGLE_API_KEY, location: options.googleSheets, log: app.log }),
      }),
      ...(config.TEST_HOOKS ? [dashboardFeature(alertTestHookRoutes, { db: database.db, bus: alertBus })] : []),
    ],
  });

  await registerSpa(app, options.webRoot);
  return app;
}
