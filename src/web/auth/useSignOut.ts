// Signs out on the server, forgets every cached query of the old user, and goes to /.
import { useQueryClient } from '@tanstack/react-query';
import { accountApi } from '../api/account.ts';
import { ApiError } from '../api/http.ts';
import { useNavigation } from '../ui/navigation.tsx';
import { ME_QUERY_KEY, type MeResponse } from './AuthProvider.tsx';

export function useSignOut(): () => Promise<void> {
  const queryClient = useQueryClient();
  const { navigate } = useNavigation();
  return async () => {
    try {
      // A refusal (the session ended already) still signs out here; a network failure is reported.
      await accountApi.signOut().catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
      });
    } finally {
      // Mounted observers keep their last result after a plain clear(): say "signed out" first.
      queryClient.setQueryData<MeResponse>(ME_QUERY_KEY, { user: null, subscription: null });
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== ME_QUERY_KEY[0] });
      navigate('/', { replace: true });
    }
  };
}
