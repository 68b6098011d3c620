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
  /** Firings whose horizon has not passed yet. */
  pending: number;
  hitRate: number | null;
  brierSkill: number | null;
}

export type MyTrackRecord = Omit<MyTrackRecordAnswer, 'rules'> & { rules: MyRuleRecord[] };

const RULE_SIGNAL = /^rule:(\d+)$/;

/** One line per rule of the record (pending ones too), with its scores once it has resolved forecasts. */
function myRulesOf(answer: MyTrackRecordAnswer): MyTrackRecord {
  const scored = new Map(
    answer.signals.flatMap((signal) => {
      const match = RULE_SIGNAL.exec(signal.signal);
      return match ? [[Number(match[1]), signal] as const] : [];
    }),
  );
  const rules = answer.rules.map((rule): MyRuleRecord => {
    const scores = scored.get(rule.ruleId);
    return {
      ruleId: rule.ruleId,
      name: rule.name,
      published: rule.published,
      resolved: scores?.count ?? rule.resolved,
      pending: rule.pending,
      hitRate: scores?.hitRate ?? null,
      brierSkill: scores?.brierSkill ?? null,
    };
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
