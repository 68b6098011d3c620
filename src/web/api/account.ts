// The account calls the pages make: Better Auth endpoints and our own account routes.
import { requestJson } from './http.ts';

export interface RegisterResponse {
  success: boolean;
  error: string | null;
  user: { id: string; email: string; username: string } | null;
  session: unknown;
}

export const accountApi = {
  signIn: (email: string, password: string) =>
    requestJson<unknown>('/api/auth/sign-in/email', {
      method: 'POST',
      body: JSON.stringify({ email, password, rememberMe: true }),
    }),
  register: (email: string, password: string, username: string) =>
    requestJson<RegisterResponse>('/api/auth/register', {
      method: 'POST',
      body: JSON.stringify({ email, password, username }),
    }),
  requestPasswordReset: (email: string) =>
    requestJson<unknown>('/api/auth/request-password-reset', {
      method: 'POST',
      body: JSON.stringify({ email, redirectTo: `${window.location.origin}/reset-password` }),
    }),
  checkResetToken: (token: string) =>
    requestJson<{ valid: boolean }>(`/api/account/reset-token?token=${encodeURIComponent(token)}`),
  /** With the e-mailed token, or (signed in, no token) with the current password. */
  resetPassword: (newPassword: string, proof: { token: string } | { currentPassword: string }) =>
    requestJson<{ success: boolean }>('/api/account/reset-password', {
      method: 'POST',
      body: JSON.stringify({ newPassword, ...proof }),
    }),
};
