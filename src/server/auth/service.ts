// Accounts and sessions, as other features, the routes and the admin CLI use them: who is
// signed in (the guards and the dashboard API scope they gate), registration, operator-created users, and the two ways to set a new
// password (an e-mailed reset link, or signed in with the current password). Refusals are
// DomainErrors carrying Better Auth's own message; src/server/http/errors.ts answers them.
import { APIError, isAPIError } from 'better-auth/api';
import type { Database } from '../db/client.ts';
import { conflict, DOMAIN_ERROR_STATUS, DomainError, invalid, type DomainErrorKind } from '../errors/domain.ts';
import type { RegisterRequest, RegisterResponse } from '../../shared/schemas/auth.ts';
import { findUserByEmail, findUserById, markEmailVerified, resetTokenOwner, type UserRow } from './accounts.ts';
import type { Auth } from './auth.ts';
import { CURRENT_PASSWORD_REQUIRED, CURRENT_PASSWORD_WRONG } from './passwords.ts';

export { createAuth, type Auth } from './auth.ts';
export { dashboardFeature, registerDashboardApi } from './dashboardScope.ts';
export { createSessionChanges, type SessionChanges } from './sessionChanges.ts';
export { createSubscriptionAccess, requireSignedIn, sessionUser } from './guards.ts';
export { resolveAuthSecret } from './secret.ts';
export type { AuthRateLimitPolicy } from './rateLimits.ts';
export type { UserRow };

const KIND_OF_STATUS = new Map<number, DomainErrorKind>(
  Object.entries(DOMAIN_ERROR_STATUS).map(([kind, status]) => [status, kind as DomainErrorKind]),
);

/**
 * Better Auth's refusal (an APIError) as a DomainError with its message and status; null for
 * anything else, which the caller rethrows as a fault.
 */
function refusalOf(error: unknown, fallback?: string, details?: Record<string, unknown>): DomainError | null {
  if (!isAPIError(error)) return null;
  const kind = KIND_OF_STATUS.get(error.statusCode);
  if (!kind) return null;
  const body = error.body as { message?: string } | undefined;
  const message = body?.message ?? error.message;
  return new DomainError(kind, message || fallback || error.message, details, { cause: error });
}

/**
 * docs/SPEC.md's POST /api/auth/register. A refusal keeps docs/SPEC.md's shape: the DomainError's
 * details add `success: false` and `user: null` next to `error`.
 */
export async function registerUser(auth: Auth, headers: Headers, input: RegisterRequest): Promise<RegisterResponse> {
  const { email, password, username } = input;
  try {
    const result = await auth.api.signUpEmail({
      body: { email, password, name: username, username, callbackURL: '/' },
      headers,
    });
    return {
      success: true,
      error: null,
      user: { id: result.user.id, email: result.user.email, username },
      // E-mail verification is required, so sign-up never opens a session by itself.
      session: null,
    };
  } catch (error) {
    throw refusalOf(error, 'Failed to sign up', { success: false, user: null }) ?? error;
  }
}

/**
 * An operator-created user (scripts/admin.ts create-user), optionally already verified.
 * Better Auth answers a taken address like a new one (no enumeration), so the check is here.
 */
export async function createUser(
  auth: Auth,
  db: Database,
  input: { email: string; password: string; username: string; verified: boolean },
): Promise<UserRow> {
  const { email, password, username } = input;
  let userId: string;
  try {
    const result = await auth.api.signUpEmail({ body: { email, password, name: username, username } });
    userId = result.user.id;
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
  const created = await findUserById(db, userId);
  if (!created) throw conflict(`A user with e-mail ${email} already exists`);
  if (input.verified) await markEmailVerified(db, created.id);
  return input.verified ? { ...created, emailVerified: true } : created;
}

/** The account of an e-mail address (the admin CLI's --email). */
export async function userByEmail(db: Database, email: string): Promise<UserRow> {
  const row = await findUserByEmail(db, email);
  if (!row) throw new DomainError('not-found', `No user with e-mail ${email}`);
  return row;
}

/** Whether an e-mailed reset link can still be used (the /reset-password page asks first). */
export async function resetLinkValid(db: Database, token: string): Promise<boolean> {
  return (await resetTokenOwner(db, token)) !== null;
}

const RESET_LINK_INVALID = 'This reset link is invalid or has expired. Please request a new one.';

/**
 * Sets a new password with an e-mailed reset link. Every old session ends (auth/passwords.ts);
 * returns the Set-Cookie values of a fresh session, so the trader continues signed in.
 */
export async function resetPasswordWithToken(
  auth: Auth,
  db: Database,
  token: string,
  newPassword: string,
): Promise<string[]> {
  const userId = await resetTokenOwner(db, token);
  if (!userId) throw invalid(RESET_LINK_INVALID);
  const account = await findUserById(db, userId);
  try {
    await auth.api.resetPassword({ body: { newPassword, token } });
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
  if (!account) return [];
  const signIn = await auth.api.signInEmail({
    body: { email: account.email, password: newPassword },
    returnHeaders: true,
  });
  return signIn.headers.getSetCookie();
}

/**
 * A signed-in change on /api/account/reset-password: Better Auth's change-password checks the
 * current password and, through auth/passwords.ts's hooks, ends other sessions and reset links.
 * Returns the Set-Cookie values of the caller's fresh session.
 */
export async function changeSignedInPassword(
  auth: Auth,
  headers: Headers,
  currentPassword: string | undefined,
  newPassword: string,
): Promise<string[]> {
  if (!currentPassword) throw invalid(CURRENT_PASSWORD_REQUIRED);
  try {
    const result = await auth.api.changePassword({
      body: { currentPassword, newPassword, revokeOtherSessions: true },
      headers,
      returnHeaders: true,
    });
    return result.headers.getSetCookie();
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    const body = error.body as { code?: string; message?: string } | undefined;
    if (body?.code === 'INVALID_PASSWORD') throw new DomainError('forbidden', CURRENT_PASSWORD_WRONG);
    throw refusalOf(error) ?? error;
  }
}
