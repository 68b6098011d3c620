import { describe, expect, it } from 'vitest';
import type { RuleCondition, RuleTimeframe, RuleTrigger } from '../../shared/schemas/alertRules.ts';
import { candleSeries, type CandleInput } from '../../signals/candles.ts';
import { bollinger, ema, rsi } from '../../signals/indicators.ts';
import { ruleFiresAt, watosProbabilities } from '../../signals/ruleConditions.ts';
import { watosOdds } from '../../signals/watosOdds.ts';
import { createRuleEvaluator, triggerKey } from './evaluator.ts';
import type { ActiveRule, FiringDraft, SymbolUpdate } from './types.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** 2026-01-05 00:00 UTC. */
const T0 = Date.UTC(2026, 0, 5);

function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function bar(time: number, close: number, previous = close, volume = 10): CandleInput {
  return {
    time,
    open: previous,
    high: Math.max(close, previous) + 0.25,
    low: Math.min(close, previous) - 0.25,
    close,
    volume,
  };
}

/** Minute bars at `from`, `from + 1 min`, ... with these closes. */
function minutesAt(from: number, closes: number[]): CandleInput[] {
  return closes.map((close, index) => bar(from + index * MINUTE, close, index > 0 ? closes[index - 1] : close));
}

/** Hourly bars aggregated from minute bars (first open, highest high, lowest low, last close, summed volume). */
function hoursOf(minutes: CandleInput[]): CandleInput[] {
  const hours: CandleInput[] = [];
  for (const minute of minutes) {
    const start = Math.floor(minute.time / HOUR) * HOUR;
    const last = hours.at(-1);
    if (last && last.time === start) {
      last.high = Math.max(last.high, minute.high);
      last.low = Math.min(last.low, minute.low);
      last.close = minute.close;
      last.volume += minute.volume;
    } else hours.push({ ...minute, time: start });
  }
  return hours;
}

/**
 * A symbol's bars and the candle store: `deliver` hands the next minutes (and the hours they
 * close) to an evaluator; history answers with what was delivered before.
 */
class Market {
  delivered = 0;
  readonly hours: CandleInput[];
  constructor(
    readonly minutes: CandleInput[],
    delivered = 0,
    readonly symbol = 'BTC-USD',
  ) {
    this.hours = hoursOf(minutes);
    this.delivered = delivered;
  }
  /** Hours whose last minute was delivered. */
  private closedHours(count: number): CandleInput[] {
    if (count === 0) return [];
    const end = this.minutes[count - 1]!.time + MINUTE;
    return this.hours.filter((hour) => hour.time + HOUR <= end);
  }
  history = (productId: string, granularity: 60 | 3600, limit: number): Promise<CandleInput[]> => {
    expect(productId).toBe(this.symbol);
    const rows = granularity === 60 ? this.minutes.slice(0, this.delivered) : this.closedHours(this.delivered);
    return Promise.resolve(rows.slice(-limit).map((row) => ({ ...row })));
  };
  next(count: number, alerts: SymbolUpdate['alerts'] = []): SymbolUpdate {
    const before = this.closedHours(this.delivered).length;
    const minutes = this.minutes.slice(this.delivered, this.delivered + count);
    this.delivered += minutes.length;
    const hours = this.closedHours(this.delivered).slice(before);
    return { productId: this.symbol, source: 'demo', minutes, hours, alerts };
  }
}

let nextId = 1;
function rule(
  condition: RuleCondition,
  options: Partial<Omit<ActiveRule, 'condition'>> & { timeframe?: RuleTimeframe; trigger?: RuleTrigger } = {},
): ActiveRule {
  return {
    id: nextId++,
    userId: 'user-1',
    name: 'My rule',
    symbol: 'BTC-USD',
    ticker: 'BTC',
    timeframe: '1h',
    trigger: 'every_time',
    expiresAt: null,
    message: null,
    ...options,
    condition,
  };
}

async function run(rules: ActiveRule[], market: Market, chunks: number[], alerts: SymbolUpdate['alerts'] = []) {
  const evaluator = createRuleEvaluator({ history: market.history });
  evaluator.setRules(rules);
  const firings: FiringDraft[] = [];
  for (const [index, count] of chunks.entries())
    firings.push(...(await evaluator.evaluate(market.next(count, index === chunks.length - 1 ? alerts : []))));
  return { evaluator, firings };
}

const at = (minute: number) => T0 + 10 * HOUR + minute * MINUTE;

describe('price crossings', () => {
  it('fires on closing exactly at the level and on a gap across it, never again while it stays there', async () => {
    const above = rule({ kind: 'price_cross', direction: 'above', level: 100 });
    const below = rule({ kind: 'price_cross', direction: 'below', level: 100 });
    const market = new Market(minutesAt(at(0), [99, 100, 100, 101, 99.5, 100, 101, 95, 105]));
    const { firings } = await run([above, below], market, [2, 7]);
    expect(firings.map((firing) => [firing.ruleId, (firing.barTime - at(0)) / MINUTE, firing.price])).toEqual([
      [above.id, 1, 100],
      [below.id, 4, 99.5],
      [above.id, 5, 100],
      [below.id, 7, 95],
      [above.id, 8, 105],
    ]);
    expect(firings[0]).toEqual({
      ruleId: above.id,
      userId: 'user-1',
      symbol: 'BTC-USD',
      triggerKey: at(1),
      barTime: at(1),
      price: 100,
      message: 'BTC crosses above 100 (1h): BTC at 100.00',
      source: 'demo',
    });
  });

  it('takes the previous close from history for the first minute of an update', async () => {
    const above = rule({ kind: 'price_cross', direction: 'above', level: 100 });
    const market = new Market(minutesAt(at(0), [99, 99.5, 100.5]), 2);
    const { firings } = await run([above], market, [1]);
    expect(firings.map((firing) => firing.barTime)).toEqual([at(2)]);
  });

  it('once vs once per bar vs every time: two crossings in one hour bar, one in the next', async () => {
    const condition = { kind: 'price_cross', direction: 'above', level: 100 } as const;
    const once = rule(condition, { trigger: 'once' });
    const perBar = rule(condition, { trigger: 'once_per_bar' });
    const every = rule(condition, { trigger: 'every_time' });
    const closes = [99, 101, 99, 101];
    const market = new Market([
      ...minutesAt(at(0), closes),
      ...minutesAt(at(60), [99, 101]),
      ...minutesAt(at(120), [99, 101]),
    ]);
    const evaluator = createRuleEvaluator({ history: market.history });
    evaluator.setRules([once, perBar, every]);
    const first = await evaluator.evaluate(market.next(2));
    const second = await evaluator.evaluate(market.next(4));
    const keys = (firings: FiringDraft[], id: number) =>
      firings.filter((firing) => firing.ruleId === id).map((firing) => firing.triggerKey);
    expect(keys(first, once.id)).toEqual([0]);
    expect(keys(second, once.id)).toEqual([]);
    expect(keys([...first, ...second], perBar.id)).toEqual([T0 + 10 * HOUR, T0 + 11 * HOUR]);
    expect(keys([...first, ...second], every.id)).toEqual([at(1), at(3), at(61)]);
    // The caller retires the once rule; it stays out of later evaluations.
    evaluator.retire(once.id);
    const third = await evaluator.evaluate(market.next(2));
    expect(third.map((firing) => firing.ruleId)).toEqual([perBar.id, every.id]);
    expect(third.map((firing) => firing.triggerKey)).toEqual([T0 + 12 * HOUR, at(121)]);
  });

  it('uses the rule timeframe for once per bar (5m buckets)', async () => {
    const perBar = rule(
      { kind: 'price_cross', direction: 'above', level: 100 },
      { trigger: 'once_per_bar', timeframe: '5m' },
    );
    const market = new Market(minutesAt(at(0), [99, 101, 99, 101, 99, 101, 99]));
    const { firings } = await run([perBar], market, [7]);
    expect(firings.map((firing) => firing.triggerKey)).toEqual([at(0), at(5)]);
  });

  it('does not fire for a bar at or after the expiry', async () => {
    const expiring = rule({ kind: 'price_cross', direction: 'above', level: 100 }, { expiresAt: at(3) });
    const market = new Market(minutesAt(at(0), [99, 101, 99, 101, 99, 101]));
    const { firings } = await run([expiring], market, [6]);
    expect(firings.map((firing) => firing.barTime)).toEqual([at(1)]);
  });
});

describe('channels and percentage moves', () => {
  it('fires on entering and exiting a channel, bounds inclusive', async () => {
    const enters = rule({ kind: 'channel', direction: 'enters', lower: 90, upper: 110 });
    const exits = rule({ kind: 'channel', direction: 'exits', lower: 90, upper: 110 });
    const market = new Market(minutesAt(at(0), [85, 90, 100, 110, 111, 120, 95]));
    const { firings } = await run([enters, exits], market, [7]);
    expect(firings.map((firing) => [firing.ruleId, (firing.barTime - at(0)) / MINUTE])).toEqual([
      [enters.id, 1],
      [exits.id, 4],
      [enters.id, 6],
    ]);
  });

  it('fires when a move over the window reaches the percentage', async () => {
    const up = rule({ kind: 'percent_move', percent: 2, windowMinutes: 3 });
    const down = rule({ kind: 'percent_move', percent: -2, windowMinutes: 2 });
    // 100 -> 102 over 3 minutes at minute 3; then 102.5 -> 100.4 (-2.05%) over 2 minutes at minute 6.
    const market = new Market(minutesAt(at(0), [100, 100.5, 101, 102, 102.5, 101, 100.4, 100.4]));
    const { firings } = await run([up, down], market, [8]);
    expect(firings.map((firing) => [firing.ruleId, (firing.barTime - at(0)) / MINUTE])).toEqual([
      [up.id, 3],
      [down.id, 6],
    ]);
  });
});

describe('built-in alerts', () => {
  it('fires for each alert of its type, priced at that minute (else the last close)', async () => {
    const breakout = rule({ kind: 'builtin', alertType: 'BreakoutAlertGenerator' }, { trigger: 'every_time' });
    const market = new Market(minutesAt(at(0), [100, 101, 102]));
    const { firings } = await run(
      [breakout],
      market,
      [3],
      [
        { alertType: 'BreakoutAlertGenerator', time: at(1), message: 'Breakout' },
        { alertType: 'MomentumShiftAlertGenerator', time: at(1), message: 'Momentum' },
        { alertType: 'BreakoutAlertGenerator', time: at(2) + 30_000, message: 'Breakout' },
      ],
    );
    expect(firings.map((firing) => [firing.barTime, firing.price, firing.triggerKey, firing.message])).toEqual([
      [at(1), 101, at(1), 'BTC breakout (1h): BTC at 101.00'],
      [at(2) + 30_000, 102, at(2) + 30_000, 'BTC breakout (1h): BTC at 102.00'],
    ]);
  });
});

describe('messages', () => {
  it('fills the template with the bar close time and the formatted price', async () => {
    const templated = rule(
      { kind: 'price_cross', direction: 'above', level: 1000 },
      {
        name: 'Big level',
        message:
          '{{name}}: {{ticker}} ({{symbol}}) {{rule}} on {{timeframe}} at {{price}} / {{close}}, {{time}} {{other}}',
        timeframe: '4h',
      },
    );
    const market = new Market(minutesAt(at(0), [999, 1234.5]));
    const { firings } = await run([templated], market, [2]);
    expect(firings.map((firing) => firing.message)).toEqual([
      'Big level: BTC (BTC-USD) BTC crosses above 1,000 on 4h at 1,234.50 / 1,234.50, 2026-01-05 10:02 UTC {{other}}',
    ]);
  });
});

describe('indicators on the forming bar', () => {
  it('a 1h RSI rule fires mid-hour, on the minute the forming hour lifts RSI(14) above 70', async () => {
    // 30 closed hours alternating around 100, then the minutes of hour 30 rise 0.2 a minute.
    const hourCloses = Array.from({ length: 30 }, (_, index) => 100 + (index % 2 === 0 ? 0 : 1.5) + index * 0.05);
    const hourRows = hourCloses.map((close, index) => bar(T0 + index * HOUR, close));
    const last = hourCloses.at(-1)!;
    const minuteCloses = Array.from({ length: 60 }, (_, index) => last + 0.2 * (index + 1));
    const minuteRows = minutesAt(T0 + 30 * HOUR, minuteCloses);
    const history = (_: string, granularity: 60 | 3600, limit: number) =>
      Promise.resolve(
        (granularity === 3600 ? hourRows : [bar(T0 + 30 * HOUR - MINUTE, last)])
          .slice(-limit)
          .map((row) => ({ ...row })),
      );
    const rsiRule = rule({ kind: 'rsi', direction: 'above', level: 70, period: 14 }, { timeframe: '1h' });
    const evaluator = createRuleEvaluator({ history });
    evaluator.setRules([rsiRule]);
    const firings = await evaluator.evaluate({
      productId: 'BTC-USD',
      source: 'demo',
      minutes: minuteRows,
      hours: [],
      alerts: [],
    });
    // Expected from indicators.ts directly: RSI over the closed hours plus the forming close.
    const values = [last, ...minuteCloses].map((close) => rsi(Float64Array.from([...hourCloses, close]), 14)[30]);
    const crossing = values.findIndex((value, index) => index > 0 && values[index - 1]! <= 70 && value! > 70);
    expect(crossing).toBeGreaterThan(1);
    expect(crossing).toBeLessThan(60);
    expect(values[0]).toBeLessThan(70);
    expect(firings.map((firing) => firing.barTime)).toEqual([T0 + 30 * HOUR + (crossing - 1) * MINUTE]);
  });
});

describe('EMA crossings, Bollinger bands and volume surges on crafted bars', () => {
  const minuteOf = (firings: FiringDraft[], id: number) =>
    firings.filter((firing) => firing.ruleId === id).map((firing) => (firing.barTime - at(0)) / MINUTE);

  it('EMA(2) crossing EMA(4) on 1m bars, as indicators.ts ema computes them', async () => {
    const closes = [10, 10, 10, 10, 10, 9, 8, 9, 11, 12, 11, 9, 8];
    const up = rule({ kind: 'ema_cross', direction: 'above', fast: 2, slow: 4 }, { timeframe: '1m' });
    const down = rule({ kind: 'ema_cross', direction: 'below', fast: 2, slow: 4 }, { timeframe: '1m' });
    const { firings } = await run([up, down], new Market(minutesAt(at(0), closes)), [closes.length]);
    const fast = ema(Float64Array.from(closes), 2);
    const slow = ema(Float64Array.from(closes), 4);
    const diff = closes.map((_, index) => fast[index]! - slow[index]!);
    const crossings = (sign: 1 | -1) =>
      diff.flatMap((value, index) => (index > 0 && sign * diff[index - 1]! <= 0 && sign * value > 0 ? [index] : []));
    expect(crossings(-1)).toEqual([5, 11]);
    expect(crossings(1)).toEqual([8]);
    expect(minuteOf(firings, up.id)).toEqual([8]);
    expect(minuteOf(firings, down.id)).toEqual([5, 11]);
  });

  it('fires when the close moves outside a Bollinger band, once per excursion', async () => {
    const closes = [100, 101, 100, 101, 100, 100.5, 105, 105.2, 100, 95, 94];
    const above = rule({ kind: 'bollinger', direction: 'above', period: 5, deviations: 1.5 }, { timeframe: '1m' });
    const below = rule({ kind: 'bollinger', direction: 'below', period: 5, deviations: 1 }, { timeframe: '1m' });
    const { firings } = await run([above, below], new Market(minutesAt(at(0), closes)), [closes.length]);
    const values = Float64Array.from(closes);
    const wide = bollinger(values, 5, 1.5);
    const narrow = bollinger(values, 5, 1);
    const becomes = (state: (index: number) => boolean) =>
      closes.flatMap((_, index) => (index > 0 && state(index) && !state(index - 1) ? [index] : []));
    expect(becomes((index) => closes[index]! > wide.upper[index]!)).toEqual([6]);
    expect(becomes((index) => closes[index]! < narrow.lower[index]!)).toEqual([9]);
    expect(minuteOf(firings, above.id)).toEqual([6]);
    expect(minuteOf(firings, below.id)).toEqual([9]);
  });

  it('a 5m volume z-score rule fires within the forming bar, once its volume so far stands out', async () => {
    // 20 closed 5m bars of 40 and 60 (mean 50, deviation 10), then minutes of 30 each:
    // the forming bar reads 30, 60, 90: z = -2, 1, 4.
    const rows = minutesAt(
      at(0),
      Array.from({ length: 105 }, () => 100),
    ).map((row, index) => ({ ...row, volume: index >= 100 ? 30 : Math.floor(index / 5) % 2 === 0 ? 8 : 12 }));
    const surge = rule({ kind: 'volume_z', threshold: 2, period: 20 }, { timeframe: '5m' });
    const { firings } = await run([surge], new Market(rows), [105]);
    expect(minuteOf(firings, surge.id)).toEqual([102]);
  });
});

/** A random walk of minute bars with volume bursts, `hours` hours from T0. */
function randomMinutes(hours: number, seed: number): CandleInput[] {
  const next = random(seed);
  const rows: CandleInput[] = [];
  let price = 100;
  for (let minute = 0; minute < hours * 60; minute += 1) {
    const previous = price;
    price *= 1 + (next() - 0.5) * 0.004 + (Math.floor(minute / 600) % 2 === 0 ? 0.0002 : -0.0002);
    const volume = 10 + next() * 10 + (next() < 0.02 ? 200 : 0);
    rows.push(bar(T0 + minute * MINUTE, price, previous, volume));
  }
  return rows;
}

describe('WATOS odds', () => {
  it('fires when the measured odds at a closed hour reach the threshold and did not at the previous one', async () => {
    // Seed 12: a momentum edge measurable enough to state (calibrated odds, src/signals/watosOdds.ts)
    // comes and goes in these hours, so some threshold is crossed.
    const minutes = randomMinutes(612, 12);
    const startHour = 600;
    const hours = hoursOf(minutes);
    // The odds at each closed hour, from watosOdds directly over the last 500 closed hours.
    const odds = (hour: number) =>
      watosProbabilities(watosOdds(candleSeries(hours.slice(Math.max(0, hour - 499), hour + 1)), 24));
    const probabilities = Array.from({ length: 13 }, (_, index) => odds(startHour - 1 + index));
    const best = (list: number[], outcome: 'rise' | 'fall') =>
      Math.max(0, ...list.map((p) => (outcome === 'rise' ? p : 1 - p)));
    let chosen: { outcome: 'rise' | 'fall'; threshold: number; expected: number[] } | null = null;
    for (const outcome of ['rise', 'fall'] as const)
      for (let threshold = 99; threshold >= 50 && !chosen; threshold -= 1) {
        const met = probabilities.map((list) => best(list, outcome) >= threshold / 100);
        const expected = met.flatMap((value, index) => (index > 0 && value && !met[index - 1] ? [index] : []));
        if (expected.length > 0 && met.some((value) => !value)) chosen = { outcome, threshold, expected };
      }
    expect(chosen).not.toBeNull();
    const { outcome, threshold, expected } = chosen!;
    const watos = rule({ kind: 'watos_odds', outcome, threshold }, { timeframe: '1h' });
    const market = new Market(minutes, startHour * 60);
    const { firings } = await run(
      [watos],
      market,
      Array.from({ length: 24 }, () => 30),
    );
    // Evaluated on the last minute of each hour (hour startHour - 1 + index closes at its 59th minute).
    expect(firings.map((firing) => firing.barTime)).toEqual(
      expected.map((index) => T0 + (startHour - 1 + index) * HOUR + 59 * MINUTE),
    );
  });
});

describe('agreement with the reference and after a restart', () => {
  const conditions: Array<[RuleCondition, RuleTimeframe]> = [
    [{ kind: 'price_cross', direction: 'above', level: 101 }, '1h'],
    [{ kind: 'price_cross', direction: 'below', level: 100.5 }, '15m'],
    [{ kind: 'channel', direction: 'enters', lower: 100.2, upper: 100.9 }, '1h'],
    [{ kind: 'channel', direction: 'exits', lower: 99.5, upper: 101.5 }, '1h'],
    [{ kind: 'percent_move', percent: 0.4, windowMinutes: 30 }, '1h'],
    [{ kind: 'percent_move', percent: -0.3, windowMinutes: 15 }, '1h'],
    [{ kind: 'rsi', direction: 'above', level: 60, period: 14 }, '5m'],
    [{ kind: 'rsi', direction: 'below', level: 40, period: 14 }, '15m'],
    [{ kind: 'rsi', direction: 'above', level: 55, period: 7 }, '1h'],
    [{ kind: 'rsi', direction: 'below', level: 45, period: 14 }, '4h'],
    [{ kind: 'ema_cross', direction: 'above', fast: 9, slow: 21 }, '1m'],
    [{ kind: 'ema_cross', direction: 'below', fast: 9, slow: 21 }, '1m'],
    [{ kind: 'ema_cross', direction: 'above', fast: 5, slow: 13 }, '1h'],
    [{ kind: 'bollinger', direction: 'above', period: 20, deviations: 2 }, '5m'],
    [{ kind: 'bollinger', direction: 'below', period: 20, deviations: 1.5 }, '1h'],
    [{ kind: 'volume_z', threshold: 2, period: 20 }, '5m'],
    [{ kind: 'volume_z', threshold: 1, period: 10 }, '1h'],
    [{ kind: 'watos_odds', outcome: 'rise', threshold: 55 }, '1h'],
    // 96 hours of a random walk show no measurable edge: the stated odds are the base rate, near 50%.
    [{ kind: 'watos_odds', outcome: 'fall', threshold: 50 }, '15m'],
  ];

  it('gives the reference firings, and a fresh evaluator at any update gives the same ones', async () => {
    const minutes = randomMinutes(96, 5);
    const rules = conditions.flatMap(([condition, timeframe]) => [
      rule(condition, { timeframe, trigger: 'every_time' }),
      rule(condition, { timeframe, trigger: 'once_per_bar' }),
    ]);
    const start = 86 * 60;
    const market = new Market(minutes, start);
    const chunks: number[] = [];
    const next = random(3);
    for (let total = 0; total < minutes.length - start;) {
      const count = Math.min(minutes.length - start - total, 1 + Math.floor(next() * 40));
      chunks.push(count);
      total += count;
    }
    const evaluator = createRuleEvaluator({ history: market.history });
    evaluator.setRules(rules);
    const fired = new Set<string>();
    const all: FiringDraft[] = [];
    const keyOf = (firing: FiringDraft) => `${firing.ruleId}:${firing.triggerKey}`;
    for (const [index, count] of chunks.entries()) {
      const delivered = market.delivered;
      const update = market.next(count);
      const firings = await evaluator.evaluate(update);
      if (index % 3 === 0) {
        // A restart just before this update: a new evaluator with only the store.
        const store = new Market(minutes, delivered);
        const fresh = createRuleEvaluator({ history: store.history });
        fresh.setRules(rules);
        const again = (await fresh.evaluate(update)).filter((firing) => !fired.has(keyOf(firing)));
        expect(again).toEqual(firings);
      }
      for (const firing of firings) fired.add(keyOf(firing));
      all.push(...firings);
    }

    // The reference: every rule, every minute, from scratch over all bars.
    const bars = { minutes: candleSeries(minutes), hours: candleSeries(hoursOf(minutes)) };
    const expected: Array<[number, number, number]> = [];
    for (let index = start; index < minutes.length; index += 1)
      for (const active of rules) {
        if (active.condition.kind === 'builtin') continue;
        if (!ruleFiresAt(active.condition, active.timeframe, bars, index)) continue;
        const time = minutes[index]!.time;
        expected.push([time, active.id, triggerKey(active, time)]);
      }
    const dedup = new Set<string>();
    const reference = expected
      .filter(([, id, key]) => !dedup.has(`${id}:${key}`) && dedup.add(`${id}:${key}`))
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(all.map((firing) => [firing.barTime, firing.ruleId, firing.triggerKey])).toEqual(reference);
    // Every kind fired at least once, so the comparison means something.
    const kinds = new Set(all.map((firing) => rules.find((active) => active.id === firing.ruleId)!.condition.kind));
    expect([...kinds].sort()).toEqual(
      ['bollinger', 'channel', 'ema_cross', 'percent_move', 'price_cross', 'rsi', 'volume_z', 'watos_odds'].sort(),
    );
  });

  it('keeps history per symbol and only touches the symbols of the update', async () => {
    const calls: string[] = [];
    const evaluator = createRuleEvaluator({
      history: (productId, granularity, limit) => {
        calls.push(`${productId}:${granularity}:${limit}`);
        return Promise.resolve([]);
      },
    });
    evaluator.setRules([
      rule({ kind: 'price_cross', direction: 'above', level: 100 }),
      rule({ kind: 'rsi', direction: 'above', level: 70, period: 14 }, { symbol: 'ETH-USD', ticker: 'ETH' }),
    ]);
    expect([...evaluator.symbols()].sort()).toEqual(['BTC-USD', 'ETH-USD']);
    await evaluator.evaluate({
      productId: 'BTC-USD',
      source: 'demo',
      minutes: minutesAt(at(0), [99]),
      hours: [],
      alerts: [],
    });
    await evaluator.evaluate({
      productId: 'BTC-USD',
      source: 'demo',
      minutes: minutesAt(at(1), [101]),
      hours: [],
      alerts: [],
    });
    expect(calls).toEqual(['BTC-USD:60:120']);
    expect(
      await evaluator.evaluate({
        productId: 'SOL-USD',
        source: 'demo',
        minutes: minutesAt(at(0), [1]),
        hours: [],
        alerts: [],
      }),
    ).toEqual([]);
    await evaluator.evaluate({
      productId: 'ETH-USD',
      source: 'demo',
      minutes: minutesAt(at(0), [99]),
      hours: [],
      alerts: [],
    });
    // RSI(14) on 1h: 3 x 14 + 50 = 92 closed hours, 93 source hours + 72 of room.
    expect(calls).toEqual(['BTC-USD:60:120', 'ETH-USD:60:120', 'ETH-USD:3600:165']);
  });
});
