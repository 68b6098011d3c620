// The trader's own rules in the track record (issue 36, item 3): GET /api/track-record/mine
// (each firing of the trader's rules as a forecast, resolved and scored like the WATOS
// statements: the live record's shape, one "signal" a rule, its id `rule:<id>`, and each rule's
// published flag), POST /api/track-record/mine/publish {ruleId, published}, and the rules every
// trader published (GET /api/track-record/rules), scored apart from the product's own record.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  myTrackRecordResponse,
  trackRecordResponse,
  type LiveTrackRecord,
} from '../../../shared/schemas/trackRecord.ts';
import { apiFetch, apiSend } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

type MyTrackRecordAnswer = z.infer<typeof myTrackRecordResponse>;

export interface MyRuleRecord {
  ruleId: number;
  name: string;
  published: boolean;
  resolved: number;
  hitRate: number | null;
  brierSkill: number | null;
}

export type MyTrackRecord = Omit<MyTrackRecordAnswer, 'rules'> & { rules: MyRuleRecord[] };

const RULE_SIGNAL = /^rule:(\d+)$/;

/** One line per rule from the record's per-"signal" scores, with its published flag. */
function myRulesOf(answer: MyTrackRecordAnswer): MyTrackRecord {
  const published = new Map(answer.rules.map((rule) => [rule.ruleId, rule.published]));
  const rules = answer.signals.flatMap((signal): MyRuleRecord[] => {
    const match = RULE_SIGNAL.exec(signal.signal);
    if (!match) return [];
    const ruleId = Number(match[1]);
    return [
      {
        ruleId,
        name: signal.name,
        published: published.get(ruleId) ?? false,
        resolved: signal.count,
        hitRate: signal.hitRate,
        brierSkill: signal.brierSkill,
      },
    ];
  });
  return { ...answer, rules };
}

/** The rules traders published, scored apart from the product's record. */
export function usePublishedRules() {
  return useQuery({
    queryKey: queryKeys.trackRecord.publishedRules,
    queryFn: async () => (await apiFetch('/api/track-record/rules', trackRecordResponse)) as LiveTrackRecord,
    staleTime: 60_000,
  });
}

export function useMyTrackRecord() {
  return useQuery({
    queryKey: queryKeys.trackRecord.mine,
    queryFn: async () => myRulesOf(await apiFetch('/api/track-record/mine', myTrackRecordResponse)),
    staleTime: 60_000,
  });
}

const publishResponse = z.object({ ruleId: z.number(), published: z.boolean() });

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
    mutationFn: (body: { ruleId: number; published: boolean }) =>
      apiSend('POST', '/api/track-record/mine/publish', publishResponse, body),
    onMutate: async ({ ruleId, published }) => {
      await queryClient.cancelQueries({ queryKey: key });
      setPublished(ruleId, published);
    },
    onSuccess: (answer) => {
      setPublished(answer.ruleId, answer.published);
      void queryClient.invalidateQueries({ queryKey: queryKeys.trackRecord.publishedRules });
    },
    onError: (_error, { ruleId, published }) => setPublished(ruleId, !published),
  });
}
