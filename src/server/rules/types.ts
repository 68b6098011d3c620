// The shapes the parts of the alert-rules feature hand each other: the store's active rules,
// the engine's per-symbol update (the alert engine's, alerts/service.ts), the evaluator's
// firing drafts.
import type { RuleCondition, RuleTimeframe, RuleTrigger } from '../../shared/schemas/alertRules.ts';

import type { SymbolUpdate } from '../alerts/service.ts';

export type { SymbolUpdate };

/** An active rule as the evaluator holds it (times in epoch ms). */
export interface ActiveRule {
  id: number;
  userId: string;
  name: string;
  /** Canonical id: AAPL, BTC-USD, MES1!. */
  symbol: string;
  ticker: string;
  timeframe: RuleTimeframe;
  condition: RuleCondition;
  trigger: RuleTrigger;
  /** No firing at or after this time; null: never expires. */
  expiresAt: number | null;
  /** The message template, or null for the default message. */
  message: string | null;
}

/** A firing the evaluator found, before it is recorded (idempotently, by ruleId + triggerKey). */
export interface FiringDraft {
  ruleId: number;
  userId: string;
  symbol: string;
  /** 0 for "once", the rule's bar open time (ms) for "once per bar", the one-minute bar's time for "every time". */
  triggerKey: number;
  /** Open time (ms) of the one-minute bar that triggered it. */
  barTime: number;
  price: number;
  /** The rule's message template filled in (or the default message). */
  message: string;
  source: string;
}

/**
 * "Alert me when a symbol enters this scan" (issue 36): a rule row whose symbol is
 * SCAN_RULE_SYMBOL (the whole universe) and whose condition names a saved scan. It never reaches
 * the per-symbol evaluator, the rules list or the rule form: the store keeps it apart
 * (loadScanEntryRules) and the runtime hands it to the scan feature's ScanEntryEvaluator.
 */
export const SCAN_RULE_SYMBOL = '*';

export interface ScanEntryCondition {
  kind: 'scan_entry';
  scanId: number;
}

/** A stored rule condition that is a scan entry (the column is typed for the per-symbol conditions). */
export function isScanEntryCondition(condition: unknown): condition is ScanEntryCondition {
  return (
    typeof condition === 'object' &&
    condition !== null &&
    (condition as { kind?: unknown }).kind === 'scan_entry' &&
    typeof (condition as { scanId?: unknown }).scanId === 'number'
  );
}

/** An active scan-entry rule as the runtime holds it. */
export interface ScanEntryRule {
  id: number;
  userId: string;
  name: string;
  scanId: number;
  timeframe: RuleTimeframe;
  expiresAt: number | null;
}

/**
 * Evaluates the scan-entry rules on an engine pass's updates: a symbol that matches its scan at
 * a bar of the scan's timeframe that just closed, and did not match at the bar before, fires
 * once; triggerKey makes (rule, symbol, bar) unique. Implemented by the scans feature.
 */
export interface ScanEntryEvaluator {
  evaluate(updates: readonly SymbolUpdate[], rules: readonly ScanEntryRule[]): Promise<FiringDraft[]>;
}
