// The whole app on React Router's data router (router.tsx), loaded by main.tsx for every page but
// a first visit to '/', and by landingStart.tsx when the landing hands over to another page.
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { StrictMode } from 'react';
import type { Root } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { router } from './router.tsx';
import type { NavigateOptions } from './ui/navigation.tsx';

/** Renders the app in `root`; with `to`, after going there (the page it replaces stays until then). */
export async function showApp(root: Root, client: QueryClient, to?: string, options?: NavigateOptions) {
  if (to !== undefined) await router.navigate(to, options);
  root.render(
    <StrictMode>
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
