// Top navigation bar (docs/SPEC.md section 2): marketing links, the /dashboard link for subscribers
// away from it, subscription status, the user's name, 'Take Tour' and 'Sign Out'. The tour shows
// the dashboard: for a subscriber 'Take Tour' on /dashboard fires the window event `startTour`;
// elsewhere it goes to /dashboard, which starts the tour on arrival (TOUR_ON_ARRIVAL). A signed-in
// user without a plan is told what the tour needs and shown the plans.
//
// Below the xl breakpoint (1280px) the links and the account block collapse behind a 'Menu'
// button (a disclosure: aria-expanded; Escape, a click outside, following a link or changing
// page close it), so a phone gets one row instead of four.
import { useEffect, useRef, useState } from 'react';
import { useAuth } from '../auth/AuthProvider.tsx';
import { useSignOut } from '../auth/useSignOut.ts';
import { AccountMenu } from './AccountMenu.tsx';
import { Link, NavLink, useNavigation } from './navigation.tsx';
import { shortDate } from './dates.ts';
import { useNotify } from './Notifications.tsx';

const MARKETING_LINKS = [
  { to: '/ai-trading-intelligence', label: 'AI Trading Intelligence' },
  { to: '/crypto-analytics-ai', label: 'Crypto Analytics AI' },
  { to: '/futures-micro-futures-ai', label: 'Futures & Micro-Futures AI' },
] as const;

/** Navigation state that asks /dashboard to start the guided tour once it is shown. */
export const TOUR_ON_ARRIVAL = { startTour: true } as const;

/** Told to a signed-in user without a plan who presses 'Take Tour'. */
export const TOUR_NEEDS_PLAN =
  'The guided tour walks through the dashboard, which opens once you have a plan. Choose a plan below, then press Take Tour.';

export function TopNav() {
  const { user, subscription, hasActiveSubscription } = useAuth();
  const { pathname, navigate } = useNavigation();
  const signOut = useSignOut();
  const notify = useNotify();
  // The page the menu was opened on: moving to another page closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const setOpen = (value: boolean) => setOpenOn(value ? pathname : null);
  const nav = useRef<HTMLElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      // An Escape the Account menu inside has handled closes only that menu.
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      setOpenOn(null);
      toggle.current?.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      if (!nav.current?.contains(event.target as Node)) setOpenOn(null);
    };
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, [open]);

  const takeTour = () => {
    setOpen(false);
    if (!hasActiveSubscription) {
      notify(TOUR_NEEDS_PLAN);
      if (pathname !== '/') navigate('/');
      requestAnimationFrame(() => document.getElementById('plans-heading')?.scrollIntoView({ behavior: 'smooth' }));
      return;
    }
    if (pathname === '/dashboard') window.dispatchEvent(new Event('startTour'));
    else navigate('/dashboard', { state: TOUR_ON_ARRIVAL });
  };

  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `rounded px-2 py-1 text-sm transition-colors ${isActive ? 'bg-gray-800 text-white' : 'text-gray-300 hover:text-white'}`;
  const closeOnFollow = () => setOpen(false);

  return (
    <header className="relative z-40 border-b border-gray-800 bg-gray-900/95">
      <nav ref={nav} aria-label="Main" className="mx-auto flex max-w-[1920px] items-center gap-3 px-4 py-2">
        <Link to="/" className="mr-2 flex shrink-0 items-center gap-2 font-semibold text-indigo-300">
          <img src="/favicon.svg" alt="" width={24} height={24} />
          WATOS
        </Link>
        <button
          ref={toggle}
          type="button"
          aria-expanded={open}
          aria-controls="main-menu"
          onClick={() => setOpen(!open)}
          className="ml-auto flex items-center gap-2 rounded border border-gray-700 px-3 py-1.5 text-sm text-gray-200 hover:bg-gray-800 xl:hidden"
        >
          <svg
            aria-hidden
            viewBox="0 0 24 24"
            className="h-4 w-4"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
          >
            {open ? <path d="M6 6l12 12M18 6 6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
          </svg>
          Menu
        </button>
        <div
          id="main-menu"
          className={`${open ? 'flex' : 'hidden'} absolute inset-x-0 top-full max-h-[calc(100vh-3.5rem)] flex-col items-stretch gap-2 overflow-y-auto border-b border-gray-800 bg-gray-900 p-4 shadow-xl xl:static xl:flex xl:max-h-none xl:min-w-0 xl:flex-1 xl:flex-row xl:flex-wrap xl:items-center xl:gap-3 xl:overflow-visible xl:border-0 xl:bg-transparent xl:p-0 xl:shadow-none`}
        >
          {MARKETING_LINKS.map((link) => (
            <NavLink key={link.to} to={link.to} className={linkClass} onClick={closeOnFollow}>
              {link.label}
            </NavLink>
          ))}
          {user && hasActiveSubscription && pathname !== '/dashboard' && (
            <NavLink to="/dashboard" className={linkClass} onClick={closeOnFollow}>
              Dashboard
            </NavLink>
          )}
          {user && (
            <div className="flex flex-wrap items-center gap-3 border-t border-gray-800 pt-3 text-sm xl:ml-auto xl:border-0 xl:pt-0">
              {hasActiveSubscription ? (
                <span className="rounded bg-green-900/60 px-2 py-1 text-green-300" data-testid="subscription-status">
                  {subscription?.current_period_end
                    ? `Active until ${shortDate(subscription.current_period_end)}`
                    : 'Active'}
                </span>
              ) : (
                <span className="rounded bg-red-900/60 px-2 py-1 text-red-300" data-testid="subscription-status">
                  No subscription
                </span>
              )}
              <span className="min-w-0 break-all text-gray-300" data-testid="nav-user">
                {user.username || user.email}
              </span>
              <AccountMenu />
              <button
                type="button"
                className="rounded bg-indigo-600 px-3 py-1 font-medium text-white hover:bg-indigo-500"
                onClick={takeTour}
              >
                Take Tour
              </button>
              <button
                type="button"
                className="rounded border border-gray-600 px-3 py-1 text-gray-200 hover:bg-gray-800"
                onClick={() => void signOut()}
              >
                Sign Out
              </button>
            </div>
          )}
        </div>
      </nav>
    </header>
  );
}
