import { describe, expect, it } from 'vitest';
import { FLAG_MIN_RESOLVED, ForecastScorer, emptySums, reliabilityBin } from './forecastScore.ts';

// Four forecasts scored by hand (signal, stated p, base rate, rose, signal direction):
//   A watos1 0.80 0.5 rose  bullish: (0.80-1)^2 = 0.04    base (0.5-1)^2 = 0.25  hit
//   B watos1 0.80 0.5 fell  bullish: (0.80-0)^2 = 0.64    base 0.25              miss
//   C watos1 0.25 0.5 fell  bearish: (0.25-0)^2 = 0.0625  base 0.25              hit
//   D watos2 0.55 0.5 rose  bullish: (0.55-1)^2 = 0.2025  base 0.25              hit
// Brier = (0.04 + 0.64 + 0.0625 + 0.2025) / 4 = 0.945 / 4 = 0.23625; base Brier = 0.25;
// skill = 1 - 0.23625 / 0.25 = 0.055.
// Deciles: [0.8, 0.9) A, B: stated 0.8, realised 1/2, Wilson(1 of 2) = 0.5 -+ 0.405471
//   (z = 1.96: centre (0.5 + z^2/4) / (1 + z^2/2) = 0.5; half = z/(1 + z^2/2) * sqrt(0.125 + z^2/16)
//   = 0.671055 * 0.604229 = 0.405471) -> [0.094529, 0.905471];
//   [0.2, 0.3) C: realised 0, Wilson(0 of 1) = [0, z^2/(1 + z^2)] = [0, 0.793450];
//   [0.5, 0.6) D: realised 1, Wilson(1 of 1) = [1/(1 + z^2), 1] = [0.206550, 1].
// watos1: 3 forecasts, stated (0.8 + 0.8 + 0.25)/3 = 0.616667, realised 1/3, hit rate 2/3,
//   Brier 0.7425/3 = 0.2475, skill 1 - 0.2475/0.25 = 0.01. watos2: stated 0.55, realised 1,
//   hit rate 1, skill 1 - 0.2025/0.25 = 0.19.
function handExample(): ForecastScorer {
  const scorer = new ForecastScorer();
  scorer.add('watos1', 0.8, 0.5, true, true);
  scorer.add('watos1', 0.8, 0.5, false, true);
  scorer.add('watos1', 0.25, 0.5, false, false);
  scorer.add('watos2', 0.55, 0.5, true, true);
  return scorer;
}

describe('forecast scoring', () => {
  it('computes Brier, base-rate Brier and Brier skill as computed by hand', () => {
    const report = handExample().report();
    expect(report.count).toBe(4);
    expect(report.brier).toBeCloseTo(0.23625, 12);
    expect(report.baseBrier).toBeCloseTo(0.25, 12);
    expect(report.brierSkill).toBeCloseTo(0.055, 12);
  });

  it('builds the reliability deciles with counts and Wilson intervals', () => {
    const { reliability } = handExample().report();
    expect(reliability.map((bin) => [bin.from, bin.to, bin.count])).toEqual([
      [0.2, 0.3, 1],
      [0.5, 0.6, 1],
      [0.8, 0.9, 2],
    ]);
    const [low, mid, high] = reliability;
    expect(low!.stated).toBeCloseTo(0.25, 12);
    expect(low!.realised).toBe(0);
    expect(low!.interval[0]).toBeCloseTo(0, 6);
    expect(low!.interval[1]).toBeCloseTo(0.79345, 5);
    expect(mid!.realised).toBe(1);
    expect(mid!.interval[0]).toBeCloseTo(0.20655, 5);
    expect(mid!.interval[1]).toBeCloseTo(1, 12);
    expect(high!.stated).toBeCloseTo(0.8, 12);
    expect(high!.realised).toBe(0.5);
    expect(high!.interval[0]).toBeCloseTo(0.094529, 5);
    expect(high!.interval[1]).toBeCloseTo(0.905471, 5);
  });

  it('scores each signal: stated, realised, hit rate (its direction came true) and skill', () => {
    const [one, two] = handExample().report().signals;
    expect(one!.signal).toBe('watos1');
    expect(one!.count).toBe(3);
    expect(one!.stated).toBeCloseTo(0.616667, 6);
    expect(one!.realised).toBeCloseTo(1 / 3, 12);
    expect(one!.hitRate).toBeCloseTo(2 / 3, 12);
    expect(one!.brierSkill).toBeCloseTo(0.01, 12);
    expect(two).toMatchObject({ signal: 'watos2', count: 1, realised: 1, hitRate: 1, flagged: false });
    expect(two!.brierSkill).toBeCloseTo(0.19, 12);
  });

  it('flags a signal with negative skill only over enough forecasts', () => {
    const few = new ForecastScorer();
    const many = new ForecastScorer();
    // Stated 90% every time, base rate 50%, never rose: Brier 0.81 against 0.25, skill -2.24.
    for (let index = 0; index < FLAG_MIN_RESOLVED - 1; index += 1) few.add('watos6', 0.9, 0.5, false, true);
    for (let index = 0; index < FLAG_MIN_RESOLVED; index += 1) many.add('watos6', 0.9, 0.5, false, true);
    expect(few.report().signals[0]).toMatchObject({ flagged: false });
    expect(few.report().signals[0]!.brierSkill).toBeCloseTo(1 - 0.81 / 0.25, 12);
    expect(many.report().signals[0]).toMatchObject({ count: FLAG_MIN_RESOLVED, flagged: true });
  });

  it('merges grouped sums (as SQL returns them) into the same report as one-by-one adds', () => {
    const merged = new ForecastScorer();
    // The hand example's rows grouped by (signal, decile).
    merged.addSums('watos1', 8, { count: 2, stated: 1.6, rises: 1, hits: 1, brier: 0.68, baseBrier: 0.5 });
    merged.addSums('watos1', 2, { count: 1, stated: 0.25, rises: 0, hits: 1, brier: 0.0625, baseBrier: 0.25 });
    merged.addSums('watos2', 5, { count: 1, stated: 0.55, rises: 1, hits: 1, brier: 0.2025, baseBrier: 0.25 });
    const expected = handExample().report();
    const actual = merged.report();
    expect(actual.count).toBe(expected.count);
    expect(actual.brierSkill).toBeCloseTo(expected.brierSkill!, 12);
    expect(actual.reliability).toEqual(expected.reliability);
    expect(actual.signals.map((signal) => signal.hitRate)).toEqual(expected.signals.map((signal) => signal.hitRate));
    expect(() => merged.addSums('watos1', 10, emptySums())).toThrow(RangeError);
  });

  it('answers nothing but zero counts when there is nothing to score', () => {
    expect(new ForecastScorer().report()).toEqual({
      count: 0,
      brier: null,
      baseBrier: null,
      brierSkill: null,
      reliability: [],
      signals: [],
    });
  });

  it('puts each probability in its decile, 1 in the last', () => {
    expect([0, 0.0999, 0.1, 0.3, 0.7, 0.95, 1].map(reliabilityBin)).toEqual([0, 0, 1, 3, 7, 9, 9]);
  });
});
