// buildApp(options): the whole HTTP application as a Fastify instance, without listening.
// main.ts listens; tests call buildApp and use app.inject or listen on a free port.
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { Gauge, Histogram, type Registry } from 'prom-client';
import { authRoutes } from './auth/routes.ts';
import {
  createAuth,
  createSessionChanges,
  createSubscriptionAccess,
  dashboardFeature,
  registerDashboardApi,
  resolveAuthSecret,
  type Auth,
  type AuthRateLimitPolicy,
} from './auth/service.ts';
import type { Config } from './config.ts';
import { appliedMigrationCount, expectedMigrationCount, type DatabaseHandle } from './db/client.ts';
import { compression } from './http/compression.ts';
import { csrfGuard } from './http/csrf.ts';
import { errorHandling } from './http/errors.ts';
import { loggerOptions } from './http/logging.ts';
import { createLiveMetrics, createMetricsRegistry, METRICS_PREFIX, metrics, type LiveMetrics } from './http/metrics.ts';
import { rateLimits } from './http/rateLimit.ts';
import { requestGuards } from './http/requestGuards.ts';
import { securityHeaders } from './http/security.ts';
import { serverTimeoutOptions } from './http/timeouts.ts';
import { registerSpa } from './http/spa.ts';
import { createMailer, type Mailer } from './mail/service.ts';
import { createRedis } from './redis.ts';
import { currentSubscription, seedPlans, type PaymentProvider } from './billing/service.ts';
import {
  billingRoutes,
  createStripeProvider,
  createTestCheckoutProvider,
  stripeWebhookRoutes,
  testCheckoutRoutes,
  type StripeApiLocation,
} from './billing/routes.ts';
import { embedRoutes } from './embeds/routes.ts';
import { watchlistRoutes } from './watchlists/routes.ts';
import { symbolRoutes } from './symbols/routes.ts';
import { promptRoutes } from './prompts/routes.ts';
import { seedPrompts } from './prompts/service.ts';
import {
  createCoinbaseProvider,
  createDemoFeed,
  createMarketRouter,
  createQuoteService,
  createYahooProvider,
  latestCandles,
  type MarketRouterWithPin,
  type QuoteService,
} from './market/service.ts';
import { marketRoutes } from './market/routes.ts';
import { alertRoutes, alertStreamRoutes, alertTestHookRoutes, createRecentAlertLog } from './alerts/routes.ts';
import { alertsSince, createAlertBus, createStreamRegistry, latestAlertsOf, type AlertBus } from './alerts/service.ts';
import { liveRoutes, liveTestHookRoutes } from './live/routes.ts';
import type { LivePath } from './live/service.ts';
import { aiRoutes } from './ai/routes.ts';
import { alertRuleRoutes, alertRuleTestHookRoutes } from './rules/routes.ts';
import { studyRoutes } from './studies/routes.ts';
import { createStudyPool, createStudyService, recordRuleForecasts, studyHistoryReader } from './studies/service.ts';
import {
  createPushSender,
  createRuleEvaluator,
  createRulesRuntime,
  deliveryCounts,
  deliveryPolicy,
  firingsAfter,
  lazyDeliveryQueue,
  openDeliveryQueue,
  recordStatedOdds,
  resolveVapidKeys,
  type DeliveryQueue,
  type RulesRuntime,
} from './rules/service.ts';
import { createAiRouteOptions } from './ai/service.ts';
import { scanRoutes } from './scans/routes.ts';
import {
  createScanEngine,
  createScanEntryEvaluator,
  createScanService,
  storedAlerts,
  storedCandleSource,
  storedScans,
} from './scans/service.ts';
import { createMarketAnalysis } from './analysis/service.ts';
import {
  createBacktestAdmission,
  createBacktestPool,
  createForecastService,
  defaultBacktestThreads,
  type BacktestPool,
  type ForecastService,
} from './forecasts/service.ts';
import { trackRecordRoutes, trackRecordTestHookRoutes } from './forecasts/routes.ts';
import { fileRouteOptions, fileRoutes, sheetRoutes } from './files/routes.ts';
import {
  createFileStorage,
  createSheetNameReader,
  type FileStorage,
  type GoogleSheetsLocation,
} from './files/service.ts';
import { healthOk, healthUnavailable } from '../shared/schemas/health.ts';

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

interface AppServices {
  config: Config;
  database: DatabaseHandle;
  mailer: Mailer;
  auth: Auth;
  payments: PaymentProvider;
  quotes: QuoteService;
  /** Every asset class's market data: Coinbase, Yahoo Finance and the demo feed behind one router. */
  market: MarketRouterWithPin;
  alertBus: AlertBus;
  /** My Stuff's file bytes: DATA_DIR/uploads or the S3 bucket. */
  fileStorage: FileStorage;
  /** The users' alert rules as the alert engine runs them (main.ts hands it to the engine). */
  rules: RulesRuntime;
  /** The durable queue delivering rule firings by e-mail, push and webhook (worked by every instance). */
  deliveries: DeliveryQueue;
  /** The track record: records every WATOS statement; the engine on shard 0's holder resolves them. */
  forecasts: ForecastService;
  /** The worker threads the track record's backtests run in (forecasts/backtestPool.ts). */
  backtestPool: BacktestPool;
  /** This instance's live path (feeds, ticks, tick rules): main.ts starts it once the sources are pinned. */
  live: { path: LivePath | null };
  /** GET /metrics's registry and the live path's counters, when METRICS_TOKEN is set. */
  metrics: { registry: Registry; live?: LiveMetrics } | null;
  redis?: Redis;
}

/** One registered route: the method and the URL pattern (`:id` parameters, `*` wildcards). */
interface RouteEntry {
  method: string;
  url: string;
  /** Registered in the dashboard API scope (401 without a user, 403 without a subscription). */
  dashboard?: boolean;
  /** The status codes whose body the route declares with a (zod) response schema. */
  responseCodes: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    services: AppServices;
    /** Every route of the app, in registration order (the API fuzz and security tests walk it). */
    routeTable: RouteEntry[];
  }
}

export type App = FastifyInstance;

/**
 * Fastify's trustProxy for TRUST_PROXY. A hop count becomes "trust the nearest N addresses"
 * (Fastify itself takes a bare number as trusting nothing).
 */
function trustProxyOption(
  trust: Config['TRUST_PROXY'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

/** The rules runtime with each engine pass's evaluation (and recording) timed in the registry. */
function timedRulePasses(runtime: RulesRuntime, registry: Registry): RulesRuntime {
  const passDuration = new Histogram({
    name: `${METRICS_PREFIX}rule_pass_duration_seconds`,
    help: "Time to evaluate one engine pass's updates against the alert rules and record what fired",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    ...runtime,
    async onPass(updates) {
      const end = passDuration.startTimer();
      try {
        return await runtime.onPass(updates);
      } finally {
        end();
      }
    },
  };
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
    // Node's headers and whole-request timeouts; idle and slow bodies: main.ts (http/timeouts.ts).
    ...serverTimeoutOptions(config.httpTimeouts),
  }).withTypeProvider<ZodTypeProvider>();

  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD')
        routeTable.push({ method, url: route.url, responseCodes: Object.keys(route.schema?.response ?? {}) });
    }
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL) : undefined;
  await app.register(errorHandling);
  await app.register(securityHeaders, config);
  await app.register(compression);
  await app.register(requestGuards);
  await app.register(csrfGuard, { publicUrl: config.publicUrl });
  // Counted in Redis under the deployment's namespace when configured, in memory otherwise.
  await app.register(rateLimits, { redis, nameSpace: config.redisPrefix });
  // GET /metrics and the request timing, only with METRICS_TOKEN (one registry per app).
  const metricsRegistry = config.METRICS_TOKEN ? createMetricsRegistry() : null;
  await app.register(metrics, { token: config.METRICS_TOKEN, registry: metricsRegistry });

  // With SMTP_URL, this instance also delivers the queued mail (stopped in onClose below).
  const mailer = await createMailer(config, database, app.log, { deliver: true });
  // Successful sign-outs and revocations in this process: cached sessions and grants go stale.
  const sessionChanges = createSessionChanges();
  const auth = createAuth({
    config,
    db: database.db,
    mailer,
    secret: resolveAuthSecret(config),
    log: app.log,
    sessionChanges,
  });
  await seedPlans(database.db, config);
  await seedPrompts(database.db);
  const stripePayments = config.STRIPE_SECRET_KEY ? createStripeProvider(database.db, config, options.stripeApi) : null;
  const payments: PaymentProvider = stripePayments ?? createTestCheckoutProvider(database.db, config.publicUrl);
  const coinbase = createCoinbaseProvider({
    priceApiBase: config.COINBASE_PRICE_API_URL,
    exchangeApiBase: config.COINBASE_EXCHANGE_API_URL,
  });
  const demo = createDemoFeed();
  const market = createMarketRouter({
    mode: config.MARKET_DATA,
    coinbase,
    yahoo: createYahooProvider({ apiBase: config.YAHOO_API_URL }),
    demo,
  });
  const quotes = createQuoteService({
    mode: config.MARKET_DATA,
    coinbase,
    demo,
    cacheMs: config.EXCHANGE_QUOTE_CACHE_SECONDS * 1000,
  });
  const alertBus = createAlertBus(redis, config.DATABASE_URL, config.redisPrefix);
  // The alert log's last two hours in memory, current with every instance's saves.
  const recentAlerts = createRecentAlertLog({
    db: database.db,
    bus: alertBus,
    onError: (error) => app.log.warn({ err: error }, 'recent alert log: could not read new alerts'),
  });
  const fileStorage = createFileStorage(config, app.log);
  // Alert rules: webhooks and push endpoints on private addresses only on a loopback deployment.
  const allowPrivateTargets = !config.publicDeployment;
  const vapid = resolveVapidKeys(config);
  const deliveries = lazyDeliveryQueue(() =>
    openDeliveryQueue({
      database,
      mailer,
      log: app.log,
      policy: deliveryPolicy(config),
      webhook: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets },
      push: createPushSender(vapid, { allowPrivateTargets }),
      publicUrl: config.publicUrl,
      work: true,
    }),
  );
  // Market analysis: candle series, summaries and WATOS cards, cached, built once and shared by
  // the assistant, the alert rules and the track record (none of them builds its own).
  const analysis = createMarketAnalysis({ market });
  // The track record's backtest walks the grid's own bars from market analysis.
  // Its walk-forward runs in worker threads, bounded per user and in all (issue 33).
  const backtestPool = createBacktestPool({
    threads: config.BACKTEST_WORKERS ?? defaultBacktestThreads(),
    maxQueue: config.BACKTEST_QUEUE_MAX,
  });
  // Setup studies (issue 36) run in worker threads of their own, bounded like the backtests.
  const studyPool = createStudyPool({
    threads: config.BACKTEST_WORKERS ?? defaultBacktestThreads(),
    maxQueue: config.BACKTEST_QUEUE_MAX,
  });
  const studies = createStudyService({
    db: database.db,
    pool: studyPool,
    readHistory: studyHistoryReader(market, Date.now, (task) => studyPool.demoHistory(task)),
    log: app.log,
  });
  const forecasts = createForecastService({
    db: database.db,
    log: app.log,
    sourceOf: (productId) => market.sourceOf(productId),
    analysis,
    backtestPool,
  });
  // The scanner: the universe's series held in memory from the candle store, shared by scans
  // run over HTTP, the assistant, and the scan-entry rules on the engine's pass.
  const scanEngine = createScanEngine({
    source: storedCandleSource(database.db),
    alertsSince: storedAlerts(database.db),
  });
  const scans = createScanService({
    db: database.db,
    engine: scanEngine,
    ruleLimits: { maxActive: config.ALERT_RULES_MAX_ACTIVE, maxTotal: config.ALERT_RULES_MAX_TOTAL },
  });
  const rulesRuntime = createRulesRuntime({
    db: database.db,
    bus: alertBus,
    evaluator: createRuleEvaluator({
      history: (productId, granularity, limit) => latestCandles(database.db, productId, granularity, limit),
    }),
    enqueue: (ids) => deliveries.enqueue(ids),
    log: app.log,
    // A WATOS-odds alert states an edge: the odds behind it go to the track record like the grid's.
    onStatedOdds: recordStatedOdds(analysis, forecasts),
    // Every firing of a trader's rule states its setup's studied odds in the trader's own record.
    onRuleFirings: recordRuleForecasts({ study: (request) => studies.study(request), forecasts, log: app.log }),
    scanEntries: createScanEntryEvaluator({ engine: scanEngine, loadScans: storedScans(database.db) }),
  });
  const rules = metricsRegistry ? timedRulePasses(rulesRuntime, metricsRegistry) : rulesRuntime;
  // The alert streams open in this process, and the delivery queue from its table, read when scraped.
  const openStreams = { open: 0 };
  if (metricsRegistry) {
    new Gauge({
      name: `${METRICS_PREFIX}alert_streams_open`,
      help: 'Live alert streams (server-sent events) open in this process',
      registers: [metricsRegistry],
      collect() {
        this.set(openStreams.open);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}rule_deliveries`,
      help: 'Rule deliveries queued (pending, retrying) and failed for good in the last 24 hours (failed_last_day)',
      labelNames: ['status'],
      registers: [metricsRegistry],
      async collect() {
        try {
          const counts = await deliveryCounts(database.db);
          this.set({ status: 'pending' }, counts.pending);
          this.set({ status: 'retrying' }, counts.retrying);
          this.set({ status: 'failed_last_day' }, counts.failedLastDay);
        } catch (error) {
          // The other metrics still answer; the gauge keeps its last reading.
          app.log.warn({ err: error }, 'metrics: could not count the rule deliveries');
        }
      },
    });
  }
  const aiOptions = createAiRouteOptions({
    config,
    db: database.db,
    analysis,
    fileStorage,
    log: app.log,
    forecasts,
    studies,
    runScan: (request) => scans.run(request),
  });
  // The dashboard gate's subscription check, by the user id Better Auth verified (auth/guards.ts).
  const subscriptionAccess = createSubscriptionAccess((userId) => currentSubscription(database.db, userId));
  sessionChanges.onChange(() => subscriptionAccess.clear());
  const live: AppServices['live'] = { path: null };
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
    rules,
    deliveries,
    forecasts,
    backtestPool,
    live,
    metrics: null,
    redis,
  };
  app.decorate('services', services);
  app.addHook('onClose', async () => {
    recentAlerts.close();
    await deliveries.close();
    await forecasts.close();
    await backtestPool.close();
    await studyPool.close();
    await mailer.close();
    await alertBus.close();
    await fileStorage.close();
    redis?.disconnect();
  });

  const migrations = expectedMigrationCount();
  const healthSchema = { response: { 200: healthOk, 503: healthUnavailable } };
  app.get('/healthz', { schema: healthSchema }, async (_request, reply) => {
    try {
      const applied = await appliedMigrationCount(database.db);
      if (applied < migrations) {
        return reply
          .code(503)
          .send({ status: 'starting', error: `Migrations pending: ${applied} of ${migrations} applied` });
      }
      return { status: 'ok' as const };
    } catch (error) {
      app.log.warn({ err: error }, 'health check failed');
      return reply.code(503).send({ status: 'unavailable', error: 'Database is not answering' });
    }
  });

  await app.register(authRoutes, {
    auth,
    db: database.db,
    mailer,
    publicUrl: config.publicUrl,
    rateLimits: options.authRateLimits,
    exposeOutbox: config.TEST_HOOKS,
    currentSubscription: (userId: string) => currentSubscription(database.db, userId),
    sessionChanges,
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

  // One registry for both event streams: the per-user cap and the re-checks cover either kind.
  const eventStreams = createStreamRegistry({ db: database.db, log: app.log, sessionChanges, count: openStreams });
  // The live path's counters (GET /metrics), one set for the hub and the tick publisher.
  const liveMetrics = metricsRegistry ? createLiveMetrics(metricsRegistry) : undefined;
  if (metricsRegistry) services.metrics = { registry: metricsRegistry, live: liveMetrics };
  await registerDashboardApi(app, {
    auth,
    subscriptionAccess,
    features: [
      dashboardFeature(watchlistRoutes, { db: database.db }),
      dashboardFeature(symbolRoutes, {}),
      dashboardFeature(embedRoutes, { config }),
      dashboardFeature(promptRoutes, { db: database.db }),
      dashboardFeature(marketRoutes, {
        quotes,
        db: database.db,
        alertsSince: (ticker, since) => alertsSince(database.db, ticker, since),
        latestAlerts: (tickers) => latestAlertsOf(database.db, tickers),
      }),
      dashboardFeature(alertRoutes, { db: database.db, recent: recentAlerts }),
      dashboardFeature(alertStreamRoutes, {
        db: database.db,
        bus: alertBus,
        registry: eventStreams,
        firingsAfter: (userId, lastId) => firingsAfter(database.db, userId, lastId),
      }),
      // The one live connection of a tab (issue 34): ticks, alerts and rule firings.
      dashboardFeature(liveRoutes, {
        db: database.db,
        bus: alertBus,
        registry: eventStreams,
        firingsAfter: (userId, lastId) => firingsAfter(database.db, userId, lastId),
        metrics: liveMetrics,
      }),
      dashboardFeature(alertRuleRoutes, {
        db: database.db,
        limits: {
          maxActive: config.ALERT_RULES_MAX_ACTIVE,
          maxTotal: config.ALERT_RULES_MAX_TOTAL,
          allowPrivateTargets,
        },
        vapidPublicKey: vapid.publicKey,
        webhookTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      }),
      dashboardFeature(aiRoutes, aiOptions),
      dashboardFeature(scanRoutes, { scans }),
      dashboardFeature(trackRecordRoutes, {
        forecasts,
        admitBacktest: createBacktestAdmission(app, {
          perMinute: config.BACKTEST_RATE_LIMIT_PER_MINUTE,
          concurrentPerUser: config.BACKTEST_CONCURRENT_PER_USER,
        }),
      }),
      dashboardFeature(studyRoutes, {
        studies,
        admit: createBacktestAdmission(app, {
          perMinute: config.BACKTEST_RATE_LIMIT_PER_MINUTE,
          concurrentPerUser: config.BACKTEST_CONCURRENT_PER_USER,
          noun: { one: 'study', many: 'studies' },
        }),
      }),
      dashboardFeature(fileRoutes, fileRouteOptions(services)),
      dashboardFeature(sheetRoutes, {
        db: database.db,
        reader: createSheetNameReader({ apiKey: config.GOOGLE_API_KEY, location: options.googleSheets, log: app.log }),
      }),
      ...(config.TEST_HOOKS
        ? [
            dashboardFeature(alertTestHookRoutes, { db: database.db, bus: alertBus }),
            dashboardFeature(alertRuleTestHookRoutes, { runtime: rules }),
            dashboardFeature(liveTestHookRoutes, {
              owner: () => live.path?.owner ?? null,
              syncRules: () => rules.sync(),
              flushTicks: () => rules.flushTicks(),
            }),
            dashboardFeature(trackRecordTestHookRoutes, { db: database.db, forecasts }),
          ]
        : []),
    ],
  });

  await registerSpa(app, options.webRoot);
  return app;
}
