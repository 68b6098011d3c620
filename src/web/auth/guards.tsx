// Route guards of docs/SPEC.md section 2: the dashboard needs a signed-in user with an active,
// non-expired subscription; /success needs a user. Failing users go to / replacing history.
import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { useAuth } from './AuthProvider.tsx';

export function LoadingScreen() {
  return <div className="flex min-h-screen items-center justify-center text-gray-300">Loading...</div>;
}

export function RequireSubscription({ children }: { children: ReactNode }) {
  const { user, isLoading, hasActiveSubscription, isSubscriptionExpired } = useAuth();
  if (isLoading) return <LoadingScreen />;
  if (!user || isSubscriptionExpired || !hasActiveSubscription) return <Navigate to="/" replace />;
  return children;
}

export function RequireUser({ children }: { children: ReactNode }) {
  const { user, isLoading } = useAuth();
  if (isLoading) return <LoadingScreen />;
  if (!user) return <Navigate to="/" replace />;
  return children;
}
