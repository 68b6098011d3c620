// /forgot-password: request a reset link. The same success message shows whether or not the
// address has an account; after it the form is hidden.
import { zodResolver } from '@hookform/resolvers/zod';
import { useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { forgotPasswordForm, type ForgotPasswordForm } from '../../shared/schemas/auth.ts';
import { accountApi } from '../api/account.ts';
import { failureText, firstFormError } from '../ui/formError.ts';
import { ErrorMessage, PrimaryButton, SuccessMessage, TextField } from '../ui/forms.tsx';
import { TopNav } from '../ui/TopNav.tsx';

export function ForgotPasswordPage() {
  const { register, handleSubmit, formState, setError } = useForm<ForgotPasswordForm>({
    defaultValues: { email: '' },
    resolver: zodResolver(forgotPasswordForm),
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
  });
  // Set only once the form is valid and the request goes: the button reads 'Sending...' then.
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const [sent, setSent] = useState(false);

  async function send({ email }: { email: string }) {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await accountApi.requestPasswordReset(email);
      setSent(true);
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
          <h1 className="text-2xl font-bold text-white">Reset your password</h1>
          <p className="mt-2 text-sm text-gray-400">
            Enter the e-mail address of your account and we will send you a link to choose a new password.
          </p>
          <div className="mt-6 space-y-4">
            <SuccessMessage>
              {sent ? 'Password reset email sent! Check your inbox and follow the instructions.' : null}
            </SuccessMessage>
            {!sent && (
              <form onSubmit={(event) => void handleSubmit(send)(event)} noValidate className="space-y-4">
                <TextField id="email" label="Email" type="email" autoComplete="email" required {...register('email')} />
                <ErrorMessage>{firstFormError(formState.errors)}</ErrorMessage>
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
