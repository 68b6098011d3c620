// Request schemas of the account calls, shared by the server (validation) and the browser
// (the same rules and the same docs/SPEC.md texts before anything is sent).
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../constants.ts';
import { refuseUnsafeCharacters } from './userText.ts';

export const PASSWORD_TOO_SHORT = 'Password must be at least 6 characters long';
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';

export const USERNAME_MAX_LENGTH = 40;
export const EMAIL_MAX_LENGTH = 254;

export const email = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(EMAIL_MAX_LENGTH, 'Email is too long')
  .pipe(z.email('Please enter a valid email address'));

/**
 * The username (and the display name, which registration sets to it): the same rule on
 * every path that sets one.
 */
export const username = z
  .string({ error: 'Username is required' })
  .trim()
  .min(1, 'Username is required')
  .max(USERNAME_MAX_LENGTH, `Username must be at most ${USERNAME_MAX_LENGTH} characters long`)
  .superRefine(refuseUnsafeCharacters('Username'));

/** The display name (Better Auth's `name`): registration sets it to the username, so it follows the same rule. */
export const displayName = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(USERNAME_MAX_LENGTH, `Name must be at most ${USERNAME_MAX_LENGTH} characters long`)
  .superRefine(refuseUnsafeCharacters('Name'));

const password = z
  .string({ error: 'Password is required' })
  .min(1, 'Password is required')
  .min(MIN_PASSWORD_LENGTH, PASSWORD_TOO_SHORT)
  .max(128, 'Password must be at most 128 characters long');

export const registerRequest = z.object({
  email,
  password,
  username,
});
export type RegisterRequest = z.infer<typeof registerRequest>;

export const loginRequest = z.object({
  email,
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required'),
});

export const resetPasswordRequest = z.object({
  newPassword: password,
  token: z.string().min(1).max(200).optional(),
  // Required by the server for a change without a token (a signed-in change).
  currentPassword: z.string().max(128, 'Password must be at most 128 characters long').optional(),
});

/**
 * The forgot-password form: an address is all it asks before sending (the same answer comes
 * whether or not it has an account, so its form is not checked further here).
 */
export const forgotPasswordForm = z.object({
  email: z.string().trim().min(1, 'Email is required'),
});
export type ForgotPasswordForm = z.input<typeof forgotPasswordForm>;

/**
 * The new-password form (/reset-password), keyed by its inputs' names: one message at a time,
 * in this order: both fields, the length, the match, then the current password when the change
 * is made without a token.
 */
export function newPasswordForm(needsCurrentPassword: boolean) {
  return z
    .object({ 'current-password': z.string(), 'new-password': z.string(), 'confirm-password': z.string() })
    .superRefine((form, context) => {
      const password = form['new-password'];
      const confirm = form['confirm-password'];
      const problem: [string, keyof typeof form] | null =
        !password || !confirm
          ? ['Please fill in both password fields', 'new-password']
          : password.length < MIN_PASSWORD_LENGTH
            ? [PASSWORD_TOO_SHORT, 'new-password']
            : password !== confirm
              ? [PASSWORDS_DO_NOT_MATCH, 'confirm-password']
              : needsCurrentPassword && !form['current-password']
                ? ['Please enter your current password', 'current-password']
                : null;
      if (problem) context.addIssue({ code: 'custom', message: problem[0], path: [problem[1]] });
    });
}
export type NewPasswordForm = z.input<ReturnType<typeof newPasswordForm>>;

export { meResponse, meUser, type MeResponse, type MeUser } from './me.ts';

/** POST /api/auth/register: docs/SPEC.md's shape; a refusal answers `{ success: false, error, user: null }`. */
export const registerResponse = z.object({
  success: z.literal(true),
  error: z.null(),
  user: z.object({ id: z.string(), email: z.string(), username: z.string() }),
  // E-mail verification is required, so sign-up never opens a session by itself.
  session: z.null(),
});
export type RegisterResponse = z.infer<typeof registerResponse>;

/** GET /api/account/reset-token?token=: whether a reset link can still be used. */
export const resetTokenQuery = z.object({ token: z.string().min(1).max(200) });
export const resetTokenResponse = z.object({ valid: z.boolean() });

/** POST /api/account/reset-password. */
export const resetPasswordResponse = z.object({ success: z.literal(true) });

/** Better Auth's own answers (sign-in, reset request, sign-out): read only for their status. */
export const betterAuthAnswer = z.unknown();

/** GET /api/test/outbox (TEST_HOOKS only): the latest e-mails the embedded outbox kept. */
export const outboxQuery = z.object({ to: z.string().optional() });
export const outboxResponse = z.object({
  messages: z.array(
    z.object({
      id: z.number(),
      to: z.string(),
      subject: z.string(),
      text: z.string(),
      html: z.string(),
      createdAt: z.date(),
    }),
  ),
});
