// /reset-password: set a new password, either with the e-mailed token (?token=...) or, for a
// signed-in user, with the session and the current password (a session alone must not be
// enough to take over the account). Without a valid token or a session it sends the user to /,
// which then says why when a token was given: the link expired or was already used
// (RESET_LINK_INVALID), with a link to request a new one.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { PASSWORD_UPDATE_REDIRECT_DELAY_MS, MIN_PASSWORD_LENGTH } from '../../shared/constants.ts';
import { PASSWORD_TOO_SHORT, PASSWORDS_DO_NOT_MATCH } from '../../shared/schemas/auth.ts';
import { accountApi } from '../api/account.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { LoadingScreen } from '../auth/guards.tsx';
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
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => void navigate('/dashboard'), PASSWORD_UPDATE_REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  const tokenValid = Boolean(token) && tokenCheck.data?.valid === true;
  const linkRefused = refusedByLink || (Boolean(token) && !tokenValid);
  if (!done) {
    // A refused token still lets a signed-in user change the password: wait to know who it is.
    if (token ? tokenCheck.isPending || (!tokenValid && isLoading) : isLoading) return <LoadingScreen />;
    if (!tokenValid && !user) return <Navigate to="/" replace state={linkRefused ? RESET_LINK_INVALID : null} />;
  }
  // Without a valid e-mailed token this is a signed-in change: it needs the current password.
  const needsCurrentPassword = !tokenValid;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (!password || !confirm) {
      setError('Please fill in both password fields');
      return;
    }
    if (password.length < MIN_PASSWORD_LENGTH) {
      setError(PASSWORD_TOO_SHORT);
      return;
    }
    if (password !== confirm) {
      setError(PASSWORDS_DO_NOT_MATCH);
      return;
    }
    if (needsCurrentPassword && !currentPassword) {
      setError('Please enter your current password');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await accountApi.resetPassword(password, tokenValid ? { token: token! } : { currentPassword });
      setDone(true);
      await refresh();
    } catch (caught) {
      setError(caught instanceof Error && caught.message ? caught.message : 'An unexpected error occurred');
    } finally {
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
              <form onSubmit={(event) => void submit(event)} noValidate className="space-y-4">
                {needsCurrentPassword && (
                  <TextField
                    id="current-password"
                    label="Current password"
                    type="password"
                    autoComplete="current-password"
                    value={currentPassword}
                    onChange={(e) => setCurrentPassword(e.target.value)}
                  />
                )}
                <TextField
                  id="new-password"
                  label="New password"
                  type="password"
                  autoComplete="new-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
                <TextField
                  id="confirm-password"
                  label="Confirm new password"
                  type="password"
                  autoComplete="new-password"
                  value={confirm}
                  onChange={(e) => setConfirm(e.target.value)}
                />
                <ErrorMessage>{error}</ErrorMessage>
                <PrimaryButton busy={busy}>{busy ? 'Updating...' : 'Update password'}</PrimaryButton>
              </form>
            )}
          </div>
        </div>
      </main>
    </div>
  );
}
