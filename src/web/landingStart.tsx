// A first visit to '/': the landing page alone, hydrating the markup the page was served with
// (landingShell.tsx). Going to any other page (a link, the dashboard after login, the tour)
// loads the rest of the app with React Router (app.tsx) and hands the page over to it, with the
// query cache (who is signed in, the plans) kept. Keeps React Router off the landing route's
// scripts (scripts/bundleBudget.mjs).
import { startTransition } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { loadWithin } from './chunkLoad.ts';
import { LANDING_SHELL_ATTRIBUTE, LandingShell } from './landingShell.tsx';
import { queryClient as client } from './queryClient.ts';
import type { Navigation } from './ui/navigation.tsx';

export function startLanding(container: HTMLElement): void {
  let leaving = false;
  const navigation: Navigation = {
    pathname: '/',
    // React Router keeps navigation state in history.state.usr: a reload keeps it, as in the app.
    state: (window.history.state as { usr?: unknown } | null)?.usr ?? null,
    navigate: (to, options) => {
      if (leaving || new URL(to, window.location.href).pathname === '/') return;
      leaving = true;
      loadWithin(() => import('./app.tsx')).then(
        ({ showApp }) => showApp(root, to, options),
        // The app's code did not arrive: go there the ordinary way, a page load.
        () => window.location.assign(to),
      );
    },
  };
  const page = <LandingShell client={client} navigation={navigation} />;
  let root: Root;
  if (container.hasAttribute(LANDING_SHELL_ATTRIBUTE)) {
    // A transition: React hydrates the painted page in slices, yielding to the browser between
    // them, instead of in one long task that holds up a tap on the page.
    startTransition(() => {
      root = hydrateRoot(container, page);
    });
  } else {
    root = createRoot(container);
    root.render(page);
  }
}
