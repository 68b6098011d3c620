// The reference for rules on ticks: every rule of a symbol checked on its own at every tick and
// every closed minute bar, with the plain predicates of src/signals/ruleConditions.ts
// (priceCrosses, channelCrossed, percentMoveMet, ruleFiresAt) and no index, no sorting and no
// shared state between rules. The indexed evaluator (evaluator.ts) must give exactly its
// firings; the property test and bench/ruleTicks.bench.ts compare the two. Not used by the app.
//
// The meaning it pins down (the evaluator's header says the same in words):
// - A tick rule (isTickRule) compares the symbol's previous price with the new one: the
//   previous tick's, or before any tick the close of the last minute bar held before the tick's
//   minute (none: nothing fires). A tick older than the newest one seen is ignored.
// - A closed minute bar whose minute no tick reached moves the tick rules to its close (the
//   feed was silent or the bar filled a gap); a minute some tick reached is left to the ticks.
// - percent_move compares the price with the close of the last bar held at or before
//   `windowMinutes` before the price's minute, and fires when met now and not met at the
//   previous price (with the reference that price had).
// - Triggers on ticks: once_per_bar keyed by the rule's bucket of the minute, every_time by the
//   minute (at most once a minute), once by 0 (then spent). No firing at or after expiresAt.
// - Other rules (once_per_bar_close price rules, indicators) fire on closed bars only, as
//   ruleFiresAt says, at most once per bucket for once_per_bar / once_per_bar_close.
import { RULE_TIMEFRAME_MS } from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';
import type { CandleSeries } from '../../signals/candles.ts';
import {
  bucketStart,
  channelCrossed,
  MINUTE_MS,
  percentMoveMet,
  priceCrosses,
  ruleFiresAt,
  type RuleBars,
} from '../../signals/ruleConditions.ts';
import { firingMessage, isTickRule } from './evaluator.ts';
import type { ActiveRule, FiringDraft } from './types.ts';

interface ReferenceRuleState {
  lastBucket: number;
  lastMinute: number;
  spent: boolean;
  /** percent_move: whether it was met at the previous price (undefined: not evaluated yet). */
  met: boolean | undefined;
}

interface ReferenceSymbolState {
  price: number;
  minute: number;
  time: number;
}

export interface TickReference {
  /** The firings of a tick, by rule id. */
  tick(tick: LiveTick): FiringDraft[];
  /**
   * The firings of the minute bar at `index` of the symbol's bars, which has just closed (the
   * caller appends it to the bars first), by rule id.
   */
  closedBar(symbol: string, index: number, source: string): FiringDraft[];
}

/** `bars(symbol)`: the symbol's bars as the evaluator holds them (the same store). */
export function createTickReference(
  rules: readonly ActiveRule[],
  bars: (symbol: string) => RuleBars | undefined,
): TickReference {
  const sorted = [...rules].sort((a, b) => a.id - b.id);
  const bySymbol = new Map<string, ActiveRule[]>();
  for (const rule of sorted) bySymbol.set(rule.symbol, [...(bySymbol.get(rule.symbol) ?? []), rule]);
  const states = new Map(
    sorted.map((rule) => [rule.id, { lastBucket: NaN, lastMinute: NaN, spent: false, met: undefined }]),
  ) as Map<number, ReferenceRuleState>;
  const symbols = new Map<string, ReferenceSymbolState>();

  function symbolState(symbol: string): ReferenceSymbolState {
    let state = symbols.get(symbol);
    if (!state) {
      state = { price: NaN, minute: -Infinity, time: -Infinity };
      symbols.set(symbol, state);
    }
    return state;
  }

  /** Close of the last bar at or before `time`, scanning from the newest (NaN: none). */
  function closeAtOrBefore(minutes: CandleSeries | undefined, time: number): number {
    if (!minutes) return NaN;
    for (let at = minutes.length - 1; at >= 0; at -= 1) if (minutes.time[at]! <= time) return minutes.close[at]!;
    return NaN;
  }

  function percentMet(rule: ActiveRule, price: number, minutes: CandleSeries | undefined, minute: number): boolean {
    const condition = rule.condition as Extract<ActiveRule['condition'], { kind: 'percent_move' }>;
    const reference = closeAtOrBefore(minutes, minute - condition.windowMinutes * MINUTE_MS);
    return !Number.isNaN(reference) && percentMoveMet(condition.percent, price, reference);
  }

  function fire(
    rule: ActiveRule,
    time: number,
    minute: number,
    price: number,
    messageTime: number,
    source: string,
    out: FiringDraft[],
  ): void {
    const state = states.get(rule.id)!;
    if (state.spent || (rule.expiresAt !== null && time >= rule.expiresAt)) return;
    let key: number;
    if (rule.trigger === 'once') {
      state.spent = true;
      key = 0;
    } else if (rule.trigger === 'every_time') {
      if (isTickRule(rule)) {
        if (state.lastMinute === minute) return;
        state.lastMinute = minute;
      }
      key = minute;
    } else {
      key = bucketStart(minute, RULE_TIMEFRAME_MS[rule.timeframe]);
      if (state.lastBucket === key) return;
      state.lastBucket = key;
    }
    out.push({
      ruleId: rule.id,
      userId: rule.userId,
      symbol: rule.symbol,
      triggerKey: key,
      barTime: minute,
      price,
      message: firingMessage(rule, messageTime, price),
      source,
    });
  }

  /** Every tick rule of the symbol, each on its own, from the symbol's last price to `price`. */
  function move(
    symbol: string,
    price: number,
    time: number,
    minute: number,
    messageTime: number,
    source: string,
    out: FiringDraft[],
  ): void {
    const state = symbolState(symbol);
    const minutes = bars(symbol)?.minutes;
    let previous = state.price;
    let previousMinute = state.minute;
    if (Number.isNaN(previous) && minutes) {
      for (let at = minutes.length - 1; at >= 0; at -= 1)
        if (minutes.time[at]! < minute) {
          previous = minutes.close[at]!;
          previousMinute = minutes.time[at]!;
          break;
        }
    }
    const known = !Number.isNaN(previous);
    for (const rule of bySymbol.get(symbol) ?? []) {
      if (!isTickRule(rule)) continue;
      const { condition } = rule;
      let fires = false;
      if (condition.kind === 'price_cross')
        fires = known && priceCrosses(condition.direction, previous, price, condition.level);
      else if (condition.kind === 'channel')
        fires = known && channelCrossed(condition.direction, previous, price, condition.lower, condition.upper);
      else if (condition.kind === 'percent_move') {
        const state = states.get(rule.id)!;
        const metNow = percentMet(rule, price, minutes, minute);
        if (known) {
          const metBefore = state.met ?? percentMet(rule, previous, minutes, previousMinute);
          fires = metNow && !metBefore;
        }
        state.met = metNow;
      }
      if (fires) fire(rule, time, minute, price, messageTime, source, out);
    }
    state.price = price;
    state.minute = minute;
  }

  return {
    tick(tick) {
      const out: FiringDraft[] = [];
      if (!(tick.price > 0) || !Number.isFinite(tick.price)) return out;
      const state = symbolState(tick.symbol);
      if (tick.time < state.time) return out;
      state.time = tick.time;
      move(tick.symbol, tick.price, tick.time, bucketStart(tick.time, MINUTE_MS), tick.time, tick.source, out);
      return out;
    },
    closedBar(symbol, index, source) {
      const out: FiringDraft[] = [];
      const held = bars(symbol);
      if (!held || index < 1) return out;
      const time = held.minutes.time[index]!;
      const close = held.minutes.close[index]!;
      const state = symbolState(symbol);
      if (state.minute < time) {
        state.time = Math.max(state.time, time + MINUTE_MS);
        move(symbol, close, time, time, time + MINUTE_MS, source, out);
      }
      for (const rule of bySymbol.get(symbol) ?? []) {
        if (isTickRule(rule) || rule.condition.kind === 'builtin') continue;
        if (ruleFiresAt(rule.condition, rule.timeframe, held, index))
          fire(rule, time, time, close, time + MINUTE_MS, source, out);
      }
      return out.sort((a, b) => a.ruleId - b.ruleId);
    },
  };
}
