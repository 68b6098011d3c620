// /success: after payment. Re-checks the checkout session on the server (fulfilling it if
// the webhook is late), refreshes the user, validates the subscription it started
// (GET /api/subscriptions/validate/{id}), shows 'Subscription Successful!' and moves on to
// /dashboard after 3 seconds. A failed validation shows the server's error, or docs/SPEC.md's
// 'Failed to validate subscription', and stays on the page so the trader can read it.
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PAYMENT_REDIRECT_DELAY_MS } from '../../shared/constants.ts';
import { billingApi } from '../api/billing.ts';
import { ApiError } from '../api/http.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { RequireUser } from '../auth/guards.tsx';
import { TopNav } from '../ui/TopNav.tsx';

function SuccessContent() {
  const [params] = useSearchParams();
  const sessionId = params.get('session_id');
  const { refresh, subscription } = useAuth();
  const navigate = useNavigate();
  const confirmation = useQuery({
    queryKey: queryKeys.billing.confirmation(sessionId),
    queryFn: async () => {
      const result = await billingApi.confirmCheckout(sessionId ?? '');
      await refresh();
      return result;
    },
    enabled: Boolean(sessionId),
    retry: 2,
  });

  const subscriptionId = subscription?.id ?? null;
  const validation = useQuery({
    queryKey: queryKeys.billing.validation(subscriptionId),
    queryFn: () => billingApi.validateSubscription(subscriptionId ?? ''),
    // After the session check, so the subscription it fulfilled is the one validated.
    enabled: Boolean(subscriptionId) && (!sessionId || !confirmation.isPending),
    retry: false,
  });
  const validationFailed = validation.isError;

  useEffect(() => {
    if (validationFailed) return;
    const timer = setTimeout(() => void navigate('/dashboard'), PAYMENT_REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [navigate, validationFailed]);

  return (
    <main className="mx-auto max-w-lg px-6 py-20 text-center">
      <div
        className="mx-auto flex h-16 w-16 items-center justify-center rounded-full bg-green-600 text-3xl text-white"
        aria-hidden
      >
        ✓
      </div>
      <h1 className="mt-6 text-3xl font-bold text-white">Subscription Successful!</h1>
      <p className="mt-3 text-gray-300">
        {confirmation.data?.status === 'open'
          ? 'Your payment is still being confirmed by the payment provider. Your access starts as soon as it arrives.'
          : 'Thank you. Your access is active; taking you to the dashboard...'}
      </p>
      {validationFailed && (
        <p role="alert" className="mt-4 text-sm text-red-400">
          {validation.error instanceof ApiError &&
          validation.error.message &&
          !validation.error.message.startsWith('API error:')
            ? validation.error.message
            : 'Failed to validate subscription'}
        </p>
      )}
      <div className="mt-8 flex justify-center gap-4">
        <Link
          to="/dashboard"
          className="rounded-lg bg-indigo-600 px-5 py-2.5 font-semibold text-white hover:bg-indigo-500"
        >
          Start Trading with AI
        </Link>
        <Link to="/" className="rounded-lg border border-gray-600 px-5 py-2.5 text-gray-200 hover:bg-gray-800">
          Back to Home
        </Link>
      </div>
    </main>
  );
}

export function SuccessPage() {
  return (
    <RequireUser>
      <div className="min-h-screen">
        <TopNav />
        <SuccessContent />
      </div>
    </RequireUser>
  );
}
