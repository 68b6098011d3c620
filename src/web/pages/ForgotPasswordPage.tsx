// /forgot-password: request a reset link. The same success message shows whether or not the
// address has an account; after it the form is hidden.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { accountApi } from '../api/account.ts';
import { ErrorMessage, PrimaryButton, SuccessMessage, TextField } from '../ui/forms.tsx';
import { TopNav } from '../ui/TopNav.tsx';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (!email.trim()) {
      setError('Email is required');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await accountApi.requestPasswordReset(email.trim());
      setSent(true);
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
          <h1 className="text-2xl font-bold text-white">Reset your password</h1>
          <p className="mt-2 text-sm text-gray-400">
            Enter the e-mail address of your account and we will send you a link to choose a new password.
          </p>
          <div className="mt-6 space-y-4">
            <SuccessMessage>
              {sent ? 'Password reset email sent! Check your inbox and follow the instructions.' : null}
            </SuccessMessage>
            {!sent && (
              <form onSubmit={(event) => void submit(event)} noValidate className="space-y-4">
                <TextField
                  id="email"
                  label="Email"
                  type="email"
                  autoComplete="email"
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                  required
                />
                <ErrorMessage>{error}</ErrorMessage>
                <PrimaryButton busy={busy}>{busy ? 'Sending...' : 'Send reset link'}</PrimaryButton>
              </form>
            )}
            <p className="text-center text-sm">
              <Link to="/" className="text-indigo-400 hover:text-indigo-300">
                Back to Login
              </Link>
            </p>
          </div>
        </div>
      </main>
    </div>
  );
}
