// Rules on ticks (issue 34): TradingView's triggers on a stream of ticks through the indexed
// evaluator, and its firings against the reference that checks every rule on every tick
// (tickReference.ts) over seeded random rules and tick streams with spikes, gaps, late bars
// and out-of-order ticks.
import { describe, expect, it } from 'vitest';
import {
  defaultTrigger,
  ruleInput,
  RULE_TIMEFRAMES,
  type RuleCondition,
  type RuleTimeframe,
  type RuleTrigger,
} from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { writeBar, type CandleInput, type CandleSeries } from '../../signals/candles.ts';
import { createRuleEvaluator, isTickRule, type RuleEvaluator } from './evaluator.ts';
import { createTickReference } from './tickReference.ts';
import type { ActiveRule, FiringDraft } from './types.ts';

const SECOND = 1000;
const MINUTE = 60_000;
/** 2026-01-05 10:00 UTC: a 5-minute, 15-minute and hour boundary. */
const T0 = Date.UTC(2026, 0, 5, 10);

function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** A symbol's minute bars in columns, growing as bars close (the candle store). */
class Store implements CandleSeries {
  length = 0;
  time = new Float64Array(4096);
  open = new Float64Array(4096);
  high = new Float64Array(4096);
  low = new Float64Array(4096);
  close = new Float64Array(4096);
  volume = new Float64Array(4096);
  push(bar: CandleInput): number {
    const at = this.length;
    writeBar(this, at, bar);
    this.length += 1;
    return at;
  }
  rows(): CandleInput[] {
    return Array.from({ length: this.length }, (_, at) => ({
      time: this.time[at]!,
      open: this.open[at]!,
      high: this.high[at]!,
      low: this.low[at]!,
      close: this.close[at]!,
      volume: this.volume[at]!,
    }));
  }
}

const flat = (time: number, close: number, open = close): CandleInput => ({
  time,
  open,
  high: Math.max(open, close),
  low: Math.min(open, close),
  close,
  volume: 10,
});

/** An evaluator over stores whose history is what they hold. */
function evaluatorOver(stores: Map<string, Store>): RuleEvaluator {
  return createRuleEvaluator({
    history: (symbol, granularity, limit) =>
      Promise.resolve(granularity === 60 ? (stores.get(symbol)?.rows().slice(-limit) ?? []) : []),
  });
}

let nextId = 1;
function rule(condition: RuleCondition, trigger: RuleTrigger, options: Partial<ActiveRule> = {}): ActiveRule {
  return {
    id: nextId++,
    userId: 'user-1',
    name: 'My rule',
    symbol: 'BTC-USD',
    ticker: 'BTC',
    timeframe: '5m',
    trigger,
    expiresAt: null,
    message: null,
    ...options,
    condition,
  };
}

const tick = (price: number, time: number, symbol = 'BTC-USD'): LiveTick => ({
  symbol,
  price,
  time,
  source: 'coinbase',
  delayMinutes: 0,
  bar: null,
});

/** 200 flat minutes at `close` before T0: the evaluator's history. */
async function setUp(rules: ActiveRule[], close = 100) {
  const store = new Store();
  for (let minute = 200; minute >= 1; minute -= 1) store.push(flat(T0 - minute * MINUTE, close));
  const evaluator = evaluatorOver(new Map([['BTC-USD', store]]));
  evaluator.setRules(rules);
  await evaluator.prepareTicks();
  /** The minute bar at `time` closes (the engine's pass). */
  const close_ = (time: number, closePrice: number, open = closePrice) => {
    const bar = flat(time, closePrice, open);
    store.push(bar);
    return evaluator.evaluate({ productId: 'BTC-USD', source: 'coinbase', minutes: [bar], hours: [], alerts: [] });
  };
  return { evaluator, store, close: close_ };
}

const ids = (firings: FiringDraft[]) => firings.map((firing) => firing.ruleId);

describe('price rules on ticks', () => {
  it('once per bar: the first qualifying tick of the bar fires, later ones in the bar do not, the next bar fires again', async () => {
    const above = rule({ kind: 'price_cross', direction: 'above', level: 101 }, 'once_per_bar');
    const { evaluator } = await setUp([above]);
    expect(evaluator.tickSymbols()).toEqual(new Set(['BTC-USD']));

    expect(evaluator.evaluateTick(tick(100.5, T0 + SECOND))).toEqual([]);
    const first = evaluator.evaluateTick(tick(101.2, T0 + 2 * SECOND));
    expect(first).toEqual([
      {
        ruleId: above.id,
        userId: 'user-1',
        symbol: 'BTC-USD',
        triggerKey: T0,
        barTime: T0,
        price: 101.2,
        message: 'BTC crosses above 101 (5m): BTC at 101.20',
        source: 'coinbase',
      },
    ]);
    // Down and up again in the same 5-minute bar (three minutes later): once per bar.
    expect(evaluator.evaluateTick(tick(100.8, T0 + 3 * MINUTE))).toEqual([]);
    expect(evaluator.evaluateTick(tick(101.5, T0 + 3 * MINUTE + SECOND))).toEqual([]);
    // The next 5-minute bar: staying above does not fire, crossing again does.
    expect(evaluator.evaluateTick(tick(101.6, T0 + 5 * MINUTE))).toEqual([]);
    expect(evaluator.evaluateTick(tick(100.9, T0 + 5 * MINUTE + SECOND))).toEqual([]);
    const second = evaluator.evaluateTick(tick(101, T0 + 6 * MINUTE + 30 * SECOND));
    expect(second.map((firing) => [firing.triggerKey, firing.barTime, firing.price])).toEqual([
      [T0 + 5 * MINUTE, T0 + 6 * MINUTE, 101],
    ]);
  });

  it('the first tick compares with the last close held, and a rule with a template names the tick time', async () => {
    const above = rule({ kind: 'price_cross', direction: 'above', level: 101 }, 'once_per_bar', {
      message: '{{ticker}} {{price}} at {{time}}',
    });
    const { evaluator } = await setUp([above]);
    const fired = evaluator.evaluateTick(tick(101.25, T0 + 7 * MINUTE + 42 * SECOND));
    expect(fired.map((firing) => firing.message)).toEqual(['BTC 101.25 at 2026-01-05 10:07 UTC']);
  });

  it('a spike through the level and back inside the minute fires; the minute bar after it fires nothing more', async () => {
    const level = { kind: 'price_cross', direction: 'above', level: 102 } as const;
    const onTick = rule(level, 'once_per_bar', { timeframe: '1m' });
    const onClose = rule(level, 'once_per_bar_close', { timeframe: '1m' });
    const { evaluator, close } = await setUp([onTick, onClose]);
    expect(evaluator.evaluateTick(tick(100.2, T0 + 5 * SECOND))).toEqual([]);
    expect(ids(evaluator.evaluateTick(tick(102.5, T0 + 20 * SECOND)))).toEqual([onTick.id]);
    expect(evaluator.evaluateTick(tick(100.1, T0 + 40 * SECOND))).toEqual([]);
    // The bar closed at 100.1: the close never crossed, and the ticks already covered the minute.
    expect(await close(T0, 100.1, 100.2)).toEqual([]);
  });

  it('once per bar close: never on a tick, at the close of the bar that crossed', async () => {
    const onClose = rule({ kind: 'price_cross', direction: 'above', level: 101 }, 'once_per_bar_close');
    const { evaluator, close } = await setUp([onClose]);
    expect(evaluator.tickSymbols().size).toBe(0);
    expect(evaluator.evaluateTick(tick(101.5, T0 + 10 * SECOND))).toEqual([]);
    expect(evaluator.evaluateTick(tick(101.3, T0 + 50 * SECOND))).toEqual([]);
    const fired = await close(T0, 101.3, 100);
    expect(fired.map((firing) => [firing.ruleId, firing.triggerKey, firing.barTime, firing.price])).toEqual([
      [onClose.id, T0, T0, 101.3],
    ]);
    // Once per 5-minute bar: a second crossing close in the same bar does not fire.
    expect(await close(T0 + MINUTE, 100.5)).toEqual([]);
    expect(await close(T0 + 2 * MINUTE, 101.1, 100.5)).toEqual([]);
    expect(ids(await close(T0 + 5 * MINUTE, 101.2, 100.5))).toEqual([]);
    expect(await close(T0 + 6 * MINUTE, 100.2)).toEqual([]);
    expect(ids(await close(T0 + 7 * MINUTE, 101.4, 100.2))).toEqual([onClose.id]);
  });

  it('every time: each crossing, at most once a minute, keyed by the minute', async () => {
    const above = rule({ kind: 'price_cross', direction: 'above', level: 101 }, 'every_time');
    const { evaluator } = await setUp([above]);
    const keys: number[] = [];
    const prices = [101.1, 100.9, 101.2, 100.8, 101.3];
    for (const [index, price] of prices.entries())
      keys.push(...evaluator.evaluateTick(tick(price, T0 + (index + 1) * SECOND)).map((firing) => firing.triggerKey));
    expect(keys).toEqual([T0]);
    expect(evaluator.evaluateTick(tick(100.7, T0 + MINUTE + SECOND))).toEqual([]);
    const next = evaluator.evaluateTick(tick(101.05, T0 + MINUTE + 2 * SECOND));
    expect(next.map((firing) => [firing.triggerKey, firing.barTime])).toEqual([[T0 + MINUTE, T0 + MINUTE]]);
  });

  it('once: the first qualifying tick, then the rule is done and leaves the tick symbols when retired', async () => {
    const once = rule({ kind: 'price_cross', direction: 'below', level: 99 }, 'once');
    const { evaluator } = await setUp([once]);
    const fired = evaluator.evaluateTick(tick(98.5, T0 + SECOND));
    expect(fired.map((firing) => [firing.ruleId, firing.triggerKey])).toEqual([[once.id, 0]]);
    expect(evaluator.evaluateTick(tick(99.5, T0 + 2 * SECOND))).toEqual([]);
    expect(evaluator.evaluateTick(tick(98, T0 + 3 * SECOND))).toEqual([]);
    evaluator.retire(once.id);
    expect(evaluator.tickSymbols().has('BTC-USD')).toBe(false);
    expect(evaluator.evaluateTick(tick(99.5, T0 + 4 * SECOND))).toEqual([]);
    expect(evaluator.evaluateTick(tick(98, T0 + 5 * SECOND))).toEqual([]);
  });

  it('channels and percentage moves on ticks; expiry by the tick time; an older tick is ignored', async () => {
    const enters = rule({ kind: 'channel', direction: 'enters', lower: 102, upper: 103 }, 'every_time');
    const exits = rule({ kind: 'channel', direction: 'exits', lower: 99, upper: 101 }, 'every_time');
    const rise = rule({ kind: 'percent_move', percent: 2, windowMinutes: 5 }, 'every_time');
    const expiring = rule({ kind: 'price_cross', direction: 'above', level: 103.5 }, 'every_time', {
      expiresAt: T0 + 30 * SECOND,
    });
    const { evaluator } = await setUp([enters, exits, rise, expiring]);
    expect(evaluator.evaluateTick(tick(100.5, T0 + SECOND))).toEqual([]);
    // 100.5 -> 102 leaves 99-101 and reaches +2% of the reference close 100 and the channel's lower bound.
    expect(ids(evaluator.evaluateTick(tick(102, T0 + 2 * SECOND)))).toEqual([enters.id, exits.id, rise.id]);
    // Across the whole 102-103 channel in one tick: outside before and after, nothing (the
    // rise is still met, and fired this minute already).
    expect(evaluator.evaluateTick(tick(101.9, T0 + 3 * SECOND))).toEqual([]);
    expect(evaluator.evaluateTick(tick(103.4, T0 + 4 * SECOND))).toEqual([]);
    // A late tick from before the newest one is not a move.
    expect(evaluator.evaluateTick(tick(102.5, T0 + 3500))).toEqual([]);
    // Past its expiry the level rule stays silent.
    expect(evaluator.evaluateTick(tick(103.8, T0 + 40 * SECOND))).toEqual([]);
    // Back into the 102-103 channel in the next minute: it fires again (every time).
    expect(ids(evaluator.evaluateTick(tick(102.9, T0 + MINUTE + SECOND)))).toEqual([enters.id]);
  });

  it('a minute no tick reached (the feed silent, the gap filled from bars) moves the tick rules to its close', async () => {
    const above = rule({ kind: 'price_cross', direction: 'above', level: 101 }, 'every_time');
    const { evaluator, close } = await setUp([above]);
    expect(evaluator.evaluateTick(tick(100.5, T0 + 10 * SECOND))).toEqual([]);
    // The minute the ticks reached: left to them.
    expect(await close(T0, 100.5)).toEqual([]);
    // Two minutes without ticks: the first close above the level fires, as at a bar close.
    const fired = await close(T0 + MINUTE, 101.5, 100.5);
    expect(fired.map((firing) => [firing.triggerKey, firing.barTime, firing.price, firing.message])).toEqual([
      [T0 + MINUTE, T0 + MINUTE, 101.5, 'BTC crosses above 101 (5m): BTC at 101.50'],
    ]);
    expect(await close(T0 + 2 * MINUTE, 101.6)).toEqual([]);
    // Ticks again: they continue from that close.
    expect(evaluator.evaluateTick(tick(101.7, T0 + 3 * MINUTE + SECOND))).toEqual([]);
    expect(ids(evaluator.evaluateTick(tick(100.9, T0 + 3 * MINUTE + 2 * SECOND)))).toEqual([]);
    expect(ids(evaluator.evaluateTick(tick(101.1, T0 + 3 * MINUTE + 3 * SECOND)))).toEqual([above.id]);
  });

  it('indicator rules stay on bar close whatever their trigger; a symbol with only those gets no ticks', async () => {
    const rsi = rule({ kind: 'rsi', direction: 'above', level: 70, period: 14 }, 'once_per_bar');
    const { evaluator } = await setUp([rsi]);
    expect(isTickRule(rsi)).toBe(false);
    expect(evaluator.tickSymbols().size).toBe(0);
    expect(evaluator.evaluateTick(tick(150, T0 + SECOND))).toEqual([]);
  });
});

describe('the trigger a rule gets', () => {
  const base = { symbol: 'AAPL', timeframe: '1h' };
  it('defaults to once per bar (on ticks) for price conditions and once per bar close for the others', () => {
    const price = ruleInput.parse({ ...base, condition: { kind: 'price_cross', direction: 'above', level: 190 } });
    expect(price.trigger).toBe('once_per_bar');
    const percent = ruleInput.parse({ ...base, condition: { kind: 'percent_move', percent: 2, windowMinutes: 5 } });
    expect(percent.trigger).toBe('once_per_bar');
    const rsi = ruleInput.parse({ ...base, condition: { kind: 'rsi', direction: 'above', level: 70 } });
    expect(rsi.trigger).toBe('once_per_bar_close');
    const ema = ruleInput.parse({ ...base, condition: { kind: 'ema_cross', direction: 'above', fast: 9, slow: 21 } });
    expect(ema.trigger).toBe('once_per_bar_close');
    expect(defaultTrigger('watos_odds')).toBe('once_per_bar_close');
  });
  it('keeps a trigger given, the new one included, and refuses an unknown one', () => {
    const condition = { kind: 'rsi', direction: 'above', level: 70 };
    expect(ruleInput.parse({ ...base, condition, trigger: 'once_per_bar' }).trigger).toBe('once_per_bar');
    expect(
      ruleInput.parse({
        ...base,
        condition: { kind: 'price_cross', direction: 'above', level: 1 },
        trigger: 'once_per_bar_close',
      }).trigger,
    ).toBe('once_per_bar_close');
    const refused = ruleInput.safeParse({ ...base, condition, trigger: 'on_close' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe(
      'trigger must be one of once, once_per_bar, once_per_bar_close, every_time',
    );
  });
});

describe('the indexed evaluator against the reference (every rule on every tick)', () => {
  const SYMBOLS = ['AAA-USD', 'BBB-USD', 'CCC-USD'];
  const TRIGGERS: RuleTrigger[] = [
    'once',
    'once_per_bar',
    'once_per_bar',
    'every_time',
    'every_time',
    'once_per_bar_close',
  ];

  function randomRules(draw: () => number, start: number, minutes: number): ActiveRule[] {
    const pick = <T>(values: readonly T[]): T => values[Math.floor(draw() * values.length)]!;
    const near = () => Math.round((100 + (draw() - 0.5) * 8) * 100) / 100;
    const rules: ActiveRule[] = [];
    for (const symbol of SYMBOLS)
      for (let count = 0; count < 60; count += 1) {
        const kind = draw();
        let condition: RuleCondition;
        if (kind < 0.5)
          condition = { kind: 'price_cross', direction: pick(['above', 'below'] as const), level: near() };
        else if (kind < 0.75) {
          const [lower, upper] = [near(), near()].sort((a, b) => a - b);
          condition = {
            kind: 'channel',
            direction: pick(['enters', 'exits'] as const),
            lower: lower!,
            upper: upper! + 0.01,
          };
        } else
          condition = {
            kind: 'percent_move',
            percent: pick([0.5, 1, 1.5, 3, -0.5, -1, -2, -3]),
            windowMinutes: pick([1, 2, 5, 15]),
          };
        rules.push({
          id: nextId++,
          userId: `user-${count % 7}`,
          name: `Rule ${count}`,
          symbol,
          ticker: symbol.slice(0, 3),
          timeframe: pick<RuleTimeframe>(RULE_TIMEFRAMES.slice(0, 4)),
          condition,
          trigger: pick(TRIGGERS),
          expiresAt: draw() < 0.1 ? start + Math.floor(draw() * minutes * MINUTE) : null,
          message: draw() < 0.3 ? '{{ticker}} {{rule}} at {{price}} ({{time}})' : null,
        });
      }
    return rules;
  }

  const describeFiring = (firing: FiringDraft) =>
    `${firing.ruleId}|${firing.triggerKey}|${firing.barTime}|${firing.price}|${firing.message}|${firing.source}`;

  it.each([1, 2, 3, 4, 5, 6])('gives the same firings over a random tick stream (seed %i)', async (seed) => {
    const draw = random(seed * 7919);
    const MINUTES = 40;
    const start = T0 + 30 * MINUTE;
    const stores = new Map(SYMBOLS.map((symbol) => [symbol, new Store()]));
    const prices = new Map(SYMBOLS.map((symbol) => [symbol, 100]));
    // Two hours of history: the first ticks' previous close and the percentages' references.
    for (const [symbol, store] of stores) {
      let price = 100;
      for (let minute = 120; minute >= 1; minute -= 1) {
        const open = price;
        price *= 1 + (draw() - 0.5) * 0.01;
        store.push(flat(start - minute * MINUTE, price, open));
      }
      prices.set(symbol, price);
    }
    const rules = randomRules(draw, start, MINUTES);
    const evaluator = evaluatorOver(stores);
    evaluator.setRules(rules);
    await evaluator.prepareTicks();
    const reference = createTickReference(rules, (symbol) => {
      const store = stores.get(symbol);
      return store ? { minutes: store, hours: new Store() } : undefined;
    });

    const ours: string[] = [];
    const theirs: string[] = [];
    const collect = (firings: FiringDraft[], into: string[]) => into.push(...firings.map(describeFiring));
    // As the runtime does: a "once" rule that fired is retired.
    const retire = (firings: FiringDraft[]) => {
      for (const firing of firings) if (firing.triggerKey === 0) evaluator.retire(firing.ruleId);
    };
    const closeBars = async (bars: Array<{ symbol: string; bar: CandleInput }>) => {
      for (const { symbol, bar } of bars) {
        const index = stores.get(symbol)!.push(bar);
        const fired = await evaluator.evaluate({
          productId: symbol,
          source: 'demo',
          minutes: [bar],
          hours: [],
          alerts: [],
        });
        collect(fired, ours);
        collect(reference.closedBar(symbol, index, 'demo'), theirs);
        retire(fired);
      }
    };

    let due: Array<{ symbol: string; bar: CandleInput }> = [];
    for (let minute = 0; minute < MINUTES; minute += 1) {
      const minuteStart = start + minute * MINUTE;
      const ticks: LiveTick[] = [];
      const next: typeof due = [];
      for (const symbol of SYMBOLS) {
        // Some minutes have no tick at all (a silent feed): the bar alone moves the price.
        const count = draw() < 0.12 ? 0 : 1 + Math.floor(draw() * 12);
        let price = prices.get(symbol)!;
        const open = price;
        let high = price;
        let low = price;
        const times = Array.from({ length: count }, () => minuteStart + Math.floor(draw() * MINUTE)).sort(
          (a, b) => a - b,
        );
        for (const time of times) {
          const spike = draw() < 0.05 ? (draw() - 0.5) * 0.06 : 0;
          price = Math.round(price * (1 + (draw() - 0.5) * 0.006 + spike) * 100) / 100;
          high = Math.max(high, price);
          low = Math.min(low, price);
          ticks.push(tick(price, time, symbol));
          // Now and then a late, older quote.
          if (draw() < 0.03) ticks.push(tick(price * 0.99, time - 5 * SECOND, symbol));
        }
        if (count === 0) price = Math.round(price * (1 + (draw() - 0.5) * 0.02) * 100) / 100;
        prices.set(symbol, price);
        next.push({
          symbol,
          bar: {
            time: minuteStart,
            open,
            high: Math.max(high, price),
            low: Math.min(low, price),
            close: price,
            volume: 5,
          },
        });
      }
      // The stream as the feed delivers it: by arrival, the late quotes where they arrive.
      // The previous minute's bars close a few ticks into this minute (the engine's pass).
      const closeAt = Math.floor(draw() * Math.min(ticks.length, 6));
      for (const [index, entry] of ticks.entries()) {
        if (index === closeAt) {
          await closeBars(due);
          due = [];
        }
        const fired = evaluator.evaluateTick(entry);
        collect(fired, ours);
        collect(reference.tick(entry), theirs);
        retire(fired);
      }
      await closeBars(due);
      due = next;
    }
    await closeBars(due);

    expect(ours.length).toBeGreaterThan(20);
    expect(ours).toEqual(theirs);
    // Every trigger and kind took part.
    const fired = new Set(ours.map((line) => Number(line.split('|')[0])));
    const firedRules = rules.filter((entry) => fired.has(entry.id));
    expect(new Set(firedRules.map((entry) => entry.trigger)).size).toBe(4);
    expect(new Set(firedRules.map((entry) => entry.condition.kind)).size).toBe(3);
  });
});
