// The trader's alert levels on the own chart: the price-cross levels and channel bounds of
// their active rules on the charted symbol, each a labelled horizontal line.
import type { AlertRule } from '../../../shared/schemas/alertRules.ts';

export interface ChartLevel {
  /** Unique per line: the rule id and which bound. */
  key: string;
  price: number;
  /** The line's label on the price scale and in the levels list. */
  title: string;
}

export function alertLevels(rules: readonly AlertRule[] | undefined, symbol: string): ChartLevel[] {
  const levels: ChartLevel[] = [];
  for (const rule of rules ?? []) {
    if (rule.symbol !== symbol || rule.status !== 'active') continue;
    const { condition } = rule;
    if (condition.kind === 'price_cross')
      levels.push({ key: `${rule.id}`, price: condition.level, title: `${rule.name} (${condition.direction})` });
    else if (condition.kind === 'channel') {
      levels.push({ key: `${rule.id}-lower`, price: condition.lower, title: `${rule.name} (low)` });
      levels.push({ key: `${rule.id}-upper`, price: condition.upper, title: `${rule.name} (high)` });
    }
  }
  return levels;
}
