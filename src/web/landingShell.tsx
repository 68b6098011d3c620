// The landing page '/' on its own, without React Router: what a first visit to / renders
// (src/web/landingStart.tsx hydrates it) and what vite.config.ts renders to static markup at
// build time for the HTML '/' is served with, so the page is painted before any script runs.
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { AuthProvider } from './auth/AuthProvider.tsx';
import { LandingPage } from './pages/LandingPage.tsx';
import { NavigationProvider, type Navigation } from './ui/navigation.tsx';
import { NotificationsProvider } from './ui/Notifications.tsx';

/** On the root element of the HTML served for '/': it holds the prerendered landing, which the script hydrates. */
export const LANDING_SHELL_ATTRIBUTE = 'data-landing-shell';

export function LandingShell({ client, navigation }: { client: QueryClient; navigation: Navigation }) {
  return (
    <StrictMode>
      <QueryClientProvider client={client}>
        <NavigationProvider value={navigation}>
          <AuthProvider>
            <NotificationsProvider>
              <LandingPage />
            </NotificationsProvider>
          </AuthProvider>
        </NavigationProvider>
      </QueryClientProvider>
    </StrictMode>
  );
}
