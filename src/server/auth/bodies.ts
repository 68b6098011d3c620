// The bodies of the Better Auth endpoints we forward to, checked before forwarding with the
// same rules as our own registration: a username or display name is 1-40 characters without
// control characters or line breaks (shared/schemas/userText.ts), an e-mail at most 254, a new
// password 6-128; no field may be null where a text is expected or hold a NUL character
// (PostgreSQL cannot store one, and Better Auth answers 500 when the database refuses it). Fields the endpoints take that are not listed here pass through as
// they are, within the app-wide depth and length limits (http/requestGuards.ts) and the
// per-field text bound below.
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../../shared/constants.ts';
import { displayName, email, PASSWORD_TOO_SHORT, username } from '../../shared/schemas/auth.ts';
import { refuseUnsafeCharacters } from '../../shared/schemas/userText.ts';

/** Longest text any other auth field (a token, a callback URL, an image URL) may hold. */
const AUTH_TEXT_MAX = 2048;
/** Better Auth's maxPasswordLength (auth.ts): a longer password was never set, so never matches. */
const PASSWORD_MAX = 128;

const text = (name: string) =>
  z
    .string({ error: `${name} must be text` })
    .max(AUTH_TEXT_MAX, `${name} must be at most ${AUTH_TEXT_MAX} characters long`)
    .superRefine(refuseUnsafeCharacters(name));

const newPassword = z
  .string({ error: 'Password is required' })
  .min(MIN_PASSWORD_LENGTH, PASSWORD_TOO_SHORT)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters long`);

const currentPassword = z
  .string({ error: 'Password is required' })
  .min(1, 'Password is required')
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters long`);

const body = <Shape extends z.ZodRawShape>(shape: Shape) => z.looseObject(shape);

/** Body schemas of the Better Auth POST endpoints that store or check something. */
export const betterAuthBodies: Record<string, z.ZodType> = {
  '/sign-up/email': body({
    name: displayName,
    email,
    password: newPassword,
    username: username.optional(),
    image: text('image').optional(),
    callbackURL: text('callbackURL').optional(),
  }),
  '/sign-in/email': body({ email, password: currentPassword, callbackURL: text('callbackURL').optional() }),
  '/update-user': body({
    name: displayName.optional(),
    username: username.optional(),
    image: text('image').nullable().optional(),
  }),
  '/change-email': body({ newEmail: email, callbackURL: text('callbackURL').optional() }),
  '/change-password': body({ newPassword, currentPassword }),
  '/reset-password': body({ newPassword, token: text('token').optional() }),
  '/request-password-reset': body({ email, redirectTo: text('redirectTo').optional() }),
  '/send-verification-email': body({ email, callbackURL: text('callbackURL').optional() }),
  '/verify-password': body({ password: currentPassword }),
  '/delete-user': body({
    password: currentPassword.optional(),
    token: text('token').optional(),
    callbackURL: text('callbackURL').optional(),
  }),
  '/revoke-session': body({ token: text('token') }),
};

const PASSWORD_FIELD = /password/i;

/**
 * Any other text in an auth body (a field of an endpoint not listed above, a nested value):
 * within AUTH_TEXT_MAX and without a NUL. Passwords are exempt: they are only ever hashed.
 */
function looseTextProblem(value: unknown): string | null {
  const pending: Array<[string, unknown]> = [['', value]];
  while (pending.length > 0) {
    const [path, item] = pending.pop()!;
    if (typeof item === 'string') {
      if (PASSWORD_FIELD.test(path.split('.').at(-1) ?? '')) continue;
      if (item.length > AUTH_TEXT_MAX) return `${path || 'body'}: must be at most ${AUTH_TEXT_MAX} characters long`;
      if (item.includes('\u0000')) return `${path || 'body'}: may not contain NUL characters`;
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) pending.push([path ? `${path}.${key}` : key, child]);
    }
  }
  return null;
}

/** Checks and normalises (trims) a body; returns the body to forward or the trader's message. */
export function checkAuthBody(
  endpoint: string,
  value: unknown,
): { ok: true; body: unknown } | { ok: false; message: string } {
  const schema = betterAuthBodies[endpoint];
  const parsed = schema ? schema.safeParse(value ?? {}) : { success: true as const, data: value };
  if (parsed.success) {
    const loose = looseTextProblem(parsed.data);
    return loose ? { ok: false, message: loose } : { ok: true, body: parsed.data };
  }
  const message = parsed.error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  return { ok: false, message };
}
