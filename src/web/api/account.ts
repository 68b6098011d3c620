// The account calls the pages make: Better Auth endpoints and our own account routes, parsed
// with the shared schemas. The schemas load on first use (`accountSchemas`): they bring zod,
// which the landing route must not load before it renders (scripts/bundleBudget.mjs).
import { apiFetch, apiSend } from './http.ts';

/** The shared account schemas, imported on demand (one chunk with the form rules). */
export const accountSchemas = () => import('../../shared/schemas/auth.ts');
/**
 * GET /api/me's schema alone, not every account and billing shape: every page waits for that
 * answer before it renders, and zod builds each schema of a module when it is evaluated.
 */
const meSchema = () => import('../../shared/schemas/me.ts').then((module) => module.meResponse);

const schema = <K extends keyof Awaited<ReturnType<typeof accountSchemas>>>(name: K) =>
  accountSchemas().then((module) => module[name]);

export const accountApi = {
  /** GET /api/me: who is signed in, and the subscription that decides access. */
  me: () => apiFetch('/api/me', meSchema()),
  signIn: (email: string, password: string) =>
    apiSend('POST', '/api/auth/sign-in/email', schema('betterAuthAnswer'), { email, password, rememberMe: true }),
  /** Ends the session; a refusal (already signed out) is no failure. */
  signOut: () => apiFetch('/api/auth/sign-out', null, { method: 'POST', body: '{}' }),
  register: (email: string, password: string, username: string) =>
    apiSend('POST', '/api/auth/register', schema('registerResponse'), { email, password, username }),
  requestPasswordReset: (email: string) =>
    apiSend('POST', '/api/auth/request-password-reset', schema('betterAuthAnswer'), {
      email,
      redirectTo: `${window.location.origin}/reset-password`,
    }),
  checkResetToken: (token: string) =>
    apiFetch(`/api/account/reset-token?token=${encodeURIComponent(token)}`, schema('resetTokenResponse')),
  /** With the e-mailed token, or (signed in, no token) with the current password. */
  resetPassword: (newPassword: string, proof: { token: string } | { currentPassword: string }) =>
    apiSend('POST', '/api/account/reset-password', schema('resetPasswordResponse'), { newPassword, ...proof }),
};
