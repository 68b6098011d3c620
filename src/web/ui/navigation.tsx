// Links and page changes for the components the landing page shares with the rest of the app
// (the top bar, the account menu, the landing itself), without React Router: a first visit to /
// renders the landing alone (src/web/landingStart.tsx) and loads the router with the rest of the
// app only when the visitor goes to another page (scripts/bundleBudget.mjs). Inside the app,
// RouterNavigation (src/web/routerNavigation.tsx) provides the same interface on React Router.
import { createContext, useContext, useEffect, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export interface NavigateOptions {
  replace?: boolean;
  /** Navigation state, read by the page navigated to (React Router's location.state). */
  state?: unknown;
}

export interface Navigation {
  pathname: string;
  state: unknown;
  navigate: (to: string, options?: NavigateOptions) => void;
}

const NavigationContext = createContext<Navigation | null>(null);
export const NavigationProvider = NavigationContext.Provider;

export function useNavigation(): Navigation {
  const navigation = useContext(NavigationContext);
  if (!navigation) throw new Error('useNavigation must be used inside a NavigationProvider');
  return navigation;
}

/** A click the browser should handle itself: a new tab or window, a download, another button. */
function isOwnClick(event: MouseEvent<HTMLAnchorElement>, target: string | undefined): boolean {
  return (
    event.button === 0 &&
    !event.defaultPrevented &&
    !event.metaKey &&
    !event.altKey &&
    !event.ctrlKey &&
    !event.shiftKey &&
    (!target || target === '_self')
  );
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** An <a href> that changes page in place, like React Router's Link. */
export function Link({ to, onClick, target, ...anchor }: LinkProps) {
  const { navigate } = useNavigation();
  return (
    <a
      href={to}
      target={target}
      onClick={(event) => {
        onClick?.(event);
        if (!isOwnClick(event, target)) return;
        event.preventDefault();
        navigate(to);
      }}
      {...anchor}
    />
  );
}

/** A Link that knows whether it points at the current page (aria-current="page"), like React Router's NavLink. */
export function NavLink({
  to,
  className,
  ...link
}: Omit<LinkProps, 'className'> & { className: (state: { isActive: boolean }) => string }) {
  const { pathname } = useNavigation();
  const isActive = pathname === to || pathname.startsWith(to === '/' ? '/' : `${to}/`);
  return <Link to={to} className={className({ isActive })} aria-current={isActive ? 'page' : undefined} {...link} />;
}

/** Goes to another page once rendered, like React Router's Navigate. */
export function Navigate({ to, replace, state }: { to: string } & NavigateOptions) {
  const { navigate } = useNavigation();
  useEffect(() => {
    navigate(to, { replace, state });
  }, [navigate, to, replace, state]);
  return null;
}
