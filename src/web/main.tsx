// Browser entry: TanStack Query for all server state, React Router's data router for routes.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { meQuery } from './auth/AuthProvider.tsx';
import { router } from './router.tsx';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

document.documentElement.classList.add('dark');

// Who is signed in decides what every page shows: ask now, while the route's code loads.
void queryClient.prefetchQuery(meQuery);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
