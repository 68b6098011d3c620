// The app's one TanStack Query client (all server state). Who is signed in decides what every
// page shows: GET /api/me is asked as soon as this loads, while the page's code still loads.
import { QueryClient } from '@tanstack/react-query';
import { meQuery } from './auth/AuthProvider.tsx';

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

void queryClient.prefetchQuery(meQuery);
