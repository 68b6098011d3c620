// Browser entry: TanStack Query for all server state. A first visit to '/' renders the landing
// page alone (landingStart.tsx), hydrating the markup it was served with; every other page loads
// the app with React Router's data router (app.tsx). The landing route's scripts stay small
// (scripts/bundleBudget.mjs).
import { QueryClient } from '@tanstack/react-query';
import { createRoot } from 'react-dom/client';
import { meQuery } from './auth/AuthProvider.tsx';
import { loadWithin } from './chunkLoad.ts';
import { startLanding } from './landingStart.tsx';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

document.documentElement.classList.add('dark');

// Who is signed in decides what every page shows: ask now, while the route's code loads.
void queryClient.prefetchQuery(meQuery);

const container = document.getElementById('root')!;
if (window.location.pathname === '/') {
  startLanding(container, queryClient);
} else {
  const root = createRoot(container);
  loadWithin(() => import('./app.tsx')).then(
    ({ showApp }) => showApp(root, queryClient),
    (error: unknown) =>
      // The route tree's ErrorPage comes with the app: the same 'Page failed to load', with a retry.
      root.render(
        <main className="mx-auto max-w-2xl px-6 py-20 text-center">
          <h1 className="text-3xl font-bold text-red-400">Page failed to load</h1>
          <p role="alert" className="mt-4 text-gray-300">
            {error instanceof Error ? error.message : String(error)}
          </p>
          <div className="mt-8 flex justify-center gap-4">
            <button
              type="button"
              className="rounded bg-indigo-600 px-4 py-2 text-white hover:bg-indigo-500"
              onClick={() => window.location.reload()}
            >
              Try again
            </button>
            <a href="/" className="rounded border border-gray-600 px-4 py-2 text-gray-200 hover:bg-gray-800">
              Back to Home
            </a>
          </div>
        </main>,
      ),
  );
}
