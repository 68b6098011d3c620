// Password changes, one set of rules on every path that changes a password:
// - a signed-in change needs the current password (a stolen session alone cannot take over
//   the account);
// - every change ends every other session (a signed-in change keeps the caller signed in on a
//   fresh session; a reset with an e-mailed token ends them all);
// - every change ends every outstanding reset link of the account (an older e-mailed link
//   must not set the password again);
// - a reset proves control of the mailbox the link was sent to, so it also verifies the
//   e-mail address of an account that was not verified yet.
// The paths: our /api/account/reset-password (both branches) and Better Auth's own
// /api/auth/change-password and /api/auth/reset-password. Better Auth's endpoints get the
// rules through its options (revokeSessionsOnPasswordReset, onPasswordReset) and the hooks
// below; our route calls the same endpoints, so it inherits them.
import { createAuthMiddleware, isAPIError } from 'better-auth/api';
import type { Database } from '../db/client.ts';
import { markEmailVerified, revokeResetLinks } from './accounts.ts';

export const CURRENT_PASSWORD_REQUIRED = 'Please enter your current password to choose a new one.';
export const CURRENT_PASSWORD_WRONG = 'Your current password is incorrect.';

/**
 * Better Auth's `emailAndPassword.onPasswordReset`: runs after a reset with a valid token has
 * saved the new password and revoked every session (revokeSessionsOnPasswordReset).
 */
export async function afterPasswordReset(db: Database, userId: string): Promise<void> {
  await revokeResetLinks(db, userId);
  // The token reached the trader through this address: the same proof the verification link
  // gives. Without this, the reset changed the password but the follow-up sign-in was refused
  // for an unverified e-mail. Nothing of an unproven account survives a reset: its password is
  // replaced and its sessions are gone (and e-mail + password is the only sign-in method).
  await markEmailVerified(db, userId);
}

const CHANGE_PASSWORD_PATH = '/change-password';

/** Better Auth `hooks`: the rules for its own /change-password. */
export function passwordChangeHooks(db: Database) {
  return {
    // Always revoke the other sessions: Better Auth then ends every session of the user and
    // hands the caller a fresh one (with its cookie), in one transaction with the new password.
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path !== CHANGE_PASSWORD_PATH) return;
      const body: unknown = ctx.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
      return { context: { body: { ...body, revokeOtherSessions: true } } };
    }),
    after: createAuthMiddleware(async (ctx) => {
      if (ctx.path !== CHANGE_PASSWORD_PATH) return;
      const returned: unknown = ctx.context.returned;
      if (!returned || isAPIError(returned) || returned instanceof Response) return;
      const userId = (returned as { user?: { id?: unknown } }).user?.id;
      if (typeof userId === 'string') await revokeResetLinks(db, userId);
    }),
  };
}
