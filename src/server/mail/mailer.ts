// Outgoing e-mail behind one interface. With SMTP_URL set, `send` queues the message durably
// in the database (mail/queue.ts, pg-boss) and returns; the server's worker delivers it through
// nodemailer and retries while the SMTP server is unreachable, so a sign-up made while mail is
// down still gets its verification e-mail. Without SMTP_URL the embedded outbox stores each
// message in the database and prints its links to the server log so a developer can click
// them. Both keep a copy in `outbox` (SMTP: the headers only, once sent).
import { desc, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Database, DatabaseHandle } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import { escapeUnsafeCharacters } from '../../shared/schemas/userText.ts';
import { openMailQueue, type MailMessage, type MailQueue, type MailRetryPolicy } from './queue.ts';

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  /** Stores the message (SMTP: in the queue) and returns; delivery may come later. */
  send(message: MailMessage): Promise<void>;
  /** The SMTP queue (admin CLI, tests); absent for the outbox. */
  readonly queue?: MailQueue;
  /** Stops delivering (a message being sent finishes first). */
  close(): Promise<void>;
}

/** The little of a logger the mailer needs (Fastify's pino logger, or the admin CLI's). */
export interface MailLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export function mailRetryPolicy(config: Config): MailRetryPolicy {
  return {
    baseDelaySeconds: config.MAIL_RETRY_BASE_SECONDS,
    maxDelaySeconds: config.MAIL_RETRY_MAX_SECONDS,
    retryWindowSeconds: Math.round(config.MAIL_RETRY_HOURS * 3600),
    pollSeconds: Math.min(2, config.MAIL_RETRY_BASE_SECONDS),
  };
}

export interface MailerOptions {
  /** Deliver queued mail from this process (the server). The admin CLI only queues. */
  deliver: boolean;
  /** Overrides the retry schedule from the configuration (tests). */
  retry?: MailRetryPolicy;
}

export async function createMailer(
  config: Config,
  database: DatabaseHandle,
  log: MailLog,
  options: MailerOptions,
): Promise<Mailer> {
  const { db } = database;
  const keepCopy = (message: MailMessage) => db.insert(outbox).values(message);

  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport({
      url: config.SMTP_URL,
      // Fail an attempt on a silent server in well under the queue's 15-minute active limit.
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
    });
    const queue = await openMailQueue(database, options.retry ?? mailRetryPolicy(config), log, {
      supervise: options.deliver,
    });
    if (options.deliver) {
      await queue.work(async (message) => {
        await transport.sendMail({ from: config.MAIL_FROM, ...message });
        // The copy is an audit trail: failing to write it must not send the message again.
        await keepCopy({ ...message, text: '[sent over SMTP]', html: '' }).catch((error: unknown) =>
          log.warn({ err: error }, 'sent e-mail not recorded in the outbox table'),
        );
      });
    }
    return {
      kind: 'smtp',
      queue,
      async send(message) {
        const id = await queue.enqueue(message);
        log.info({ mailId: id, subject: message.subject }, 'e-mail queued');
      },
      async close() {
        await queue.close();
        transport.close();
      },
    };
  }

  return {
    kind: 'outbox',
    async send(message) {
      await keepCopy(message);
      const links = message.text.match(/https?:\/\/\S+/g) ?? [];
      log.info({ to: message.to, subject: message.subject }, 'e-mail stored in the outbox');
      // The outbox is how a developer on a laptop receives mail: print the links plainly. A
      // subject can carry a user's text (a rule's name); escaped, it stays on its own line and
      // cannot forge an `[outbox]` link or move the terminal's cursor.
      const line = (text: string) => `[outbox] ${escapeUnsafeCharacters(text)}`;
      console.log(
        ['', line(`To: ${message.to}`), line(`Subject: ${message.subject}`), ...links.map(line), ''].join('\n'),
      );
    },
    async close() {},
  };
}

/** The newest outbox messages, newest first (tests and the test-only outbox API). */
export async function latestOutboxMessages(db: Database, to?: string, limit = 10) {
  const query = db.select().from(outbox).orderBy(desc(outbox.id)).limit(limit);
  return to ? query.where(eq(outbox.to, to.toLowerCase())) : query;
}
