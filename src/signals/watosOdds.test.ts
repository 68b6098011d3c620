// The calibrated WATOS odds (src/signals/watosOdds.ts): the Beta distribution against textbook
// values, the overlap design effect and the shrinkage against hand-computed figures, "no
// measurable edge", and that nothing after the stating bar reaches the statement.
import { describe, expect, it } from 'vitest';
import { candleSeries, type CandleInput } from './candles.ts';
import { watosHistory, type WatosId } from './watos.ts';
import {
  BASE_PRIOR_STRENGTH,
  betaCdf,
  betaInterval,
  betaQuantile,
  measure,
  MIN_SAMPLES,
  PRIOR_STRENGTH,
  statedBaseRate,
  statedOdds,
  watosOdds,
} from './watosOdds.ts';

const HOUR = 3_600_000;

/** A seeded random walk of hourly bars with a volume that sometimes surges. */
function walk(length: number, seed: number): CandleInput[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const bars: CandleInput[] = [];
  let close = 100;
  for (let index = 0; index < length; index += 1) {
    const open = close;
    close = open * Math.exp((random() - 0.5) * 0.02);
    bars.push({
      time: index * HOUR,
      open,
      high: Math.max(open, close) * (1 + random() * 0.004),
      low: Math.min(open, close) * (1 - random() * 0.004),
      close,
      volume: 100 + random() * 20 + (random() < 0.05 ? 400 : 0),
    });
  }
  return bars;
}

describe('the Beta distribution', () => {
  it('matches closed forms and textbook quantiles', () => {
    // Beta(1, 1) is uniform; Beta(2, 1) has CDF x^2; Beta(2, 2) has CDF 3x^2 - 2x^3.
    expect(betaQuantile(0.025, 1, 1)).toBeCloseTo(0.025, 9);
    expect(betaQuantile(0.025, 2, 1)).toBeCloseTo(Math.sqrt(0.025), 9);
    expect(betaCdf(0.25, 2, 2)).toBeCloseTo(0.15625, 12);
    expect(betaCdf(0.5, 2, 2)).toBeCloseTo(0.5, 12);
    expect(betaCdf(0.3, 2.5, 7.3)).toBeCloseTo(0.6642382, 6);
    expect(betaQuantile(0.9, 2.5, 7.3)).toBeCloseTo(0.4391058, 6);
    const [low, high] = betaInterval(50, 50);
    expect(low).toBeCloseTo(0.4026979, 6);
    expect(high).toBeCloseTo(0.5973021, 6);
    expect(betaCdf(0, 3, 4)).toBe(0);
    expect(betaCdf(1, 3, 4)).toBe(1);
  });
});

describe('measure', () => {
  it('counts only outcomes known before `until` and reads nothing from there on', () => {
    const close = Float64Array.from({ length: 100 }, (_, index) => 100 + index);
    expect(measure(close, null, 0, 5)).toMatchObject({ rises: 95, samples: 95 });
    // The outcome of bar i is known at bar i + horizon: bar 54 (54 + 5 = 59) counts before 60, bar 55 does not.
    expect(measure(close, null, 0, 5, 60)).toMatchObject({ rises: 55, samples: 55 });
    const changed = Float64Array.from(close);
    changed.fill(0, 60);
    expect(measure(changed, null, 0, 5, 60)).toEqual(measure(close, null, 0, 5, 60));
    changed[59] = 0;
    expect(measure(changed, null, 0, 5, 60).rises).toBe(54);
  });

  it('states the overlap design effect of the counted bars', () => {
    const close = Float64Array.from({ length: 20 }, (_, index) => 100 + (index % 3));
    // Isolated bars (more than a horizon apart) do not overlap.
    const isolated = new Int8Array(20);
    isolated[2] = 1;
    isolated[8] = 1;
    expect(measure(close, isolated, 1, 4).designEffect).toBe(1);
    // Two neighbours, horizon 4: their outcomes share 3 of 4 moves, correlation (2/pi) asin(3/4).
    const pair = new Int8Array(20);
    pair[2] = 1;
    pair[3] = 1;
    expect(measure(close, pair, 1, 4).designEffect).toBeCloseTo((2 + 2 * 0.5398930876747683) / 2, 12);
    // Every bar, horizon 2: neighbours correlate (2/pi) asin(1/2) = 1/3; 3 bars: D = 1 + 4/9.
    expect(measure(close.subarray(0, 5), null, 0, 2).designEffect).toBeCloseTo(1 + 4 / 9, 12);
  });
});

describe('the stated odds', () => {
  const base = { rises: 500, samples: 1000, designEffect: 10 };

  it('states the base rate as the Beta(50, 50) posterior over the effective counts', () => {
    expect(BASE_PRIOR_STRENGTH).toBe(100);
    // 100 samples worth 50 with 60% rises: Beta(50 + 30, 50 + 20).
    const stated = statedBaseRate({ rises: 60, samples: 100, designEffect: 2 });
    expect(stated.probability).toBeCloseTo(80 / 150, 12);
    expect(stated.raw).toBe(0.6);
    expect(stated.samples).toBe(100);
    expect(stated.effectiveSamples).toBe(50);
    expect(stated.interval![0]).toBeCloseTo(0.453454, 6);
    expect(stated.interval![1]).toBeCloseTo(0.6123705, 6);
    expect(statedBaseRate({ rises: 10, samples: 29, designEffect: 1 })).toMatchObject({
      probability: null,
      raw: null,
      interval: null,
      samples: 29,
    });
  });

  it('shrinks a strong measured edge by its evidence and keeps it', () => {
    expect(PRIOR_STRENGTH).toBe(30);
    // Base: level 0.5 from Beta(100, 100). Signal: 80 of 100, worth 50 effective samples.
    // Sampling variance 0.25 (1/50 - 1/100) = 0.0025; prior variance 0.25/31; weight 100/131.
    const odds = statedOdds({ rises: 80, samples: 100, designEffect: 2 }, base);
    expect(odds.raw).toBe(0.8);
    expect(odds.samples).toBe(100);
    expect(odds.effectiveSamples).toBe(50);
    expect(odds.probability).toBeCloseTo(0.5 + (100 / 131) * 0.3, 12);
    expect(odds.interval![0]).toBeCloseTo(0.6124862, 6);
    expect(odds.interval![1]).toBeCloseTo(0.8314692, 6);
    expect(odds.noEdge).toBe(false);
    expect(odds.reason).toBeNull();
  });

  it('states the base rate, with "no measurable edge", when the interval includes it', () => {
    // 30 of 50 worth 10: weight (1/31) / (1/31 + 0.09) = 0.2639, shrunk estimate 0.5264.
    const odds = statedOdds({ rises: 30, samples: 50, designEffect: 5 }, base);
    expect(odds.noEdge).toBe(true);
    expect(odds.probability).toBe(0.5);
    expect(odds.raw).toBe(0.6);
    expect(odds.interval![0]).toBeCloseTo(0.3599277, 6);
    expect(odds.interval![1]).toBeCloseTo(0.6898754, 6);
    expect(odds.interval![0]).toBeLessThanOrEqual(0.5);
    expect(odds.interval![1]).toBeGreaterThanOrEqual(0.5);
  });

  it('gives no number below MIN_SAMPLES', () => {
    expect(MIN_SAMPLES).toBe(30);
    expect(statedOdds({ rises: 20, samples: 29, designEffect: 1 }, base)).toEqual({
      probability: null,
      raw: null,
      samples: 29,
      effectiveSamples: 29,
      interval: null,
      noEdge: null,
      reason: 'not enough history',
    });
  });
});

describe('watosOdds states at the last bar from that bar and earlier ones only', () => {
  const bars = walk(900, 7);
  const full = candleSeries(bars);
  const history = watosHistory(full);

  it('equals the walk-forward statement at bar t of a longer history, whatever came after t', () => {
    let compared = 0;
    for (const t of [500, 640, 777]) {
      const stated = watosOdds(candleSeries(bars.slice(0, t + 1)), 24);
      const base = measure(full.close, null, 0, 24, t + 1);
      expect(stated.baseRate).toEqual(statedBaseRate(base));
      for (const signal of stated.signals) {
        if (!signal.active) continue;
        const state = signal.direction === 'bullish' ? 1 : -1;
        expect(history.states[signal.id][t]).toBe(state);
        expect(signal.odds).toEqual(statedOdds(measure(full.close, history.states[signal.id], state, 24, t + 1), base));
        if (signal.odds!.probability !== null) compared += 1;
      }
      // A different future (every later bar changed) states the same odds at t.
      const otherFuture = [...bars.slice(0, t + 1), ...walk(900 - t - 1, 99).map((bar) => ({ ...bar, time: 0 }))];
      const changed = candleSeries(otherFuture.map((bar, index) => ({ ...bar, time: index * HOUR })));
      const changedHistory = watosHistory(changed);
      for (const id of Object.keys(history.states) as WatosId[])
        for (const state of [1, -1]) {
          expect(statedOdds(measure(changed.close, changedHistory.states[id], state, 24, t + 1), base)).toEqual(
            statedOdds(measure(full.close, history.states[id], state, 24, t + 1), base),
          );
        }
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('reports every active signal with its raw frequency, sample size and edge judgement', () => {
    const report = watosOdds(full, 24);
    expect(report.baseRate.samples).toBe(900 - 24);
    expect(report.baseRate.raw).toBeCloseTo(
      measure(full.close, null, 0, 24).rises / measure(full.close, null, 0, 24).samples,
      12,
    );
    let stated = 0;
    for (const signal of report.signals) {
      if (!signal.active) {
        expect(signal.odds).toBeNull();
        continue;
      }
      const odds = signal.odds!;
      if (odds.probability === null) {
        expect(odds.reason).toBe('not enough history');
        continue;
      }
      expect(odds.noEdge).toBe(
        odds.interval![0] <= report.baseRate.probability! && report.baseRate.probability! <= odds.interval![1],
      );
      if (odds.noEdge) expect(odds.probability).toBe(report.baseRate.probability);
      stated += 1;
    }
    expect(stated).toBeGreaterThan(0);
  });
});
