// The outgoing mail queue (used when SMTP_URL is set): `enqueue` stores the message durably
// as a pg-boss job and returns; a worker delivers it and retries with exponential backoff
// (base, 2x base, 4x base ... capped) until it is sent or its retry window (MAIL_RETRY_HOURS)
// ends, when it is marked failed. The admin CLI lists the queue and can send a message again.
//
// The schedule is ours, not pg-boss's (its backoff has no cap and random jitter): before a
// failed attempt is handed back to pg-boss, the job's fixed retry delay is set to the next
// step, or its retry limit to its retry count when the window is over, so pg-boss files it as
// `retry` at the right time or as `failed`. Those columns, and the listing's read of
// pgboss.job / pgboss.archive, are pg-boss 10's table layout (package.json pins ^10).
import type PgBoss from 'pg-boss';
import type { DatabaseHandle } from '../db/client.ts';
import { BOSS_SCHEMA, sqlExecutor, startBoss, type BossLog } from '../jobs/boss.ts';

/** One e-mail as the app writes it; the queue carries it until the SMTP server takes it. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const MAIL_QUEUE = 'mail';
/** Far more retries than any window allows: the window, not this count, ends the retries. */
const RETRY_LIMIT = 100_000;

export interface MailRetryPolicy {
  /** Delay before the first retry; each later one doubles it. */
  baseDelaySeconds: number;
  /** Longest delay between two attempts. */
  maxDelaySeconds: number;
  /** How long after queueing a message may still be attempted. */
  retryWindowSeconds: number;
  /** How often an idle worker looks for due messages. */
  pollSeconds: number;
  /** Messages handed to the SMTP server at once by this process (workers of one job each); default 8. */
  concurrency?: number;
}

interface QueuedMail {
  message: MailMessage;
  /** ISO time after which no attempt is made. */
  expiresAt: string;
}

export type DeliveryState = 'pending' | 'sending' | 'sent' | 'failed' | 'cancelled';

interface QueueEntry {
  id: string;
  state: DeliveryState;
  to: string;
  subject: string;
  /** Delivery attempts made so far. */
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  /** Next attempt (pending), or when it was sent / given up. */
  nextAttemptAt: Date | null;
  finishedAt: Date | null;
}

/** The delay before attempt number `attempt + 1`, given `attempt` attempts made (>= 1). */
export function retryDelaySeconds(policy: MailRetryPolicy, attempts: number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(policy.baseDelaySeconds * 2 ** exponent, policy.maxDelaySeconds);
}

export interface MailQueueLog extends BossLog {
  info(details: object, message: string): void;
}

export interface MailQueue {
  enqueue(message: MailMessage): Promise<string>;
  /** Starts delivering with `deliver` (the server; the admin CLI only enqueues and lists). */
  work(deliver: (message: MailMessage) => Promise<void>): Promise<void>;
  list(filter?: { state?: DeliveryState; limit?: number }): Promise<QueueEntry[]>;
  /** Makes a pending or failed message due now, with a fresh retry window. False when there is none. */
  retryNow(id: string): Promise<boolean>;
  close(): Promise<void>;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** A row of pgboss.job / pgboss.archive as the listing selects it. */
interface JobRow {
  id: string;
  state: string;
  data: QueuedMail;
  output: { message?: unknown } | null;
  retry_count: number | string;
  started_on: Date | string | null;
  start_after: Date | string;
  created_on: Date | string;
  completed_on: Date | string | null;
  archived: boolean;
}

function giveUp(attempts: number, lastError: string | null): string {
  return `Not sent within the retry window after ${attempts} attempt(s)${lastError ? `; last error: ${lastError}` : ''}`;
}

const STATE_OF: Record<string, DeliveryState> = {
  created: 'pending',
  retry: 'pending',
  active: 'sending',
  completed: 'sent',
  failed: 'failed',
  cancelled: 'cancelled',
};

const STATES_FOR: Record<DeliveryState, string[]> = {
  pending: ['created', 'retry'],
  sending: ['active'],
  sent: ['completed'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

export async function openMailQueue(
  database: DatabaseHandle,
  policy: MailRetryPolicy,
  log: MailQueueLog,
  options: { supervise: boolean },
): Promise<MailQueue> {
  const boss = await startBoss(database, log, options);
  const sql = sqlExecutor(database);
  await boss.createQueue(MAIL_QUEUE);

  const setRetry = (id: string, delaySeconds: number | null) =>
    sql.executeSql(
      delaySeconds === null
        ? `update ${BOSS_SCHEMA}.job set retry_limit = retry_count where name = $1 and id = $2`
        : `update ${BOSS_SCHEMA}.job set retry_backoff = false, retry_delay = $3 where name = $1 and id = $2`,
      delaySeconds === null ? [MAIL_QUEUE, id] : [MAIL_QUEUE, id, delaySeconds],
    );

  async function attempt(job: PgBoss.JobWithMetadata<QueuedMail>, deliver: (message: MailMessage) => Promise<void>) {
    const attempts = job.retryCount + 1;
    // Sent already: its body was dropped right after delivery, and only recording it as
    // completed failed (the instance died, the database blinked). Never send it twice.
    if (typeof job.data.message.text !== 'string') return;
    const expiresAt = Date.parse(job.data.expiresAt);
    if (Date.now() >= expiresAt) {
      await setRetry(job.id, null);
      const previous = (job.output as { message?: unknown } | null)?.message;
      throw new Error(giveUp(attempts - 1, typeof previous === 'string' ? previous : null));
    }
    try {
      await deliver(job.data.message);
    } catch (error) {
      const secondsLeft = Math.floor((expiresAt - Date.now()) / 1000);
      // The last attempt falls on the end of the window rather than past it.
      const delay = Math.min(retryDelaySeconds(policy, attempts), secondsLeft);
      const last = delay < 1;
      await setRetry(job.id, last ? null : delay);
      // Never the message itself: its text holds verification and reset links.
      log.warn(
        { mailId: job.id, attempts, error: errorText(error), retryInSeconds: last ? null : delay },
        last ? 'e-mail not sent; giving up' : 'e-mail not sent; will retry',
      );
      throw new Error(last ? giveUp(attempts, errorText(error)) : errorText(error), { cause: error });
    }
    log.info({ mailId: job.id, attempts }, 'e-mail sent');
    // The body holds live verification and reset links: keep only the headers of sent mail
    // (pg-boss keeps finished jobs for days).
    await sql
      .executeSql(
        `update ${BOSS_SCHEMA}.job set data = data #- '{message,text}' #- '{message,html}' where name = $1 and id = $2`,
        [MAIL_QUEUE, job.id],
      )
      .catch((error: unknown) =>
        log.warn({ err: error, mailId: job.id }, 'sent e-mail body not dropped from the queue'),
      );
  }

  const workerIds: string[] = [];
  return {
    async enqueue(message) {
      const expiresAt = new Date(Date.now() + policy.retryWindowSeconds * 1000).toISOString();
      const id = await boss.send(MAIL_QUEUE, { message, expiresAt } satisfies QueuedMail, {
        retryLimit: RETRY_LIMIT,
        retryDelay: policy.baseDelaySeconds,
        retryBackoff: false,
        // An attempt stuck longer than this (the instance died mid-send) is failed and retried.
        expireInSeconds: 15 * 60,
        // pg-boss archives jobs still waiting past this; keep them well beyond the window.
        retentionSeconds: policy.retryWindowSeconds + 24 * 60 * 60,
      });
      if (!id) throw new Error('The e-mail could not be queued');
      // The workers in this process try it at once rather than at their next poll.
      for (const workerId of workerIds) boss.notifyWorker(workerId);
      return id;
    },

    async work(deliver) {
      // pg-boss 10's worker waits its polling interval after every fetch, even a fruitful one,
      // unless notified meanwhile: a burst queued faster than it was sent (a price level many
      // rules share: one e-mail each) went out one message per poll. So a worker that found a
      // job wakes itself to fetch again at once, and only an empty fetch waits for the poll.
      // Several workers of one job each send in parallel (an SMTP round trip is mostly waiting)
      // while each job keeps its own retry schedule (attempt() fails just its own job).
      const workers = Math.max(1, Math.round(policy.concurrency ?? 8));
      for (let index = 0; index < workers; index += 1) {
        // Set once boss.work answers; a first job may run before that (then no self-wake).
        const self: { id?: string } = {};
        self.id = await boss.work<QueuedMail>(
          MAIL_QUEUE,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: policy.pollSeconds },
          async ([job]) => {
            if (!job) return;
            try {
              await attempt(job, deliver);
            } finally {
              if (self.id) boss.notifyWorker(self.id);
            }
          },
        );
        workerIds.push(self.id);
      }
    },

    async list(filter = {}) {
      const states = filter.state ? STATES_FOR[filter.state] : Object.keys(STATE_OF);
      const columns = `id, state::text as state, data, output, retry_count, started_on, start_after, created_on, completed_on`;
      // Jobs pg-boss archived while still waiting (past their retention) count as failed.
      const { rows } = await sql.executeSql(
        `select * from (
           select ${columns}, false as archived from ${BOSS_SCHEMA}.job where name = $1 and state::text = any($2)
           union all
           select ${columns}, true as archived from ${BOSS_SCHEMA}.archive where name = $1
             and (case when state::text in ('created', 'retry') then 'failed' else state::text end) = any($2)
         ) jobs order by created_on desc, id desc limit $3`,
        [MAIL_QUEUE, states, filter.limit ?? 50],
      );
      return (rows as unknown as JobRow[]).map((row): QueueEntry => {
        const data = row.data;
        const waiting = row.state === 'created' || row.state === 'retry';
        const known = STATE_OF[row.state];
        // The query asks only for the states above; another one is a pg-boss we do not know.
        if (known === undefined) throw new Error(`Unknown pg-boss job state '${row.state}'`);
        const state: DeliveryState = row.archived && waiting ? 'failed' : known;
        const output = row.output;
        return {
          id: row.id,
          state,
          to: data.message.to,
          subject: data.message.subject,
          attempts: row.started_on ? Number(row.retry_count) + 1 : 0,
          lastError: state !== 'sent' && typeof output?.message === 'string' ? output.message : null,
          createdAt: new Date(row.created_on),
          nextAttemptAt: state === 'pending' ? new Date(row.start_after) : null,
          finishedAt: row.completed_on ? new Date(row.completed_on) : null,
        };
      });
    },

    async retryNow(id) {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
      const expiresAt = new Date(Date.now() + policy.retryWindowSeconds * 1000).toISOString();
      const { rows } = await sql.executeSql(
        `update ${BOSS_SCHEMA}.job
            set state = 'retry', start_after = now(), completed_on = null, retry_limit = $3,
                data = jsonb_set(data, '{expiresAt}', to_jsonb($4::text))
          where name = $1 and id = $2 and state::text in ('created', 'retry', 'failed')
          returning id`,
        [MAIL_QUEUE, id, RETRY_LIMIT, expiresAt],
      );
      return rows.length > 0;
    },

    async close() {
      // Graceful: a message being sent right now finishes and is recorded before the stop.
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
