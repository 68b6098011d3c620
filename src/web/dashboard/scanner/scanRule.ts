// A scan's conditions as an alert rule for one of its rows (issue 36): a rule holds one
// condition, an event (the moment it becomes true), so the first scan condition with a rule
// counterpart becomes the rule's (RSI, EMA cross, Bollinger, volume z-score, a named built-in
// alert, % change as a % move over the same span in minutes); the others have none (a price
// range, an asset class, a state such as "above its EMA") and are named so the trader knows.
// The whole scan as one alert is the saved scan's "Alert me when a symbol enters this scan".
import { RULE_TIMEFRAME_MS, type RuleInput, type RuleTimeframe } from '../../../shared/schemas/alertRules.ts';
import { SCAN_CONDITION_LABELS, type ScanCondition } from '../../../shared/schemas/scans.ts';

type RuleCondition = RuleInput['condition'];

/** The rule counterpart of one scan condition, or null when there is none. */
function ruleConditionOf(condition: ScanCondition, timeframe: RuleTimeframe): RuleCondition | null {
  switch (condition.kind) {
    case 'rsi':
      return { kind: 'rsi', direction: condition.side, level: condition.level, period: condition.period };
    case 'ema_cross':
      return { kind: 'ema_cross', direction: condition.side, fast: condition.fast, slow: condition.slow };
    case 'bollinger':
      return {
        kind: 'bollinger',
        direction: condition.side,
        period: condition.period,
        deviations: condition.deviations,
      };
    case 'volume_z':
      return { kind: 'volume_z', threshold: condition.threshold, period: condition.period };
    case 'builtin':
      return condition.alertType ? { kind: 'builtin', alertType: condition.alertType } : null;
    case 'change': {
      const windowMinutes = (condition.bars * RULE_TIMEFRAME_MS[timeframe]) / 60_000;
      // A rule's % move window is at most a day.
      if (windowMinutes > 1440) return null;
      return {
        kind: 'percent_move',
        percent: condition.side === 'above' ? condition.percent : -condition.percent,
        windowMinutes,
      };
    }
    default:
      return null;
  }
}

export interface RuleFromScan {
  condition: RuleCondition | null;
  /** The scan's conditions the rule does not carry, in SCAN_CONDITION_LABELS' words. */
  leftOut: string[];
}

export function ruleFromScan(conditions: readonly ScanCondition[], timeframe: RuleTimeframe): RuleFromScan {
  let chosen: RuleCondition | null = null;
  const leftOut: string[] = [];
  for (const condition of conditions) {
    const rule: RuleCondition | null = chosen ? null : ruleConditionOf(condition, timeframe);
    if (rule) chosen = rule;
    else leftOut.push(SCAN_CONDITION_LABELS[condition.kind]);
  }
  return { condition: chosen, leftOut };
}
