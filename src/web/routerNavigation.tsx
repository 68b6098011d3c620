// The app's navigation (src/web/ui/navigation.tsx) on React Router: the shared components' links
// and page changes go through the router inside the app.
import { useMemo, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { NavigationProvider, type Navigation } from './ui/navigation.tsx';

export function RouterNavigation({ children }: { children: ReactNode }) {
  const location = useLocation();
  const navigate = useNavigate();
  const value = useMemo<Navigation>(
    () => ({
      pathname: location.pathname,
      state: location.state as unknown,
      navigate: (to, options) => void navigate(to, options),
    }),
    [location, navigate],
  );
  return <NavigationProvider value={value}>{children}</NavigationProvider>;
}
