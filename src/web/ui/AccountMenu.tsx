// A small account menu in the top bar: the current plan, its period end, and cancelling a
// Monthly renewal (access stays until the period ends). Closes like a menu: on Escape (focus
// back on its button) and on a click outside it.
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/http.ts';
import { billingApi, usePlans } from '../api/billing.ts';
import { useAuth } from '../auth/AuthProvider.tsx';

export function AccountMenu() {
  const { subscription, refresh } = useAuth();
  const plans = usePlans();
  const [message, setMessage] = useState<string | null>(null);
  const menu = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const details = menu.current;
      if (event.key !== 'Escape' || !details?.open) return;
      details.open = false;
      details.querySelector('summary')?.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      const details = menu.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, []);
  const cancel = useMutation({
    mutationFn: billingApi.cancelSubscription,
    onSuccess: async () => {
      setMessage('Renewal cancelled. Your access stays until the end of the period.');
      await refresh();
    },
    onError: (error) => setMessage(error instanceof ApiError ? error.message : 'Failed to cancel subscription'),
  });

  if (!subscription) return null;
  const plan = plans.data?.find((entry) => entry.priceId === subscription.price_id);
  const end = subscription.current_period_end ? new Date(subscription.current_period_end).toLocaleString() : null;

  return (
    <details ref={menu} className="relative">
      <summary className="cursor-pointer list-none rounded border border-gray-700 px-2 py-1 text-gray-300 hover:bg-gray-800">
        Account
      </summary>
      <div className="absolute right-0 z-50 mt-2 w-72 rounded-lg border border-gray-700 bg-gray-900 p-4 text-sm shadow-xl">
        <p className="font-semibold text-white">{plan?.name ?? 'Your plan'}</p>
        {end && (
          <p className="mt-1 text-gray-400">
            {subscription.cancel_at_period_end ? 'Access ends' : plan?.interval === 'month' ? 'Renews' : 'Access until'}{' '}
            {end}
          </p>
        )}
        {plan?.interval === 'month' && !subscription.cancel_at_period_end && (
          <button
            type="button"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate(subscription.id)}
            className="mt-3 w-full rounded border border-red-700 px-3 py-1.5 text-red-300 hover:bg-red-950 disabled:opacity-60"
          >
            {cancel.isPending ? 'Cancelling...' : 'Cancel renewal'}
          </button>
        )}
        {message && (
          <p role="status" className="mt-2 text-gray-300">
            {message}
          </p>
        )}
      </div>
    </details>
  );
}
