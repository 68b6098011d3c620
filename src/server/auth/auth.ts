// Better Auth on our database: e-mail + password, required e-mail verification, password
// changes under one set of rules (auth/passwords.ts: current password, other sessions and
// outstanding reset links ended), HttpOnly SameSite=Lax cookies (Secure over https).
// Rate limiting is ours (auth/rateLimits.ts), shared across instances through Redis.
// Sessions are cached in a signed cookie (Better Auth's cookie cache) for
// SESSION_CACHE_SECONDS; its version is this process's session generation (guards.ts), so a
// sign-out or revocation here sends every cached session back to the database.
import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import * as schema from '../db/schema.ts';
import { withoutQueryParameters } from '../http/logging.ts';
import { createProfile } from './accounts.ts';
import type { SessionChanges } from './sessionChanges.ts';
import { afterPasswordReset, passwordChangeHooks } from './passwords.ts';
import { existingAccountMail, passwordResetMail, verificationMail, type Mailer } from '../mail/service.ts';
import { MIN_PASSWORD_LENGTH } from '../../shared/constants.ts';

export interface AuthOptions {
  config: Config;
  db: Database;
  mailer: Mailer;
  secret: string;
  /** The server's logger: Better Auth's own messages go through it (redaction, JSON, LOG_LEVEL). */
  log: AuthLog;
  /** Successful sign-outs and revocations here: the cookie cache's version. */
  sessionChanges: SessionChanges;
}

/** The part of a pino logger Better Auth's messages need. */
type AuthLog = Record<'debug' | 'info' | 'warn' | 'error', (fields: object, message: string) => void>;

const VERIFICATION_EXPIRES_SECONDS = 24 * 60 * 60;
const RESET_EXPIRES_SECONDS = 60 * 60;

export function createAuth({ config, db, mailer, secret, log, sessionChanges }: AuthOptions) {
  const displayName = (user: { name: string; email: string }) => user.name || user.email;
  return betterAuth({
    appName: 'WATOS Trading Intelligence',
    baseURL: config.publicUrl,
    basePath: '/api/auth',
    secret,
    trustedOrigins: [config.publicUrl],
    logger: {
      level: config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'debug' : 'warn',
      log: (level, message, ...args: unknown[]) => {
        const err = args.find((arg) => arg instanceof Error);
        const detail = withoutQueryParameters(args.filter((arg) => !(arg instanceof Error))) as unknown[];
        log[level](
          { component: 'better-auth', ...(err ? { err } : {}), ...(detail.length > 0 ? { detail } : {}) },
          message,
        );
      },
    },
    database: drizzleAdapter(db, { provider: 'pg', schema }),
    user: {
      additionalFields: {
        username: { type: 'string', required: false, input: true },
      },
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: 128,
      autoSignIn: false,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: RESET_EXPIRES_SECONDS,
      // A sign-up with a taken address answers exactly like a new one (no account
      // enumeration); the owner hears about it by e-mail instead.
      onExistingUserSignUp: async ({ user }) => {
        await mailer.send({
          to: user.email,
          ...existingAccountMail(displayName(user), `${config.publicUrl}/`, `${config.publicUrl}/forgot-password`),
        });
      },
      sendResetPassword: async ({ user, url }) => {
        await mailer.send({ to: user.email, ...passwordResetMail(displayName(user), url) });
      },
      // Every session is gone already (above); this ends the other reset links too.
      onPasswordReset: async ({ user }) => {
        await afterPasswordReset(db, user.id);
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      expiresIn: VERIFICATION_EXPIRES_SECONDS,
      sendVerificationEmail: async ({ user, url }) => {
        await mailer.send({ to: user.email, ...verificationMail(displayName(user), url) });
      },
    },
    hooks: passwordChangeHooks(db),
    databaseHooks: {
      user: {
        create: {
          after: async (created) => {
            const username = (created as { username?: string | null }).username || created.name;
            await createProfile(db, created.id, username);
          },
        },
      },
    },
    session: {
      expiresIn: 60 * 60 * 24 * 7,
      updateAge: 60 * 60 * 24,
      cookieCache: {
        enabled: config.SESSION_CACHE_SECONDS > 0,
        maxAge: config.SESSION_CACHE_SECONDS,
        version: () => sessionChanges.generation,
      },
    },
    rateLimit: { enabled: false },
    // An unexpected error (not an APIError) leaves Better Auth's handler instead of being
    // printed with console.error ('# SERVER_ERROR', the whole error with a constraint
    // violation's row) and answered with an empty 500: Fastify's error handler logs it through
    // pino (redacted) and answers in our JSON error shape. APIErrors still become answers.
    onAPIError: { throw: true },
    advanced: {
      useSecureCookies: config.publicUrl.startsWith('https://'),
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
    },
    telemetry: { enabled: false },
  });
}

export type Auth = ReturnType<typeof createAuth>;
