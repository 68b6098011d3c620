// Browser side of the alert-rule calls (issue 16): the rules with their cap, the Triggered list,
// the delivery log, the webhook secret and test-send, and the latest close of a symbol (to
// prefill a price level). Every answer is parsed with the shared schema the server sends it with.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  AlertRule,
  RuleFiring,
  RuleInput,
  webhookTestResponse as webhookTestSchema,
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

/** How many firings and deliveries the panel shows. */
export const RULE_LOG_LIMIT = 50;

export function useRuleList() {
  return useQuery({ queryKey: queryKeys.rules.list, queryFn: () => apiFetch('/api/alert-rules', alertRuleList) });
}

export function useFirings(enabled = true) {
  return useQuery({
    queryKey: queryKeys.rules.firings,
    enabled,
    queryFn: async () => (await apiFetch(`/api/alert-rules/triggered?limit=${RULE_LOG_LIMIT}`, ruleFiringList)).firings,
  });
}

/** The delivery log; re-read every few seconds while shown, since retries change it on the server. */
export function useDeliveries(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.rules.deliveries,
    enabled,
    refetchInterval: enabled ? 5_000 : false,
    queryFn: async () =>
      (await apiFetch(`/api/alert-rules/deliveries?limit=${RULE_LOG_LIMIT}`, ruleDeliveryList)).deliveries,
  });
}

/** A new firing first in the Triggered list (once, whatever the order it arrives in). */
export function withFiring(current: RuleFiring[] | undefined, firing: RuleFiring): RuleFiring[] {
  return [firing, ...(current ?? []).filter((existing) => existing.id !== firing.id)].slice(0, RULE_LOG_LIMIT);
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

export type WebhookTestResult = z.output<typeof webhookTestSchema>;

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
