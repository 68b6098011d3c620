// The trader's own rules in the track record (issue 36, item 3): GET /api/track-record/mine
// (each firing of the trader's rules as a forecast, resolved and scored like the WATOS
// statements: the live record's scores, and one line per rule with whether it is published) and
// POST /api/track-record/mine/publish {ruleId, published}. The answer's schema is the live
// record's scores from the shared track-record schema plus the rules; the rules' figures beyond
// their id, name and published flag are read when the server sends them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { trackRecordResponse } from '../../../shared/schemas/trackRecord.ts';
import { apiFetch, apiSend } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

const liveRecord = trackRecordResponse.options[0];

const myRule = z.object({
  ruleId: z.number(),
  name: z.string(),
  symbol: z.string().nullish(),
  published: z.boolean(),
  /** Firings resolved and still waiting for their horizon. */
  resolved: z.number().nullish(),
  pending: z.number().nullish(),
  hitRate: z.number().nullish(),
  brierSkill: z.number().nullish(),
});
export type MyRuleRecord = z.infer<typeof myRule>;

export const myTrackRecordResponse = liveRecord.omit({ kind: true, filters: true }).extend({ rules: z.array(myRule) });
export type MyTrackRecord = z.infer<typeof myTrackRecordResponse>;

export function useMyTrackRecord() {
  return useQuery({
    queryKey: queryKeys.trackRecord.mine,
    queryFn: () => apiFetch('/api/track-record/mine', myTrackRecordResponse),
    staleTime: 60_000,
  });
}

/** Publishes or hides one rule's record; the switch moves at once and goes back, with the server's reason, on a refusal. */
export function usePublishRule() {
  const queryClient = useQueryClient();
  const key = queryKeys.trackRecord.mine;
  const setPublished = (ruleId: number, published: boolean) =>
    queryClient.setQueryData<MyTrackRecord>(key, (current) =>
      current
        ? {
            ...current,
            rules: current.rules.map((rule) => (rule.ruleId === ruleId ? { ...rule, published } : rule)),
          }
        : current,
    );
  return useMutation({
    // The answer's body is not read: the list already shows the new state.
    mutationFn: (body: { ruleId: number; published: boolean }) =>
      apiSend('POST', '/api/track-record/mine/publish', z.unknown(), body),
    onMutate: async ({ ruleId, published }) => {
      await queryClient.cancelQueries({ queryKey: key });
      setPublished(ruleId, published);
    },
    onError: (_error, { ruleId, published }) => setPublished(ruleId, !published),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
}
