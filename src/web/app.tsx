// The whole app on React Router's data router (router.tsx), loaded by main.tsx for every page but
// a first visit to '/', and by landingStart.tsx when the landing hands over to another page.
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { queryClient } from './queryClient.ts';
import { router } from './router.tsx';
import type { NavigateOptions } from './ui/navigation.tsx';

/**
 * Renders the app in `target` (a new root in that element, or the landing's root); with `to`,
 * after going there (the page it replaces stays until then).
 */
export async function showApp(target: HTMLElement | Root, to?: string, options?: NavigateOptions) {
  if (to !== undefined) await router.navigate(to, options);
  const root = target instanceof HTMLElement ? createRoot(target) : target;
  // The boot script of the HTML the page came with (src/shared/bootScript.ts) stops holding form
  // submissions: the app's own handlers take them from here.
  document.documentElement.setAttribute('data-hydrated', '');
  root.render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
