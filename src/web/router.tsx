// Every route of docs/SPEC.md section 2 on React Router's data router. Route components load
// lazily so the marketing pages stay small; render errors show 'Unexpected Application Error!'.
// While the first page's lazy route loads, the root's HydrateFallback shows the loading screen
// (without one React Router warns 'No HydrateFallback element provided' on every page load).
// Each page's code must arrive within docs/SPEC.md's chunk load timeout (loadWithin); a page that
// does not shows ErrorPage's 'could not be loaded' with a retry.
import { createBrowserRouter, Outlet } from 'react-router';
import { AuthProvider } from './auth/AuthProvider.tsx';
import { loadWithin } from './chunkLoad.ts';
import { LoadingScreen } from './auth/guards.tsx';
import { ErrorPage } from './pages/ErrorPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { RouterNavigation } from './routerNavigation.tsx';
import { NotificationsProvider } from './ui/Notifications.tsx';

function Root() {
  return (
    <RouterNavigation>
      <AuthProvider>
        <NotificationsProvider>
          <Outlet />
        </NotificationsProvider>
      </AuthProvider>
    </RouterNavigation>
  );
}

export const router = createBrowserRouter([
  {
    element: <Root />,
    HydrateFallback: LoadingScreen,
    errorElement: <ErrorPage />,
    children: [
      {
        path: '/',
        lazy: async () => ({ Component: (await loadWithin(() => import('./pages/LandingPage.tsx'))).LandingPage }),
      },
      {
        path: '/ai-trading-intelligence',
        lazy: async () => ({
          Component: (await loadWithin(() => import('./pages/marketing/pages.tsx'))).AiTradingIntelligencePage,
        }),
      },
      {
        path: '/crypto-analytics-ai',
        lazy: async () => ({
          Component: (await loadWithin(() => import('./pages/marketing/pages.tsx'))).CryptoAnalyticsAiPage,
        }),
      },
      {
        path: '/futures-micro-futures-ai',
        lazy: async () => ({
          Component: (await loadWithin(() => import('./pages/marketing/pages.tsx'))).FuturesMicroFuturesAiPage,
        }),
      },
      {
        path: '/dashboard',
        lazy: async () => ({ Component: (await loadWithin(() => import('./pages/DashboardPage.tsx'))).DashboardPage }),
      },
      {
        path: '/success',
        lazy: async () => ({ Component: (await loadWithin(() => import('./pages/SuccessPage.tsx'))).SuccessPage }),
      },
      {
        path: '/forgot-password',
        lazy: async () => ({
          Component: (await loadWithin(() => import('./pages/ForgotPasswordPage.tsx'))).ForgotPasswordPage,
        }),
      },
      {
        path: '/reset-password',
        lazy: async () => ({
          Component: (await loadWithin(() => import('./pages/ResetPasswordPage.tsx'))).ResetPasswordPage,
        }),
      },
      { path: '*', Component: NotFoundPage },
    ],
  },
]);
