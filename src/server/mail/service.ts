// Mail: the public surface other parts of the server use. mailer.ts sends (SMTP through the
// pg-boss queue of queue.ts, or the embedded outbox) and is the only module that touches the
// `outbox` table; templates.ts renders the account e-mails.
export { createMailer, latestOutboxMessages, mailRetryPolicy, type Mailer } from './mailer.ts';
export { openMailQueue, type DeliveryState } from './queue.ts';
export { existingAccountMail, passwordResetMail, verificationMail } from './templates.ts';
