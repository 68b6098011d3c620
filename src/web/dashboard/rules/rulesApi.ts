// Browser side of the alert-rule calls (issue 16): the rules with their caps, the Triggered list
// and the delivery log (each read a page at a time, "Load more" asking for the next), the
// active rules the chart draws, the webhook secret and test-send, and the latest close of a
// symbol (to prefill a price level). Every answer is parsed with the shared schema the server
// sends it with.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import type { z } from 'zod';
import { RULE_PAGE_MAX } from '../../../shared/schemas/alertRuleLimits.ts';
import type {
  AlertRule,
  RuleFiring,
  RuleInput,
  ruleFiringList as ruleFiringListSchema,
} from '../../../shared/schemas/alertRules.ts';
import { apiFetch, apiSend, schemaOnDemand } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

// The answers' schemas, imported when the first answer arrives (the dashboard's first paint
// loads this module: the rule list feeds the chart's alert levels).
const ruleSchemas = () => import('../../../shared/schemas/alertRules.ts');
const alertRule = schemaOnDemand(async () => (await ruleSchemas()).alertRule);
const alertRuleList = schemaOnDemand(async () => (await ruleSchemas()).alertRuleList);
const ruleDeliveryList = schemaOnDemand(async () => (await ruleSchemas()).ruleDeliveryList);
const ruleFiringList = schemaOnDemand(async () => (await ruleSchemas()).ruleFiringList);
const webhookSecretResponse = schemaOnDemand(async () => (await ruleSchemas()).webhookSecretResponse);
const webhookTestResponse = schemaOnDemand(async () => (await ruleSchemas()).webhookTestResponse);
const candleResponse = schemaOnDemand(async () => (await import('../../../shared/schemas/market.ts')).candleResponse);

/** A list's address for one page: the first without a cursor, the next with the last page's. */
const pagePath = (path: string, cursor: string | null) =>
  cursor === null ? path : `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
const pageAfter = (last: { nextCursor: string | null }) => last.nextCursor;

/** The rules, newest first, a page at a time; every page carries the caps and counts. */
export function useRuleList() {
  return useInfiniteQuery({
    queryKey: queryKeys.rules.list,
    initialPageParam: null as string | null,
    getNextPageParam: pageAfter,
    queryFn: ({ pageParam }) => apiFetch(pagePath('/api/alert-rules', pageParam), alertRuleList),
  });
}

/** The active rules (the chart's alert levels): one page holds them all under the default cap. */
export function useActiveRules() {
  return useQuery({
    queryKey: queryKeys.rules.active,
    queryFn: async () => (await apiFetch(`/api/alert-rules?status=active&limit=${RULE_PAGE_MAX}`, alertRuleList)).rules,
  });
}

type FiringPage = z.output<typeof ruleFiringListSchema>;

export function useFirings(enabled = true) {
  return useInfiniteQuery({
    queryKey: queryKeys.rules.firings,
    enabled,
    initialPageParam: null as string | null,
    getNextPageParam: pageAfter,
    queryFn: ({ pageParam }) => apiFetch(pagePath('/api/alert-rules/triggered', pageParam), ruleFiringList),
  });
}

/** The delivery log; its pages are re-read every few seconds while shown, since retries change it on the server. */
export function useDeliveries(enabled: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.rules.deliveries,
    enabled,
    refetchInterval: enabled ? 5_000 : false,
    initialPageParam: null as string | null,
    getNextPageParam: pageAfter,
    queryFn: ({ pageParam }) => apiFetch(pagePath('/api/alert-rules/deliveries', pageParam), ruleDeliveryList),
  });
}

/**
 * A new firing first in the Triggered list (once, whatever the order it arrives in). It joins
 * the first page; the cursors stay right, since each names the last id of its page.
 */
export function withFiring(
  current: InfiniteData<FiringPage, string | null> | undefined,
  firing: RuleFiring,
): InfiniteData<FiringPage, string | null> | undefined {
  if (!current || current.pages.length === 0) return current;
  const pages = current.pages.map((page) => ({
    ...page,
    firings: page.firings.filter((existing) => existing.id !== firing.id),
  }));
  const first = pages[0]!; // not empty: checked above
  pages[0] = { ...first, firings: [firing, ...first.firings] };
  return { ...current, pages };
}

/** Creates (no id) or replaces (an id) a rule; the form gets the server's error text on failure. */
export function useSaveRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: RuleInput }): Promise<AlertRule> =>
      id === null
        ? apiSend('POST', '/api/alert-rules', alertRule, input)
        : apiSend('PUT', `/api/alert-rules/${id}`, alertRule, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.rules.list }),
  });
}

export function useSetRuleStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: number; status: 'active' | 'paused' }) =>
      apiSend('PATCH', `/api/alert-rules/${id}`, alertRule, { status }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.rules.list }),
  });
}

export function useDeleteRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiFetch(`/api/alert-rules/${id}`, null, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.rules.list }),
  });
}

export function useWebhookSecret(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.rules.webhookSecret,
    enabled,
    staleTime: Infinity,
    queryFn: () => apiFetch('/api/alert-rules/webhook', webhookSecretResponse),
  });
}

export function useRotateWebhookSecret() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiSend('POST', '/api/alert-rules/webhook/rotate', webhookSecretResponse),
    onSuccess: (secret) => queryClient.setQueryData(queryKeys.rules.webhookSecret, secret),
  });
}

export function useWebhookTest() {
  return useMutation({
    mutationFn: (url: string) => apiSend('POST', '/api/alert-rules/webhook/test', webhookTestResponse, { url }),
  });
}

/** The newest close of a symbol (its last 1-minute bar), or null when none is stored. */
export function useLastPrice(symbol: string | null) {
  return useQuery({
    queryKey: queryKeys.rules.lastPrice(symbol ?? ''),
    enabled: symbol !== null,
    staleTime: 30_000,
    retry: false,
    queryFn: async () => {
      const query = new URLSearchParams({ symbol: symbol ?? '', granularity: '60', limit: '10' });
      const { candles } = await apiFetch(`/api/market/candles?${query.toString()}`, candleResponse);
      return candles.at(-1)?.close ?? null;
    },
  });
}
