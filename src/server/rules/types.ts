// The shapes the parts of the alert-rules feature hand each other: the store's active rules,
// the engine's per-symbol update, the evaluator's firing drafts.
import type { RuleCondition, RuleTimeframe, RuleTrigger } from '../../shared/schemas/alertRules.ts';
import type { CandleInput } from '../../signals/candles.ts';

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

/** What the engine hands the rules after a pass over one symbol (bars oldest first, times in ms). */
export interface SymbolUpdate {
  /** Canonical id. */
  productId: string;
  /** Where the bars came from: coinbase, yahoo or demo. */
  source: string;
  /** One-minute bars that just closed (the price updates), oldest first. */
  minutes: CandleInput[];
  /** One-hour bars that just closed, oldest first. */
  hours: CandleInput[];
  /** The built-in alerts the engine just stored for this symbol. */
  alerts: Array<{ alertType: string; time: number; message: string }>;
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
