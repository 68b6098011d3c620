// What Are The Odds: for each WATOS signal active now, how often the close was higher
// `horizon` bars later over every past bar where the same signal state held, with the sample
// size and a 95% Wilson interval. Fewer than 30 samples says "not enough history" instead of
// a number: every figure shown was measured. Consecutive bars of one episode overlap, so the
// interval is optimistic for long episodes; the sample size is shown so a trader can judge.
import type { CandleSeries } from './candles.ts';
import { watosHistory, watosSignals, type WatosHistory, type WatosSignal } from './watos.ts';

export const MIN_SAMPLES = 30;

export interface Proportion {
  probability: number | null;
  samples: number;
  /** 95% Wilson score interval; null with the probability. */
  interval: [number, number] | null;
}

export interface WatosOdds extends WatosSignal {
  odds: (Proportion & { reason: string | null }) | null;
}

export interface WatosReport {
  horizon: number;
  /** Unconditional share of bars whose close was higher `horizon` bars later. */
  baseRate: Proportion;
  signals: WatosOdds[];
}

/** Wilson score interval for k successes out of n at 95%. */
export function wilsonInterval(successes: number, trials: number, z = 1.959963984540054): [number, number] {
  if (trials === 0) return [0, 1];
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

function proportion(successes: number, trials: number): Proportion {
  if (trials < MIN_SAMPLES) return { probability: null, samples: trials, interval: null };
  return { probability: successes / trials, samples: trials, interval: wilsonInterval(successes, trials) };
}

/** Share of bars (before `until`) in `state` whose close rose over the horizon. */
export function conditionalRise(
  close: Float64Array,
  states: Int8Array | null,
  state: number,
  horizon: number,
  until = close.length,
): Proportion {
  let rises = 0;
  let trials = 0;
  const last = Math.min(until, close.length) - horizon;
  for (let index = 0; index < last; index += 1) {
    if (states && states[index] !== state) continue;
    trials += 1;
    if (close[index + horizon] > close[index]) rises += 1;
  }
  return proportion(rises, trials);
}

export function watosOdds(
  series: CandleSeries,
  horizon = 24,
  history: WatosHistory = watosHistory(series),
): WatosReport {
  const signals = watosSignals(series, history).map((signal): WatosOdds => {
    if (!signal.active) return { ...signal, odds: null };
    const state = signal.direction === 'bullish' ? 1 : -1;
    const measured = conditionalRise(series.close, history.states[signal.id], state, horizon);
    return { ...signal, odds: { ...measured, reason: measured.probability === null ? 'not enough history' : null } };
  });
  return { horizon, baseRate: conditionalRise(series.close, null, 0, horizon), signals };
}
