// Request schemas of the account calls, shared by the server (validation) and the browser
// (the same rules and the same SPEC.md texts before anything is sent).
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../constants.ts';

export const PASSWORD_TOO_SHORT = 'Password must be at least 6 characters long';
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';

const email = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(254, 'Email is too long')
  .pipe(z.email('Please enter a valid email address'));

const password = z
  .string({ error: 'Password is required' })
  .min(1, 'Password is required')
  .min(MIN_PASSWORD_LENGTH, PASSWORD_TOO_SHORT)
  .max(128, 'Password must be at most 128 characters long');

export const registerRequest = z.object({
  email,
  password,
  username: z
    .string({ error: 'Username is required' })
    .trim()
    .min(1, 'Username is required')
    .max(40, 'Username must be at most 40 characters long'),
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
