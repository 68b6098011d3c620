// A watchlist saved on the server per user ('chart' or 'alerts', GET/PUT /api/watchlists/{kind}),
// so it follows the trader to any device. Changes apply at once and roll back, with a message,
// if the server refuses them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { WatchlistKind } from '../../../shared/schemas/watchlists.ts';
import { ApiError, apiFetch, apiSend, schemaOnDemand } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/** The answer's schema, imported with the first answer (the chart watchlist is on the first paint). */
const watchlistResponse = schemaOnDemand(
  async () => (await import('../../../shared/schemas/watchlists.ts')).watchlistResponse,
);

export function useSavedWatchlist(
  kind: WatchlistKind,
  defaults: readonly string[],
  onError: (message: string) => void,
) {
  const queryClient = useQueryClient();
  const queryKey = queryKeys.watchlists.one(kind);
  const query = useQuery({
    queryKey,
    queryFn: async () => (await apiFetch(`/api/watchlists/${kind}`, watchlistResponse)).symbols,
    placeholderData: [...defaults],
  });
  const save = useMutation({
    mutationFn: (symbols: string[]) => apiSend('PUT', `/api/watchlists/${kind}`, watchlistResponse, { symbols }),
    onMutate: async (symbols) => {
      await queryClient.cancelQueries({ queryKey });
      const previous = queryClient.getQueryData<string[]>(queryKey);
      queryClient.setQueryData(queryKey, symbols);
      return { previous };
    },
    onError: (error, _symbols, context) => {
      queryClient.setQueryData(queryKey, context?.previous);
      onError(error instanceof ApiError ? error.message : 'The watchlist could not be saved');
    },
    onSuccess: (saved) => queryClient.setQueryData(queryKey, saved.symbols),
  });
  return { symbols: query.data ?? [...defaults], save: (symbols: string[]) => save.mutate(symbols) };
}
