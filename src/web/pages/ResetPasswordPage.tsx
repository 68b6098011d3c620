// /reset-password: set a new password, either with the e-mailed token (?token=...) or, for a
// signed-in user, with the session and the current password (a session alone must not be
// enough to take over the account). Without a valid token or a session it sends the user to /,
// which then says why when a token was given: the link expired or was already used
// (RESET_LINK_INVALID), with a link to request a new one.
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { PASSWORD_UPDATE_REDIRECT_DELAY_MS } from '../../shared/constants.ts';
import { newPasswordForm, type NewPasswordForm } from '../../shared/schemas/auth.ts';
import { accountApi } from '../api/account.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { LoadingScreen } from '../auth/guards.tsx';
import { failureText, firstFormError } from '../ui/formError.ts';
import { ErrorMessage, PrimaryButton, SuccessMessage, TextField } from '../ui/forms.tsx';
import { TopNav } from '../ui/TopNav.tsx';
import { ResetLinkInvalidNotice, RESET_LINK_INVALID } from './resetLinkNotice.tsx';

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  // The e-mailed link passes through Better Auth, which sends a used or expired token on as
  // ?error=INVALID_TOKEN; we also check a ?token= ourselves.
  const refusedByLink = params.get('error') === 'INVALID_TOKEN';
  const { user, isLoading, refresh } = useAuth();
  const navigate = useNavigate();
  const tokenCheck = useQuery({
    queryKey: queryKeys.account.resetToken(token),
    queryFn: () => accountApi.checkResetToken(token ?? ''),
    enabled: Boolean(token),
    retry: false,
  });
  const tokenValid = Boolean(token) && tokenCheck.data?.valid === true;
  // Without a valid e-mailed token this is a signed-in change: it needs the current password.
  const needsCurrentPassword = !tokenValid;
  const { register, handleSubmit, formState, setError } = useForm<NewPasswordForm>({
    defaultValues: { 'current-password': '', 'new-password': '', 'confirm-password': '' },
    // The rules depend on the token: read at each submit, with the token check's latest answer.
    resolver: (values, context, options) =>
      zodResolver(newPasswordForm(needsCurrentPassword))(values, context, options),
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
  });
  // Set only once the form is valid and the request goes: the button reads 'Updating...' then.
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => void navigate('/dashboard'), PASSWORD_UPDATE_REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  const linkRefused = refusedByLink || (Boolean(token) && !tokenValid);
  if (!done) {
    // A refused token still lets a signed-in user change the password: wait to know who it is.
    if (token ? tokenCheck.isPending || (!tokenValid && isLoading) : isLoading) return <LoadingScreen />;
    if (!tokenValid && !user) return <Navigate to="/" replace state={linkRefused ? RESET_LINK_INVALID : null} />;
  }

  async function update(form: NewPasswordForm) {
    const [newPassword, currentPassword] = [form['new-password'], form['current-password']];
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await accountApi.resetPassword(newPassword, tokenValid ? { token: token! } : { currentPassword });
      setDone(true);
      await refresh();
    } catch (caught) {
      setError('root.server', { message: failureText(caught) });
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }

  return (
    <div className="min-h-screen">
      <TopNav />
      <main className="mx-auto max-w-md px-6 py-16">
        <div className="rounded-2xl border border-gray-800 bg-gray-900 p-6 shadow-xl">
          <h1 className="text-2xl font-bold text-white">Choose a new password</h1>
          <div className="mt-6 space-y-4">
            {linkRefused && !done && <ResetLinkInvalidNotice />}
            <SuccessMessage>{done ? 'Password updated successfully!' : null}</SuccessMessage>
            {!done && (
              <form onSubmit={(event) => void handleSubmit(update)(event)} noValidate className="space-y-4">
                {needsCurrentPassword && (
                  <TextField
                    id="current-password"
                    label="Current password"
                    type="password"
                    autoComplete="current-password"
                    {...register('current-password')}
                  />
                )}
                <TextField
                  id="new-password"
                  label="New password"
                  type="password"
                  autoComplete="new-password"
                  {...register('new-password')}
                />
                <TextField
                  id="confirm-password"
                  label="Confirm new password"
                  type="password"
                  autoComplete="new-password"
                  {...register('confirm-password')}
                />
                <ErrorMessage>{firstFormError(formState.errors)}</ErrorMessage>
                <PrimaryButton busy={busy}>{busy ? 'Updating...' : 'Update password'}</PrimaryButton>
              </form>
            )}
          </div>
        </div>
      </main>
    </div>
  );
}
