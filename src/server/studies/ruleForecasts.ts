// A live record for every trader's rules (issue 36, item 3): each firing of a rule becomes a
// forecast in the track record (origin 'rule', private to its trader unless published), resolved
// and scored like the WATOS statements. What it states is the setup study of the rule's condition
// on its symbol and timeframe: the product's estimator's probability of a higher close
// RULE_FORECAST_HORIZON bars of the rule's timeframe later (the horizons the WATOS statements use
// on those timeframes), with its interval and base rate.
//
// The rule's condition maps to scan conditions (states) whose "became true" is the rule's event
// (ruleToScanConditions). Where no mapping exists (a channel exit, WATOS odds, a % move whose
// window is not whole bars of the timeframe) and where the study has fewer than MIN_SAMPLES
// signals (the estimator states nothing), no forecast is recorded.
import type { RuleCondition, RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { ScanCondition, StudyResponse } from '../../shared/schemas/scans.ts';
import { MIN_SAMPLES } from '../../signals/watosOdds.ts';
import { forecastOfRuleFiring, type ForecastService } from '../forecasts/service.ts';
import type { StudyRequest } from '../../shared/schemas/scans.ts';

/** Bars of the rule's timeframe after which a rule forecast is resolved (as the WATOS statements'). */
const RULE_FORECAST_HORIZON: Record<RuleTimeframe, number> = {
  '1m': 60,
  '5m': 12,
  '15m': 16,
  '1h': 24,
  '4h': 6,
  '1D': 1,
};

const TIMEFRAME_MINUTES: Record<RuleTimeframe, number> = {
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '1h': 60,
  '4h': 240,
  '1D': 1440,
};

/**
 * The scan conditions whose becoming true together is the rule's event, or null when there are
 * none: a price crossing up through a level is the close becoming >= the level (priceCrosses'
 * prevClose < level <= close), an RSI crossing is RSI becoming above (below) the level, an EMA
 * crossover is "crossed within 1 bar", a channel entry is the close becoming inside it.
 */
export function ruleToScanConditions(condition: RuleCondition, timeframe: RuleTimeframe): ScanCondition[] | null {
  switch (condition.kind) {
    case 'price_cross':
      return [
        condition.direction === 'above'
          ? { kind: 'price_range', min: condition.level }
          : { kind: 'price_range', max: condition.level },
      ];
    case 'channel':
      return condition.direction === 'enters'
        ? [{ kind: 'price_range', min: condition.lower, max: condition.upper }]
        : null;
    case 'percent_move': {
      const bars = condition.windowMinutes / TIMEFRAME_MINUTES[timeframe];
      if (!Number.isInteger(bars) || bars < 1) return null;
      return [
        {
          kind: 'change',
          side: condition.percent > 0 ? 'above' : 'below',
          percent: Math.abs(condition.percent),
          bars,
        },
      ];
    }
    case 'rsi':
      return [{ kind: 'rsi', side: condition.direction, level: condition.level, period: condition.period }];
    case 'ema_cross':
      return [
        { kind: 'ema_cross', side: condition.direction, fast: condition.fast, slow: condition.slow, withinBars: 1 },
      ];
    case 'bollinger':
      return [
        { kind: 'bollinger', side: condition.direction, period: condition.period, deviations: condition.deviations },
      ];
    case 'volume_z':
      return [{ kind: 'volume_z', threshold: condition.threshold, period: condition.period }];
    case 'builtin':
      return [{ kind: 'builtin', alertType: condition.alertType, withinBars: 1 }];
    case 'watos_odds':
      return null;
  }
}

/** The side a condition leans to when the study finds no edge (volume surges and alerts: bullish). */
function conditionLean(condition: RuleCondition): 'bullish' | 'bearish' {
  if ('direction' in condition)
    return condition.direction === 'below' || condition.direction === 'exits' ? 'bearish' : 'bullish';
  if (condition.kind === 'percent_move') return condition.percent < 0 ? 'bearish' : 'bullish';
  return 'bullish';
}

/** A recorded firing of a trader's rule (what the rules runtime hands over). */
export interface FiredRule {
  ruleId: number;
  userId: string;
  firingId: number;
  symbol: string;
  timeframe: RuleTimeframe;
  condition: RuleCondition;
  /** Open time (ms) of the one-minute bar that triggered it. */
  barTime: number;
  price: number;
  source: string;
}

export interface RuleForecastDeps {
  study(request: StudyRequest): Promise<StudyResponse>;
  forecasts: Pick<ForecastService, 'recordDrafts' | 'publishedRuleIds'>;
  log: { warn(details: object, message: string): void };
  now?: () => number;
}

/**
 * The rules runtime's onRuleFirings: studies each fired rule's setup (one study per rule and bar
 * of its timeframe, shared by its firings in that bar) and records a forecast per firing. Never
 * throws and never holds the pass: the studies run in the pool, the records are queued.
 */
export function recordRuleForecasts(deps: RuleForecastDeps): (fired: readonly FiredRule[]) => Promise<number> {
  const now = deps.now ?? Date.now;
  const studies = new Map<string, Promise<StudyResponse>>();
  return async (fired) => {
    let recorded = 0;
    // A rule whose record the trader published keeps publishing its new firings.
    const published = await deps.forecasts
      .publishedRuleIds([...new Set(fired.map((firing) => firing.ruleId))])
      .catch(() => new Set<number>());
    await Promise.all(
      fired.map(async (firing) => {
        const conditions = ruleToScanConditions(firing.condition, firing.timeframe);
        if (!conditions) return;
        const horizon = RULE_FORECAST_HORIZON[firing.timeframe];
        const barMs = TIMEFRAME_MINUTES[firing.timeframe] * 60_000;
        const key = `${firing.ruleId}|${Math.floor(now() / barMs)}`;
        let study = studies.get(key);
        if (!study) {
          if (studies.size > 1000) studies.clear();
          study = deps.study({
            symbols: [firing.symbol],
            timeframe: firing.timeframe,
            conditions,
            horizon,
            feePercent: 0,
          });
          studies.set(key, study);
          study.catch(() => studies.delete(key));
        }
        try {
          const answer = await study;
          if (answer.signals < MIN_SAMPLES) return;
          const direction = answer.edge
            ? answer.rose.share > answer.baseRate
              ? 'bullish'
              : 'bearish'
            : conditionLean(firing.condition);
          deps.forecasts.recordDrafts([
            forecastOfRuleFiring({
              published: published.has(firing.ruleId),
              ruleId: firing.ruleId,
              userId: firing.userId,
              firingId: firing.firingId,
              symbol: firing.symbol,
              timeframe: firing.timeframe,
              barTime: firing.barTime,
              price: firing.price,
              source: firing.source,
              direction,
              stated: answer.rose.share,
              intervalLow: answer.rose.low,
              intervalHigh: answer.rose.high,
              rawFrequency: answer.outcomes.hitRate,
              baseRate: answer.baseRate,
              sampleSize: answer.signals,
              horizonBars: horizon,
            }),
          ]);
          recorded += 1;
        } catch (error) {
          deps.log.warn({ err: error, ruleId: firing.ruleId }, 'track record: a rule firing was not recorded');
        }
      }),
    );
    return recorded;
  };
}
