// Top navigation bar (docs/SPEC.md section 2): marketing links, the /dashboard link for subscribers
// away from it, subscription status, the user's name, 'Take Tour' and 'Sign Out'. The tour shows
// the dashboard, so 'Take Tour' is for subscribers: on /dashboard it fires the window event
// `startTour`; elsewhere it goes to /dashboard, which starts the tour on arrival (TOUR_ON_ARRIVAL).
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { useAuth } from '../auth/AuthProvider.tsx';
import { useSignOut } from '../auth/useSignOut.ts';
import { AccountMenu } from './AccountMenu.tsx';

export const MARKETING_LINKS = [
  { to: '/ai-trading-intelligence', label: 'AI Trading Intelligence' },
  { to: '/crypto-analytics-ai', label: 'Crypto Analytics AI' },
  { to: '/futures-micro-futures-ai', label: 'Futures & Micro-Futures AI' },
] as const;

/** Navigation state that asks /dashboard to start the guided tour once it is shown. */
export const TOUR_ON_ARRIVAL = { startTour: true } as const;

function formatDate(value: string | Date): string {
  return new Date(value).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function TopNav() {
  const { user, subscription, hasActiveSubscription } = useAuth();
  const { pathname } = useLocation();
  const signOut = useSignOut();
  const navigate = useNavigate();

  const takeTour = () => {
    if (pathname === '/dashboard') window.dispatchEvent(new Event('startTour'));
    else void navigate('/dashboard', { state: TOUR_ON_ARRIVAL });
  };

  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `rounded px-2 py-1 text-sm transition-colors ${isActive ? 'bg-gray-800 text-white' : 'text-gray-300 hover:text-white'}`;

  return (
    <header className="border-b border-gray-800 bg-gray-900/95">
      <nav aria-label="Main" className="mx-auto flex max-w-[1920px] flex-wrap items-center gap-3 px-4 py-2">
        <Link to="/" className="mr-2 flex items-center gap-2 font-semibold text-indigo-300">
          <img src="/favicon.svg" alt="" width={24} height={24} />
          WATOS
        </Link>
        {MARKETING_LINKS.map((link) => (
          <NavLink key={link.to} to={link.to} className={linkClass}>
            {link.label}
          </NavLink>
        ))}
        {user && hasActiveSubscription && pathname !== '/dashboard' && (
          <NavLink to="/dashboard" className={linkClass}>
            Dashboard
          </NavLink>
        )}
        {user && (
          <div className="ml-auto flex flex-wrap items-center gap-3 text-sm">
            {hasActiveSubscription ? (
              <span className="rounded bg-green-900/60 px-2 py-1 text-green-300" data-testid="subscription-status">
                {subscription?.current_period_end
                  ? `Active until ${formatDate(subscription.current_period_end)}`
                  : 'Active'}
              </span>
            ) : (
              <span className="rounded bg-red-900/60 px-2 py-1 text-red-300" data-testid="subscription-status">
                No subscription
              </span>
            )}
            <span className="text-gray-300" data-testid="nav-user">
              {user.username || user.email}
            </span>
            <AccountMenu />
            {hasActiveSubscription && (
              <button
                type="button"
                className="rounded bg-indigo-600 px-3 py-1 font-medium text-white hover:bg-indigo-500"
                onClick={takeTour}
              >
                Take Tour
              </button>
            )}
            <button
              type="button"
              className="rounded border border-gray-600 px-3 py-1 text-gray-200 hover:bg-gray-800"
              onClick={() => void signOut()}
            >
              Sign Out
            </button>
          </div>
        )}
      </nav>
    </header>
  );
}
