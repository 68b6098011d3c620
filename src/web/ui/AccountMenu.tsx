// A small account menu in the top bar: the current plan, its period end, cancelling a
// Monthly renewal (access stays until the period ends), and changing the password (the
// signed-in form of /reset-password, which asks for the current one). Closes like a menu: on
// Escape (focus back on its button; the Escape is marked handled so the top bar's own menu
// stays open) and on a click outside it. Below the xl breakpoint it sits in the top bar's
// menu panel and opens in place rather than as a dropdown that could leave a phone's screen.
// On the dashboard it also opens the "Keyboard shortcuts" dialog (the `?` key's), for those who
// do not know the key. The plans (for the plan's name) are asked for when the menu is first
// pointed at, focused or opened, not with the page.
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/http.ts';
import { billingApi, usePlans } from '../api/billing.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { OPEN_SHORTCUTS_EVENT } from '../dashboard/shortcuts/openShortcutsEvent.ts';
import { Link, useNavigation } from './navigation.tsx';

export function AccountMenu() {
  const { user, subscription, hasActiveSubscription, refresh } = useAuth();
  const { pathname } = useNavigation();
  const [wanted, setWanted] = useState(false);
  const plans = usePlans(wanted && subscription !== null);
  const want = () => setWanted(true);
  const [message, setMessage] = useState<string | null>(null);
  const menu = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const details = menu.current;
      if (event.key !== 'Escape' || !details?.open) return;
      event.preventDefault();
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

  if (!user) return null;
  const plan = subscription ? plans.data?.find((entry) => entry.priceId === subscription.price_id) : undefined;
  // The period's end is written once the menu is reached, as its plans are fetched: the closed
  // menu shows nothing, and a page's first Intl date format costs ICU's set-up (11 to 25 ms on a
  // desktop), which the dashboard's first render must not pay before its chart shows.
  const end =
    wanted && subscription?.current_period_end ? new Date(subscription.current_period_end).toLocaleString() : null;

  return (
    <details ref={menu} className="relative" onToggle={want}>
      <summary
        onPointerEnter={want}
        onFocus={want}
        onClick={want}
        className="cursor-pointer list-none rounded border border-gray-700 px-2 py-1 text-gray-300 hover:bg-gray-800"
      >
        Account
      </summary>
      <div className="z-50 mt-2 w-full max-w-72 rounded-lg border border-gray-700 bg-gray-900 p-4 text-sm shadow-xl xl:absolute xl:right-0 xl:w-72">
        <p className="font-semibold text-white">{subscription ? (plan?.name ?? 'Your plan') : 'No plan yet'}</p>
        {subscription && end && (
          <p className="mt-1 text-gray-400">
            {subscription.cancel_at_period_end ? 'Access ends' : plan?.interval === 'month' ? 'Renews' : 'Access until'}{' '}
            {end}
          </p>
        )}
        {subscription && plan?.interval === 'month' && !subscription.cancel_at_period_end && (
          <button
            type="button"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate(subscription.id)}
            className="mt-3 w-full rounded border border-red-700 px-3 py-1.5 text-red-300 hover:bg-red-950 disabled:opacity-60"
          >
            {cancel.isPending ? 'Cancelling...' : 'Cancel renewal'}
          </button>
        )}
        <Link
          to="/reset-password"
          onClick={() => {
            if (menu.current) menu.current.open = false;
          }}
          className="mt-3 block w-full rounded border border-gray-600 px-3 py-1.5 text-center text-gray-200 hover:bg-gray-800"
        >
          Change password
        </Link>
        {pathname === '/dashboard' && hasActiveSubscription && (
          <button
            type="button"
            aria-keyshortcuts="?"
            onClick={() => {
              // Closed first, with focus on its button: the dialog gives focus back there.
              if (menu.current) menu.current.open = false;
              menu.current?.querySelector('summary')?.focus();
              window.dispatchEvent(new Event(OPEN_SHORTCUTS_EVENT));
            }}
            className="mt-3 flex w-full items-center justify-center gap-2 rounded border border-gray-600 px-3 py-1.5 text-gray-200 hover:bg-gray-800"
          >
            Keyboard shortcuts
            <kbd aria-hidden="true" className="rounded border border-gray-600 bg-gray-800 px-1 font-mono text-xs">
              ?
            </kbd>
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
