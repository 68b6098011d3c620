// Auth state for screens (docs/SPEC.md section 3): user, hasActiveSubscription,
// isSubscriptionExpired, isLoading and refresh. Loaded at start, refreshed every 5 minutes
// while signed in; subscription rules come from the shared subscriptionState function.
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { USER_REFRESH_INTERVAL_MS } from '../../shared/constants.ts';
import type { MeResponse, MeUser } from '../../shared/schemas/auth.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import { accountApi } from '../api/account.ts';
import { queryKeys } from '../api/queryKeys.ts';

type AuthUser = MeUser;
export type { MeResponse };

export interface AuthState {
  user: AuthUser | null;
  subscription: MeResponse['subscription'];
  hasActiveSubscription: boolean;
  isSubscriptionExpired: boolean;
  isLoading: boolean;
  refresh: () => Promise<void>;
}

export const ME_QUERY_KEY = queryKeys.me;

/**
 * GET /api/me as a query. main.tsx starts it before the first render, in parallel with the
 * route's code (it decides what every page shows); an answer from the last few seconds counts
 * as fresh when AuthProvider mounts, so it is not asked twice. Sign-in, sign-out and the
 * panels that change the plan invalidate it, which always asks again.
 */
export const meQuery = { queryKey: ME_QUERY_KEY, queryFn: accountApi.me, retry: false, staleTime: 10_000 } as const;

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const me = useQuery({
    ...meQuery,
    refetchInterval: (query) => (query.state.data?.user ? USER_REFRESH_INTERVAL_MS : false),
  });

  const value = useMemo<AuthState>(() => {
    const data = me.data;
    const state = subscriptionState(data?.subscription);
    return {
      user: data?.user ?? null,
      subscription: data?.subscription ?? null,
      ...state,
      isLoading: me.isPending,
      refresh: async () => {
        await me.refetch();
      },
    };
  }, [me]);

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth must be used inside <AuthProvider>');
  return state;
}
