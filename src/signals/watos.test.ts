// WATOS signals and their odds: the minimum sample, constructed series for each rule,
// degenerate input without NaN or throws. Odds on demo history: src/server/market/signalsOnDemo.test.ts.
import { describe, expect, it } from 'vitest';
import { candleSeries, type CandleInput } from './candles.ts';
import { watosHistory, watosSignals } from './watos.ts';
import { measure, MIN_SAMPLES, statedOdds } from './watosOdds.ts';

const HOUR = 3_600_000;

function bars(closes: number[], volumes?: number[]): CandleInput[] {
  return closes.map((close, index) => {
    const open = index === 0 ? close : closes[index - 1]!;
    return {
      time: index * HOUR,
      open,
      high: Math.max(open, close) * 1.002,
      low: Math.min(open, close) * 0.998,
      close,
      volume: volumes?.[index] ?? 100 + (index % 5),
    };
  });
}

describe('measure and statedOdds', () => {
  it('measures the share of rises after the horizon, and refuses a number below 30 samples', () => {
    const rising = Float64Array.from({ length: 100 }, (_, index) => 100 + index);
    const all = measure(rising, null, 0, 5);
    expect(all).toMatchObject({ rises: 95, samples: 95 });
    const states = new Int8Array(100);
    states.fill(1, 0, 20);
    expect(statedOdds(measure(rising, states, 1, 5), all)).toMatchObject({
      probability: null,
      raw: null,
      samples: 20,
      interval: null,
      reason: 'not enough history',
    });
    expect(MIN_SAMPLES).toBe(30);
  });
});

describe('WATOS signals on constructed series', () => {
  it('sees a volume surge with its measured size and strength', () => {
    const closes = Array.from({ length: 60 }, (_, index) => 100 + Math.sin(index) * 0.5);
    const volumes = closes.map((_, index) => (index === 59 ? 2000 : 100 + (index % 7) * 3));
    closes[59] = 101.5;
    const surge = watosSignals(candleSeries(bars(closes, volumes))).find((signal) => signal.id === 'watos1')!;
    expect(surge).toMatchObject({ name: 'Volume Surge', active: true, direction: 'bullish', strength: 'high' });
    expect(surge.description).toMatch(/^Volume \d+\.\dσ above its 20-bar average on a rising bar$/);
  });

  it('states the measured volume z-score when there is no surge', () => {
    const closes = Array.from({ length: 60 }, (_, index) => 100 + Math.sin(index) * 0.5);
    const volumes = closes.map((_, index) => 100 + (index % 7) * 3);
    const quiet = watosSignals(candleSeries(bars(closes, volumes))).find((signal) => signal.id === 'watos1')!;
    expect(quiet.active).toBe(false);
    expect(quiet.value).not.toBeNull();
    expect(quiet.description).toMatch(/^Volume -?\d+\.\dσ from its 20-bar average: no surge$/);
  });

  it('sees a golden cross of the 50 and 200 bar averages', () => {
    const closes = [
      ...Array.from({ length: 230 }, (_, index) => 200 - index * 0.3),
      ...Array.from({ length: 120 }, (_, index) => 131 + index * 1.2),
    ];
    const history = watosHistory(candleSeries(bars(closes)));
    const crossAt = history.states.watos3.findIndex((state) => state === 1);
    expect(crossAt).toBeGreaterThan(230);
    const series = candleSeries(bars(closes.slice(0, crossAt + 5)));
    const cross = watosSignals(series).find((signal) => signal.id === 'watos3')!;
    expect(cross).toMatchObject({ name: 'MA Crossover', active: true, direction: 'bullish' });
    expect(cross.description).toContain('golden cross');
  });

  it('reports every signal inactive, without NaN, on flat and on too-short series', () => {
    for (const closes of [new Array<number>(300).fill(50), [1, 2, 3]]) {
      const signals = watosSignals(candleSeries(bars(closes)));
      expect(signals.map((signal) => signal.id)).toEqual(['watos1', 'watos2', 'watos3', 'watos4', 'watos5', 'watos6']);
      for (const signal of signals.filter((entry) => entry.id !== 'watos5')) {
        expect(signal.active).toBe(false);
        expect(signal.description).not.toContain('NaN');
      }
    }
    expect(watosSignals(candleSeries([])).every((signal) => !signal.active)).toBe(true);
  });
});
