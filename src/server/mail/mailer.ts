// Outgoing e-mail behind one interface: SMTP through nodemailer when SMTP_URL is set,
// otherwise the embedded outbox, which stores each message in the database and prints its
// links to the server log so a developer can click them. Both keep a copy in `outbox`.
import { desc, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { outbox } from '../db/schema.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
}

/** The little of a logger the mailer needs (Fastify's pino logger, or the admin CLI's). */
export interface MailLog {
  info(details: object, message: string): void;
}

export function createMailer(config: Config, db: Database, log: MailLog): Mailer {
  const keepCopy = (message: MailMessage) => db.insert(outbox).values(message);

  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport(config.SMTP_URL);
    return {
      kind: 'smtp',
      async send(message) {
        await transport.sendMail({ from: config.MAIL_FROM, ...message });
        await keepCopy({ ...message, text: '[sent over SMTP]', html: '' });
      },
    };
  }

  return {
    kind: 'outbox',
    async send(message) {
      await keepCopy(message);
      const links = message.text.match(/https?:\/\/\S+/g) ?? [];
      log.info({ to: message.to, subject: message.subject }, 'e-mail stored in the outbox');
      // The outbox is how a developer on a laptop receives mail: print the links plainly.
      console.log(`\n[outbox] To: ${message.to}\n[outbox] Subject: ${message.subject}\n${links.map((link) => `[outbox] ${link}`).join('\n')}\n`);
    },
  };
}

/** The newest outbox messages, newest first (tests and the test-only outbox API). */
export async function latestOutboxMessages(db: Database, to?: string, limit = 10) {
  const query = db.select().from(outbox).orderBy(desc(outbox.id)).limit(limit);
  return to ? query.where(eq(outbox.to, to.toLowerCase())) : query;
}
