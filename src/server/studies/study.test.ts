// The setup study, pure: the signals and outcomes on a constructed series counted by hand, the
// odds equal to the product's estimator (measure/statedOdds) pooled over symbols, the verdict's
// shape, the equity curve with fees and no overlapping trades; and ruleToScanConditions: each
// mapped rule condition's "became true" bars are exactly the bars where the rule fires.
import { describe, expect, it } from 'vitest';
import { ruleCondition, type RuleCondition } from '../../shared/schemas/alertRules.ts';
import { scanCondition, type ScanCondition } from '../../shared/schemas/scans.ts';
import { candleSeries, type CandleSeries } from '../../signals/candles.ts';
import { ema, rsi } from '../../signals/indicators.ts';
import { crossesDown, crossesUp, priceCrosses } from '../../signals/ruleConditions.ts';
import { evaluateSetup, setupSignals } from '../../signals/scanConditions.ts';
import { measure, statedOdds } from '../../signals/watosOdds.ts';
import { ruleToScanConditions } from './ruleForecasts.ts';
import { describeSetup, runStudy, symbolsText, type StudySymbol } from './study.ts';

const HOUR = 3_600_000;

function series(closes: readonly number[]): CandleSeries {
  return candleSeries(
    closes.map((close, index) => {
      const open = index === 0 ? close : closes[index - 1]!;
      return {
        time: index * HOUR,
        open,
        high: Math.max(open, close) + 0.5,
        low: Math.min(open, close) - 0.5,
        close,
        volume: 10,
      };
    }),
  );
}

function symbol(id: string, closes: readonly number[]): StudySymbol {
  return { id, ticker: id, assetClass: 'stock', calendar: 'crypto-24x7', series: series(closes), source: 'yahoo' };
}

/** A deterministic wiggly walk (a sine plus a drift from a seed). */
function walk(length: number, seed: number): number[] {
  const closes: number[] = [];
  let state = seed;
  let price = 100;
  for (let index = 0; index < length; index += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    price *= 1 + (state / 2147483648 - 0.5) * 0.02;
    closes.push(price);
  }
  return closes;
}

const above100: ScanCondition = scanCondition.parse({ kind: 'price_range', min: 100 });

describe('runStudy', () => {
  it('counts signals, outcomes and trades by hand on a small series', () => {
    // Crosses above 100 at bars 2 and 6 (horizon 2: both have bars 4 and 8 after them).
    const closes = [98, 99, 101, 102, 97, 96, 103, 99, 104, 95];
    const answer = runStudy({
      symbols: [symbol('TEST', closes)],
      timeframe: '1h',
      barMs: HOUR,
      conditions: [above100],
      horizon: 2,
      feePercent: 0.1,
    });
    expect(answer.signals).toBe(2);
    expect(answer.perSymbol).toEqual([{ symbol: 'TEST', signals: 2, source: 'yahoo' }]);
    // Bar 2: 101 -> 97 (fell); bar 6: 103 -> 104 (rose).
    expect(answer.outcomes.hitRate).toBe(0.5);
    const moves = [(97 / 101 - 1) * 100, (104 / 103 - 1) * 100];
    expect(answer.outcomes.averageMovePercent).toBeCloseTo((moves[0]! + moves[1]!) / 2, 10);
    expect(answer.outcomes.medianMovePercent).toBeCloseTo((moves[0]! + moves[1]!) / 2, 10);
    // Bar 2's worst low in bars 3..4 is 96.5, best high 102.5; bar 6's: 98.5 and 104.5.
    expect(answer.outcomes.adverseExcursionPercent).toBeCloseTo(
      ((96.5 / 101 - 1) * 100 + (98.5 / 103 - 1) * 100) / 2,
      10,
    );
    expect(answer.outcomes.favourableExcursionPercent).toBeCloseTo(
      ((102.5 / 101 - 1) * 100 + (104.5 / 103 - 1) * 100) / 2,
      10,
    );
    expect(answer.trades).toBe(2);
    const first = 1 + (97 / 101 - 1) - 0.001;
    expect(answer.equity.map((point) => point.equity)).toEqual([first, first * (1 + (104 / 103 - 1) - 0.001)]);
    expect(answer.equity[0]!.time).toBe(new Date(5 * HOUR).toISOString());
    // Too few signals for the estimator: said so, no edge claimed.
    expect(answer.edge).toBe(false);
    expect(answer.verdict).toMatch(
      /^When TEST traded at 100 or more on 1h, it closed higher 2 bars later 50% of the time \(n=2\); base rate \d+%: too few signals to measure \(at least 30 needed\)$/,
    );
  });

  it('skips signals while a trade is open', () => {
    // Signals at bars 1, 3 and 5 (each a fresh crossing), horizon 3: bar 3 falls inside bar 1's trade.
    const closes = [99, 101, 99, 101, 99, 101, 99, 99, 99, 99];
    const answer = runStudy({
      symbols: [symbol('TEST', closes)],
      timeframe: '1h',
      barMs: HOUR,
      conditions: [above100],
      horizon: 3,
      feePercent: 0,
    });
    expect(answer.signals).toBe(3);
    expect(answer.trades).toBe(2);
  });

  it('states the product estimator’s odds, pooled over the symbols', () => {
    const a = symbol('AAA', walk(3000, 7));
    const b = symbol('BBB', walk(3000, 11));
    const conditions = [scanCondition.parse({ kind: 'price_vs_ema', side: 'above', period: 20 })];
    const answer = runStudy({
      symbols: [a, b],
      timeframe: '1h',
      barMs: HOUR,
      conditions,
      horizon: 24,
      feePercent: 0.1,
    });
    const context = { ticker: 'X', assetClass: 'stock' as const, calendar: 'crypto-24x7' as const, barMs: HOUR };
    const parts = [a, b].map((one) => {
      const signals = setupSignals(evaluateSetup(conditions, one.series, context));
      return { signal: measure(one.series.close, signals, 1, 24), base: measure(one.series.close, null, 0, 24) };
    });
    const pool = (key: 'signal' | 'base') => {
      const samples = parts.reduce((sum, part) => sum + part[key].samples, 0);
      return {
        rises: parts.reduce((sum, part) => sum + part[key].rises, 0),
        samples,
        designEffect: parts.reduce((sum, part) => sum + part[key].designEffect * part[key].samples, 0) / samples,
      };
    };
    const expected = statedOdds(pool('signal'), pool('base'));
    expect(answer.signals).toBe(pool('signal').samples);
    expect(answer.signals).toBeGreaterThan(60);
    expect(answer.rose.share).toBeCloseTo(expected.probability!, 12);
    expect(answer.rose.low).toBeCloseTo(expected.interval![0], 12);
    expect(answer.rose.high).toBeCloseTo(expected.interval![1], 12);
    expect(answer.edge).toBe(expected.noEdge === false);
    expect(answer.effectiveSamples).toBeCloseTo(pool('signal').samples / pool('signal').designEffect, 10);
    const raw = Math.round((pool('signal').rises / pool('signal').samples) * 100);
    expect(answer.verdict).toMatch(
      new RegExp(
        `^When AAA or BBB crossed above its EMA 20 on 1h, it closed higher 24 bars later ${raw}% of the time \\(n=${answer.signals}, 95% \\d+-\\d+%\\); base rate \\d+%: (no measurable edge|a measurable edge .*)$`,
      ),
    );
    expect(answer.verdict.endsWith('no measurable edge')).toBe(!answer.edge);
  });

  it('says when the setup never occurred', () => {
    const answer = runStudy({
      symbols: [
        symbol(
          'LOW',
          walk(200, 3).map((close) => close / 10),
        ),
      ],
      timeframe: '1h',
      barMs: HOUR,
      conditions: [scanCondition.parse({ kind: 'price_range', min: 1000 })],
      horizon: 5,
      feePercent: 0,
    });
    expect(answer.signals).toBe(0);
    expect(answer.outcomes.hitRate).toBeNull();
    expect(answer.equity).toEqual([]);
    expect(answer.verdict).toContain('the setup never occurred');
  });
});

describe('words', () => {
  it('names the symbols and the setup', () => {
    expect(symbolsText(['AAPL'])).toBe('AAPL');
    expect(symbolsText(['AAPL', 'MSFT'])).toBe('AAPL or MSFT');
    expect(symbolsText(['AAPL', 'MSFT', 'NVDA'])).toBe('AAPL, MSFT or NVDA');
    expect(symbolsText(['AAPL', 'MSFT', 'NVDA', 'TSLA', 'AMZN'])).toBe('AAPL, MSFT or 3 more');
    expect(
      describeSetup([
        scanCondition.parse({ kind: 'rsi', side: 'below', level: 30 }),
        scanCondition.parse({ kind: 'asset_class', classes: ['stock'] }),
      ]),
    ).toBe('saw RSI 14 fall below 30');
  });
});

describe('ruleToScanConditions', () => {
  const closes = walk(600, 5).map((close) => close);
  const bars = series(closes);
  const context = { ticker: 'X', assetClass: 'stock' as const, calendar: 'crypto-24x7' as const, barMs: HOUR };
  const level = closes[300]!;

  /** Where the rule's own state functions say it fires on these bars (the evaluator's conventions). */
  function ruleFires(condition: RuleCondition): number[] {
    const fired: number[] = [];
    const close = bars.close;
    for (let index = 1; index < bars.length; index += 1) {
      let fires = false;
      if (condition.kind === 'price_cross')
        fires = priceCrosses(condition.direction, close[index - 1]!, close[index]!, condition.level);
      else if (condition.kind === 'rsi') {
        const values = rsi(close, condition.period);
        fires = (condition.direction === 'above' ? crossesUp : crossesDown)(
          values[index - 1]!,
          values[index]!,
          condition.level,
        );
      } else if (condition.kind === 'ema_cross') {
        const fast = ema(close, condition.fast);
        const slow = ema(close, condition.slow);
        fires = (condition.direction === 'above' ? crossesUp : crossesDown)(
          fast[index - 1]! - slow[index - 1]!,
          fast[index]! - slow[index]!,
          0,
        );
      }
      if (fires) fired.push(index);
    }
    return fired;
  }

  const studied = (condition: RuleCondition) => {
    const conditions = ruleToScanConditions(condition, '1h');
    expect(conditions).not.toBeNull();
    const signals = setupSignals(evaluateSetup(conditions!, bars, context));
    return [...signals].flatMap((value, index) => (value ? [index] : []));
  };

  it.each([
    { kind: 'price_cross', direction: 'above', level },
    { kind: 'price_cross', direction: 'below', level },
    { kind: 'rsi', direction: 'below', level: 40 },
    { kind: 'rsi', direction: 'above', level: 60 },
    { kind: 'ema_cross', direction: 'above', fast: 5, slow: 20 },
    { kind: 'ema_cross', direction: 'below', fast: 5, slow: 20 },
  ])('$kind $direction: the study signals where the rule fires', (input) => {
    const condition = ruleCondition.parse(input);
    const expected = ruleFires(condition);
    expect(expected.length).toBeGreaterThan(2);
    expect(studied(condition)).toEqual(expected);
  });

  it('maps the others, and refuses what has no state', () => {
    expect(
      ruleToScanConditions(ruleCondition.parse({ kind: 'percent_move', percent: -3, windowMinutes: 240 }), '1h'),
    ).toEqual([{ kind: 'change', side: 'below', percent: 3, bars: 4 }]);
    expect(
      ruleToScanConditions(ruleCondition.parse({ kind: 'percent_move', percent: 3, windowMinutes: 90 }), '1h'),
    ).toBeNull();
    expect(
      ruleToScanConditions(ruleCondition.parse({ kind: 'channel', direction: 'enters', lower: 1, upper: 2 }), '1h'),
    ).toEqual([{ kind: 'price_range', min: 1, max: 2 }]);
    expect(
      ruleToScanConditions(ruleCondition.parse({ kind: 'channel', direction: 'exits', lower: 1, upper: 2 }), '1h'),
    ).toBeNull();
    expect(ruleToScanConditions(ruleCondition.parse({ kind: 'watos_odds', threshold: 60 }), '1h')).toBeNull();
    expect(
      ruleToScanConditions(ruleCondition.parse({ kind: 'builtin', alertType: 'BreakoutAlertGenerator' }), '4h'),
    ).toEqual([{ kind: 'builtin', alertType: 'BreakoutAlertGenerator', withinBars: 1 }]);
  });
});
