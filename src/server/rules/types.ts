// The shapes the parts of the alert-rules feature hand each other: the store's active rules,
// the engine's per-symbol update (the alert engine's, alerts/service.ts), the evaluator's
// firing drafts.
import type { RuleCondition, RuleTimeframe, RuleTrigger } from '../../shared/schemas/alertRules.ts';

export type { SymbolUpdate } from '../alerts/service.ts';

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
