// The durable delivery queue of alert rules (issue 16). A firing's deliveries are rows of
// rule_deliveries (one per firing and channel) written with the firing; `enqueue` then puts
// one pg-boss job per row on the 'rule-delivery' queue, and a worker in the server sends it:
// e-mail through the Mailer, Web Push to every browser the user subscribed, the webhook
// signed with the user's secret. Every attempt is written back to the row (attempts, status,
// last error, delivered time and latency), which is the user's delivery log.
//
// Retries are pg-boss's: retryLimit, retryDelay with exponential backoff (delay x 2^n, with
// up to 100% random jitter), and a dead letter queue ('rule-delivery-dead') that keeps a copy
// of every delivery that failed for good. A failure that no retry can fix (a 4xx, a refused
// URL) sets the job's retry limit to its retry count before failing it, so pg-boss files it
// as failed at once (and dead-letters it) instead of retrying.
//
// Exactly once per channel, as far as a network allows:
// - the job id is derived from the delivery id, so enqueueing a delivery twice (a retry of
//   the caller, the sweep after a restart) finds the job already there and adds nothing;
// - the worker reads the row first and does nothing when it is delivered, failed or skipped;
// - the row is written before pg-boss completes the job, so a crash in between re-runs the
//   attempt only if the row still says it is due.
// A crash after the receiver got the request but before the row was written does send it
// again on the retry: the X-Watos-Delivery header (the same on every retry) lets a receiver
// drop the repeat.
import type PgBoss from 'pg-boss';
import { and, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Database, DatabaseHandle } from '../db/client.ts';
import { alertRules, ruleDeliveries, ruleFirings, user, webhookSecrets } from '../db/schema.ts';
import { BOSS_SCHEMA, sqlExecutor, startBoss } from '../jobs/boss.ts';
import type { Mailer } from '../mail/service.ts';
import {
  describeCondition,
  type DeliveryStatus,
  type RuleChannel,
  type RuleCondition,
  type RuleTimeframe,
} from '../../shared/schemas/alertRules.ts';
import { resolveSymbol } from '../../shared/symbols.ts';
import { listPushSubscriptions, removeGoneSubscription, type PushSender } from './push.ts';
import { getOrCreateWebhookSecret, postWebhook } from './webhook.ts';
import { isScanEntryCondition } from './types.ts';

export const DELIVERY_QUEUE = 'rule-delivery';
export const DELIVERY_DEAD_LETTER_QUEUE = 'rule-delivery-dead';
/** An attempt still running after this is failed by pg-boss (the instance died) and retried. */
const ATTEMPT_EXPIRE_SECONDS = 5 * 60;
/** Pending rows older than this are not sent any more by the sweep: the alert is stale. */
const SWEEP_MAX_AGE_HOURS = 24;
const PUSH_TTL_SECONDS = 3600;

export interface DeliveryPolicy {
  /** Retries after the first attempt (pg-boss retryLimit). */
  retryLimit: number;
  /** Delay before the first retry; each later one doubles it (with jitter). 0: retry at once, no backoff (tests). */
  baseDelaySeconds: number;
  /** How often an idle worker looks for due deliveries (at least 0.5). */
  pollSeconds: number;
  /** Deliveries sent at once by this process; default 32. */
  concurrency?: number;
  /** pg-boss workers sharing that concurrency (each fetches concurrency / workers jobs at a time); default 2. */
  workers?: number;
}

export function deliveryPolicy(config: Config): DeliveryPolicy {
  return {
    retryLimit: config.DELIVERY_RETRY_LIMIT,
    baseDelaySeconds: config.DELIVERY_RETRY_BASE_SECONDS,
    pollSeconds: Math.max(0.5, Math.min(2, config.DELIVERY_RETRY_BASE_SECONDS)),
  };
}

interface DeliveryLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface DeliveryQueue {
  /** Queues deliveries already inserted in rule_deliveries (status pending); idempotent per id. */
  enqueue(deliveryIds: number[]): Promise<void>;
  /**
   * Re-queues pending deliveries whose job is missing (a crash between commit and enqueue);
   * returns how many. Pending rows older than a day are marked failed instead (too late to
   * send), and rows whose job pg-boss failed for good while they still say pending/retrying
   * (the instance died during the last attempt) are marked failed. Run it when the server
   * starts (after opening the queue); it is cheap enough to run every few minutes too.
   */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

export interface DeliveryQueueOptions {
  database: DatabaseHandle;
  mailer: Mailer;
  log: DeliveryLog;
  policy: DeliveryPolicy;
  webhook: { timeoutMs: number; allowPrivateTargets: boolean };
  push: PushSender;
  /** The dashboard's public address, for the link in e-mails. */
  publicUrl: string;
  /** Run workers in this process (the server); false: enqueue only. */
  work: boolean;
}

interface DeliveryJob {
  deliveryId: number;
}

const JOB_ID_PREFIX = 'd0000000-0000-4000-8000-';
/** The pg-boss job id of a delivery: fixed per delivery id, so a second enqueue adds nothing. */
export function deliveryJobId(deliveryId: number): string {
  return `${JOB_ID_PREFIX}${deliveryId.toString(16).padStart(12, '0')}`;
}

const FINAL_STATUSES = ['delivered', 'failed', 'skipped'];

/** What one attempt came to. */
type Outcome =
  | { kind: 'delivered'; target: string }
  | { kind: 'skipped'; target: string; error: string }
  | { kind: 'failed'; target: string; error: string; retryable: boolean };

interface DeliveryContext {
  id: number;
  channel: RuleChannel;
  status: DeliveryStatus;
  target: string;
  userId: string;
  email: string;
  firingId: number;
  firedAt: Date;
  barTime: Date;
  price: number;
  message: string;
  source: string;
  ruleId: number;
  ruleName: string;
  symbol: string;
  timeframe: RuleTimeframe;
  condition: RuleCondition;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 100);
  }
}

function formatPrice(price: number): string {
  return price.toLocaleString('en-US', { maximumFractionDigits: price >= 1 ? 4 : 8 });
}

function formatTime(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function describe(context: DeliveryContext, ticker: string): string {
  try {
    // A scan-entry rule's condition is a saved scan: its name says it.
    if (isScanEntryCondition(context.condition)) return context.ruleName;
    return describeCondition(context.condition, ticker);
  } catch {
    return context.ruleName;
  }
}

export async function openDeliveryQueue(options: DeliveryQueueOptions): Promise<DeliveryQueue> {
  const { database, mailer, log, policy, push, publicUrl } = options;
  const { db } = database;
  const boss = await startBoss(database, log, { supervise: options.work });
  const executor = sqlExecutor(database);
  await boss.createQueue(DELIVERY_DEAD_LETTER_QUEUE);
  await boss.createQueue(DELIVERY_QUEUE, { name: DELIVERY_QUEUE, deadLetter: DELIVERY_DEAD_LETTER_QUEUE });
  const dashboardUrl = `${publicUrl.replace(/\/$/, '')}/dashboard`;

  /** The rows of a batch with their firing, rule, user and webhook secret, in one query. */
  async function load(deliveryIds: number[]): Promise<Map<number, DeliveryContext>> {
    const rows = await db
      .select({
        id: ruleDeliveries.id,
        channel: ruleDeliveries.channel,
        status: ruleDeliveries.status,
        target: ruleDeliveries.target,
        userId: ruleDeliveries.userId,
        email: user.email,
        firingId: ruleFirings.id,
        firedAt: ruleFirings.firedAt,
        barTime: ruleFirings.barTime,
        price: ruleFirings.price,
        message: ruleFirings.message,
        source: ruleFirings.source,
        ruleId: alertRules.id,
        ruleName: alertRules.name,
        // The firing's symbol: the rule's, or for a scan-entry rule (symbol '*') the one that entered.
        symbol: ruleFirings.symbol,
        timeframe: alertRules.timeframe,
        condition: alertRules.condition,
        webhookUrl: alertRules.webhookUrl,
        webhookSecret: webhookSecrets.secret,
      })
      .from(ruleDeliveries)
      .innerJoin(ruleFirings, eq(ruleFirings.id, ruleDeliveries.firingId))
      .innerJoin(alertRules, eq(alertRules.id, ruleFirings.ruleId))
      .innerJoin(user, eq(user.id, ruleDeliveries.userId))
      .leftJoin(webhookSecrets, eq(webhookSecrets.userId, ruleDeliveries.userId))
      .where(inArray(ruleDeliveries.id, deliveryIds));
    return new Map(rows.map((row) => [row.id, row]));
  }

  async function sendEmail(context: DeliveryContext, ticker: string): Promise<Outcome> {
    const target = context.email;
    const description = describe(context, ticker);
    const lines = [
      context.message,
      '',
      `Rule: ${context.ruleName} (${description})`,
      `Price: ${formatPrice(context.price)}`,
      `Time: ${formatTime(context.barTime)}`,
      '',
      `Open the dashboard: ${dashboardUrl}`,
      '',
      'You get this e-mail because the rule sends its alerts by e-mail; change its channels on the dashboard.',
    ];
    const html = `<p>${escapeHtml(context.message)}</p>
<table cellpadding="4">
<tr><td>Rule</td><td>${escapeHtml(context.ruleName)} (${escapeHtml(description)})</td></tr>
<tr><td>Price</td><td>${escapeHtml(formatPrice(context.price))}</td></tr>
<tr><td>Time</td><td>${escapeHtml(formatTime(context.barTime))}</td></tr>
</table>
<p><a href="${escapeHtml(dashboardUrl)}">Open the dashboard</a></p>
<p style="color:#666">You get this e-mail because the rule sends its alerts by e-mail; change its channels on the dashboard.</p>`;
    try {
      await mailer.send({
        to: target,
        subject: `Alert: ${context.ruleName} — ${ticker}`,
        text: lines.join('\n'),
        html,
      });
      return { kind: 'delivered', target };
    } catch (error) {
      return { kind: 'failed', target, error: `E-mail not sent: ${errorText(error)}`, retryable: true };
    }
  }

  async function sendPush(context: DeliveryContext, ticker: string): Promise<Outcome> {
    const subscriptions = await listPushSubscriptions(db, context.userId);
    const none = 'No browser is subscribed to push alerts';
    if (subscriptions.length === 0) return { kind: 'skipped', target: '', error: none };
    const payload = {
      title: `Alert: ${context.ruleName} — ${ticker}`,
      body: context.message,
      url: '/dashboard',
      tag: `rule-${context.ruleId}`,
      firingId: context.firingId,
    };
    const results = await Promise.all(
      subscriptions.map((subscription) => push.send(subscription, payload, { ttlSeconds: PUSH_TTL_SECONDS })),
    );
    let sent = 0;
    let gone = 0;
    const failures: Array<{ error: string; retryable: boolean }> = [];
    for (const [index, result] of results.entries()) {
      if (result.ok) sent += 1;
      else if (result.gone) {
        gone += 1;
        await removeGoneSubscription(db, context.userId, subscriptions[index]!.endpoint);
      } else failures.push({ error: result.error ?? 'Push not sent', retryable: result.retryable });
    }
    const browsers = (count: number) => `${count} browser${count === 1 ? '' : 's'}`;
    if (sent > 0) return { kind: 'delivered', target: browsers(sent) };
    if (failures.length === 0)
      return {
        kind: 'skipped',
        target: '',
        error: `${none} (the push service reported ${browsers(gone)} unsubscribed)`,
      };
    return {
      kind: 'failed',
      target: browsers(subscriptions.length - gone),
      error: failures[0]!.error,
      retryable: failures.some((failure) => failure.retryable),
    };
  }

  async function sendWebhook(context: DeliveryContext, ticker: string): Promise<Outcome> {
    const url = context.webhookUrl;
    if (!url) return { kind: 'failed', target: '', error: 'The rule has no webhook URL', retryable: false };
    const target = hostOf(url);
    const deliveryId = `${context.firingId}-webhook`;
    const body = JSON.stringify({
      deliveryId,
      firingId: context.firingId,
      rule: { id: context.ruleId, name: context.ruleName, description: describe(context, ticker) },
      symbol: context.symbol,
      ticker,
      timeframe: context.timeframe,
      price: context.price,
      time: context.barTime.toISOString(),
      firedAt: context.firedAt.toISOString(),
      message: context.message,
      source: context.source,
    });
    const secret = context.webhookSecret ?? (await getOrCreateWebhookSecret(db, context.userId));
    const result = await postWebhook(url, body, { secret, deliveryId, ...options.webhook });
    if (result.ok) return { kind: 'delivered', target };
    return { kind: 'failed', target, error: result.error ?? 'Webhook not delivered', retryable: result.retryable };
  }

  async function deliver(context: DeliveryContext): Promise<Outcome> {
    const ticker = resolveSymbol(context.symbol)?.ticker ?? context.symbol;
    switch (context.channel) {
      case 'email':
        return sendEmail(context, ticker);
      case 'push':
        return sendPush(context, ticker);
      case 'webhook':
        return sendWebhook(context, ticker);
      default:
        // in_app rows are recorded delivered by the caller and never queued.
        return { kind: 'skipped', target: context.target, error: `Channel ${context.channel} is not queued` };
    }
  }

  interface Attempt {
    job: PgBoss.JobWithMetadata<DeliveryJob>;
    context: DeliveryContext;
    outcome: Outcome;
    status: 'delivered' | 'skipped' | 'retrying' | 'failed';
    willRetry: boolean;
    lastAttempt: boolean;
    at: Date;
  }

  /** Sends one delivery (never throws: an unexpected error is a retryable failure). */
  async function send(job: PgBoss.JobWithMetadata<DeliveryJob>, context: DeliveryContext): Promise<Attempt> {
    const outcome = await deliver(context).catch((error: unknown): Outcome => ({
      kind: 'failed',
      target: '',
      error: errorText(error),
      retryable: true,
    }));
    const lastAttempt = job.retryCount >= job.retryLimit;
    const willRetry = outcome.kind === 'failed' && outcome.retryable && !lastAttempt;
    const status =
      outcome.kind === 'delivered'
        ? 'delivered'
        : outcome.kind === 'skipped'
          ? 'skipped'
          : willRetry
            ? 'retrying'
            : 'failed';
    return { job, context, outcome, status, willRetry, lastAttempt, at: new Date() };
  }

  /** Writes the attempts of a batch to their rows in one statement (only rows still due). */
  async function record(attempts: Attempt[]): Promise<void> {
    if (attempts.length === 0) return;
    const values = attempts.map(({ context, outcome, status, at }) => ({
      id: context.id,
      status,
      target: outcome.target || context.target,
      last_error: outcome.kind === 'delivered' ? null : outcome.error,
      delivered_at: outcome.kind === 'delivered' ? at.toISOString() : null,
      latency_ms: outcome.kind === 'delivered' ? Math.max(0, at.getTime() - context.firedAt.getTime()) : null,
      updated_at: at.toISOString(),
    }));
    await db.execute(sql`
      update ${ruleDeliveries} set
        attempts = ${ruleDeliveries.attempts} + 1,
        status = v.status,
        target = v.target,
        last_error = v.last_error,
        delivered_at = v.delivered_at,
        latency_ms = v.latency_ms,
        updated_at = v.updated_at
      from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(
        id bigint, status text, target text, last_error text, delivered_at timestamptz, latency_ms integer,
        updated_at timestamptz)
      where ${ruleDeliveries.id} = v.id and ${ruleDeliveries.status} in ('pending', 'retrying')`);
  }

  /**
   * One batch of jobs: load their rows in one query, send them in parallel, record every
   * attempt in one statement. When every job is done (delivered, skipped, or nothing left to
   * send) the handler returns and pg-boss completes the batch. When some failed, the others
   * are completed here and the handler throws, so that pg-boss fails the failed ones: it
   * retries or dead-letters each by its own budget.
   *
   * Failing a job with boss.fail inside the handler would race pg-boss's own completion of
   * the batch after it: with a short retry delay another worker fetches the failed job again
   * first, and that completion then ends the new attempt's job, which loses its retries and
   * its dead letter.
   */
  async function work(jobs: Array<PgBoss.JobWithMetadata<DeliveryJob>>): Promise<void> {
    const contexts = await load(jobs.map((job) => job.data.deliveryId));
    const due = jobs.flatMap((job) => {
      const context = contexts.get(job.data.deliveryId);
      // Gone (the rule or the user was deleted) or done already: never twice to a channel.
      return context && !FINAL_STATUSES.includes(context.status) ? [{ job, context }] : [];
    });
    const attempts = await Promise.all(due.map(({ job, context }) => send(job, context)));
    await record(attempts);
    const failed: string[] = [];
    const failedIds = new Set<string>();
    for (const { job, context, outcome, status, willRetry, lastAttempt } of attempts) {
      const details = { deliveryId: context.id, channel: context.channel, attempts: job.retryCount + 1 };
      if (outcome.kind !== 'failed') {
        log.info({ ...details, status }, 'rule alert delivered');
        continue;
      }
      log.warn(
        { ...details, error: outcome.error, willRetry },
        willRetry ? 'rule alert not delivered; will retry' : 'rule alert not delivered; giving up',
      );
      // Not worth a retry: end the job's budget so pg-boss fails (and dead-letters) it now.
      if (!willRetry && !lastAttempt)
        await executor.executeSql(
          `update ${BOSS_SCHEMA}.job set retry_limit = retry_count where name = $1 and id = $2`,
          [DELIVERY_QUEUE, job.id],
        );
      failed.push(`delivery ${context.id}: ${outcome.error}`);
      failedIds.add(job.id);
    }
    if (failed.length === 0) return;
    const done = jobs.filter((job) => !failedIds.has(job.id)).map((job) => job.id);
    if (done.length > 0) await boss.complete(DELIVERY_QUEUE, done);
    throw new Error(failed.join('; ').slice(0, 2000));
  }

  // pg-boss 10's worker waits its polling interval after every fetch, even a fruitful one:
  // one worker taking one job per fetch sends at most 2 deliveries a second. So a worker that
  // found jobs wakes itself to fetch again at once; only an empty fetch waits for the next
  // poll. Each fetch takes up to `batchSize` jobs and sends them in parallel. A batch waits
  // for its slowest member, so several workers share the concurrency. pg-boss fails what a
  // batch leaves uncompleted when it throws: its failed deliveries, or the whole batch when
  // the database failed, and retries each by its budget.
  const workerIds: string[] = [];
  if (options.work) {
    const concurrency = Math.max(1, Math.round(policy.concurrency ?? 32));
    const workers = Math.max(1, Math.min(concurrency, Math.round(policy.workers ?? 2)));
    const batchSize = Math.ceil(concurrency / workers);
    for (let index = 0; index < workers; index += 1) {
      // Set once boss.work answers; a first batch may run before that (then no self-wake).
      const self: { id?: string } = {};
      self.id = await boss.work<DeliveryJob>(
        DELIVERY_QUEUE,
        { batchSize, includeMetadata: true, pollingIntervalSeconds: Math.max(0.5, policy.pollSeconds) },
        async (jobs) => {
          if (jobs.length === 0) return;
          try {
            await work(jobs);
          } finally {
            if (self.id) boss.notifyWorker(self.id);
          }
        },
      );
      workerIds.push(self.id);
    }
  }

  const retryOptions = () =>
    policy.baseDelaySeconds > 0
      ? { retryLimit: policy.retryLimit, retryDelay: policy.baseDelaySeconds, retryBackoff: true }
      : { retryLimit: policy.retryLimit, retryDelay: 0, retryBackoff: false };

  async function insertJobs(deliveryIds: number[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    // ON CONFLICT DO NOTHING on the job id: a delivery already queued is left as it is.
    await boss.insert(
      deliveryIds.map((deliveryId) => ({
        id: deliveryJobId(deliveryId),
        name: DELIVERY_QUEUE,
        data: { deliveryId } satisfies DeliveryJob,
        deadLetter: DELIVERY_DEAD_LETTER_QUEUE,
        expireInSeconds: ATTEMPT_EXPIRE_SECONDS,
        ...retryOptions(),
      })),
    );
    // A worker in this process starts at once rather than at its next poll.
    for (const workerId of workerIds) boss.notifyWorker(workerId);
  }

  return {
    async enqueue(deliveryIds) {
      const ids = [...new Set(deliveryIds)].filter((id) => Number.isSafeInteger(id) && id > 0);
      for (let start = 0; start < ids.length; start += 500) await insertJobs(ids.slice(start, start + 500));
    },

    async sweep() {
      const cutoff = new Date(Date.now() - SWEEP_MAX_AGE_HOURS * 3600_000);
      // Queued channels only, and only rows without a job under their id (in any state).
      const notQueued = sql`${ruleDeliveries.channel} <> 'in_app' and not exists (
        select 1 from ${sql.raw(BOSS_SCHEMA)}.job j where j.name = ${DELIVERY_QUEUE}
          and j.id = ('${sql.raw(JOB_ID_PREFIX)}' || lpad(to_hex(${ruleDeliveries.id}), 12, '0'))::uuid)`;
      // Too old to be worth sending now: say so in the log rather than leave them pending.
      await db
        .update(ruleDeliveries)
        .set({
          status: 'failed',
          lastError: `Not queued for delivery within ${SWEEP_MAX_AGE_HOURS} hours (the server stopped before queueing it)`,
          updatedAt: new Date(),
        })
        .where(and(eq(ruleDeliveries.status, 'pending'), lt(ruleDeliveries.createdAt, cutoff), notQueued));
      const rows = await db
        .select({ id: ruleDeliveries.id })
        .from(ruleDeliveries)
        .where(and(eq(ruleDeliveries.status, 'pending'), gte(ruleDeliveries.createdAt, cutoff), notQueued))
        .orderBy(ruleDeliveries.id);
      const queued = rows.length;
      // A row left 'retrying' or 'pending' while pg-boss failed its job for good (the instance
      // died during the last attempt, and pg-boss failed the expired job): say it failed.
      await db
        .update(ruleDeliveries)
        .set({
          status: 'failed',
          lastError: sql`coalesce(${ruleDeliveries.lastError}, 'The delivery stopped during its last attempt')`,
          updatedAt: new Date(),
        })
        .where(
          and(
            inArray(ruleDeliveries.status, ['pending', 'retrying']),
            sql`exists (select 1 from ${sql.raw(BOSS_SCHEMA)}.job j where j.name = ${DELIVERY_QUEUE} and j.state = 'failed'
              and j.id = ('${sql.raw(JOB_ID_PREFIX)}' || lpad(to_hex(${ruleDeliveries.id}), 12, '0'))::uuid)`,
          ),
        );
      for (let start = 0; start < rows.length; start += 500)
        await insertJobs(rows.slice(start, start + 500).map((row) => row.id));
      if (queued > 0) log.warn({ queued }, 'pending rule deliveries had no job; queued them');
      return queued;
    },

    async close() {
      // Graceful: deliveries being sent right now finish and are recorded before the stop.
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

interface DeliveryCounts {
  /** Deliveries waiting for their first attempt or for a retry (every instance's queue). */
  pending: number;
  retrying: number;
  /** Deliveries of the last 24 hours that failed for good. */
  failedLastDay: number;
}

/**
 * The delivery queue's depth and recent failures from rule_deliveries (one grouped count over
 * its (status, created_at) index), for GET /metrics. Read from the table, not pg-boss: the
 * queue opens lazily, and the table says the same for every instance.
 */
export async function deliveryCounts(db: Database, now = new Date()): Promise<DeliveryCounts> {
  const since = new Date(now.getTime() - 24 * 3600_000);
  const rows = await db
    .select({ status: ruleDeliveries.status, count: sql<number>`count(*)::int` })
    .from(ruleDeliveries)
    .where(
      or(
        inArray(ruleDeliveries.status, ['pending', 'retrying']),
        and(eq(ruleDeliveries.status, 'failed'), gte(ruleDeliveries.createdAt, since)),
      ),
    )
    .groupBy(ruleDeliveries.status);
  const of = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  return { pending: of('pending'), retrying: of('retrying'), failedLastDay: of('failed') };
}

/**
 * The delivery queue opened on first use: starting pg-boss (and its migrations) costs seconds
 * on the embedded database, so an app that never fires a rule (a test, the admin CLI) never
 * pays it. The server opens it at start-up through `sweep`, so its workers also pick up the
 * retries left by an earlier run.
 */
export function lazyDeliveryQueue(open: () => Promise<DeliveryQueue>): DeliveryQueue {
  let opening: Promise<DeliveryQueue> | null = null;
  const queue = () =>
    (opening ??= open().catch((error: unknown) => {
      // Try again on the next use rather than failing every later delivery.
      opening = null;
      throw error;
    }));
  return {
    enqueue: async (ids) => (await queue()).enqueue(ids),
    sweep: async () => (await queue()).sweep(),
    async close() {
      const current = opening && (await opening.catch(() => null));
      await current?.close();
    },
  };
}
