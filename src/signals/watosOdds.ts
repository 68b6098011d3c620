// What Are The Odds: for each WATOS signal active now, the calibrated probability that the close
// is higher `horizon` bars later, with the measured frequency behind it, the sample size and a
// 95% interval. Fewer than 30 samples says "not enough history" instead of a number.
//
// The estimator (docs/features/signals-and-ai.md, "How the odds are calibrated"):
// 1. Effective samples. The outcomes of neighbouring bars share most of their horizon (bars i and
//    i+1 share h-1 of h price moves), so n bars are worth fewer independent outcomes. With no
//    predictability the rise indicators of bars d apart (d < h) correlate (2/pi) asin(1 - d/h)
//    (the sign correlation of two sums sharing h-d of h independent steps); the design effect of
//    a set S of bars is D = (1/n) sum over i,j in S of that correlation, and n/D is the effective
//    sample size (about n/17 for every bar of a 24-bar horizon).
// 2. Base rate. The market's rise rate is itself an estimate: a Beta(50, 50) prior (a market
//    closes higher over the horizon 40-60% of the time, 95%) updated with the effective counts.
//    The stated base rate is the posterior mean, its interval the Beta posterior's 95% interval.
// 3. Signal. The signal's edge over the base rate (its measured frequency minus the measured base
//    rate) is shrunk with a beta-binomial prior centred on the base rate worth PRIOR_STRENGTH = 30
//    effective outcomes (an edge beyond about +-18 points is a priori unlikely): the weight of the
//    measured edge is tau^2 / (tau^2 + v), tau^2 = p(1-p)/(PRIOR_STRENGTH + 1) the prior variance
//    and v = p(1-p)(1/n_eff - 1/n0_eff) the sampling variance of a subset's rate around the whole.
//    The interval is the 95% interval of a Beta with the posterior mean and variance (the edge's
//    and the base rate's uncertainty together).
// 4. Edge. When that interval includes the stated base rate the data do not tell the signal from
//    the base rate: `noEdge` is true and the stated probability is the base rate itself (the
//    measured frequency stays in `raw`). Otherwise the stated probability is the shrunk estimate.
// Everything stated at the last bar uses only that bar and earlier ones: an outcome of bar i
// counts once bar i + horizon has closed.
import type { CandleSeries } from './candles.ts';
import { watosHistory, watosSignals, type WatosHistory, type WatosSignal } from './watos.ts';

export const MIN_SAMPLES = 30;
/** Strength, in effective outcomes, of the Beta prior of the base rate around 1/2. */
export const BASE_PRIOR_STRENGTH = 100;
/** Strength, in effective outcomes, of the beta-binomial prior of a signal around the base rate. */
export const PRIOR_STRENGTH = 30;

export interface Proportion {
  /** The stated (calibrated) probability of a higher close; null below MIN_SAMPLES. */
  probability: number | null;
  /** The measured share of higher closes over the samples; null below MIN_SAMPLES. */
  raw: number | null;
  samples: number;
  /** Samples divided by the overlap design effect (0 when there are none). */
  effectiveSamples: number;
  /** 95% interval of the stated probability; null with the probability. */
  interval: [number, number] | null;
}

export interface SignalOdds extends Proportion {
  /** True when the interval includes the stated base rate: no measurable edge. Null without a probability. */
  noEdge: boolean | null;
  reason: string | null;
}

interface WatosOdds extends WatosSignal {
  odds: SignalOdds | null;
}

export interface WatosReport {
  horizon: number;
  /** Share of bars whose close was higher `horizon` bars later, stated and measured. */
  baseRate: Proportion;
  signals: WatosOdds[];
}

// ---- Beta distribution ---------------------------------------------------------------------

/** ln Gamma(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const shifted = x - 1;
  let sum = c[0]!;
  for (let index = 1; index < 9; index += 1) sum += c[index]! / (shifted + index);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let result = d;
  for (let m = 1; m <= 300; m += 1) {
    const m2 = 2 * m;
    let step = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + step * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + step / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    result *= d * c;
    step = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + step * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + step / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    result *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return result;
}

/** The Beta(a, b) distribution function at x (the regularized incomplete beta I_x(a, b)). */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** The `share` quantile of Beta(a, b), by bisection (to 1e-12). */
export function betaQuantile(share: number, a: number, b: number): number {
  let low = 0;
  let high = 1;
  while (high - low > 1e-12) {
    const middle = (low + high) / 2;
    if (betaCdf(middle, a, b) < share) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/** Central 95% interval of Beta(a, b). */
export function betaInterval(a: number, b: number): [number, number] {
  return [betaQuantile(0.025, a, b), betaQuantile(0.975, a, b)];
}

// ---- Measuring ----------------------------------------------------------------------------------

/** What the history says about the bars of one state: counts, and the overlap of their outcomes. */
export interface Measured {
  rises: number;
  samples: number;
  /** Overlap design effect (>= 1; 1 when there are no samples). */
  designEffect: number;
}

const correlations = new Map<number, Float64Array>();

/** Correlation of the rise indicators of bars d = 0..h-1 apart when the walk has no memory. */
function riseCorrelation(horizon: number): Float64Array {
  let table = correlations.get(horizon);
  if (!table) {
    table = Float64Array.from({ length: horizon }, (_, d) => (2 / Math.PI) * Math.asin(1 - d / horizon));
    correlations.set(horizon, table);
  }
  return table;
}

/**
 * Counts the bars before `until` in `state` (every bar when `states` is null) whose outcome is
 * known by then (bar i + horizon < until) and how many rose; nothing at or after `until` is read.
 */
export function measure(
  close: Float64Array,
  states: Int8Array | null,
  state: number,
  horizon: number,
  until = close.length,
): Measured {
  const correlation = riseCorrelation(horizon);
  const last = Math.min(until, close.length) - horizon;
  let rises = 0;
  let samples = 0;
  let overlap = 0;
  for (let index = 0; index < last; index += 1) {
    if (states && states[index] !== state) continue;
    samples += 1;
    if (close[index + horizon]! > close[index]!) rises += 1;
    let pairs = 1;
    for (let distance = 1; distance < horizon && distance <= index; distance += 1)
      if (!states || states[index - distance] === state) pairs += 2 * correlation[distance]!;
    overlap += pairs;
  }
  return { rises, samples, designEffect: samples > 0 ? overlap / samples : 1 };
}

// ---- Stating -------------------------------------------------------------------------------------

/** The stated base rate: the Beta(50, 50) prior updated with the effective counts. */
export function statedBaseRate(base: Measured): Proportion {
  if (base.samples < MIN_SAMPLES)
    return {
      probability: null,
      raw: null,
      samples: base.samples,
      effectiveSamples: base.samples / base.designEffect,
      interval: null,
    };
  const effective = base.samples / base.designEffect;
  const raw = base.rises / base.samples;
  const a = raw * effective + BASE_PRIOR_STRENGTH / 2;
  const b = (1 - raw) * effective + BASE_PRIOR_STRENGTH / 2;
  return {
    probability: a / (a + b),
    raw,
    samples: base.samples,
    effectiveSamples: effective,
    interval: betaInterval(a, b),
  };
}

/** The stated odds of one signal state, from its measurement and the base rate's (see the header). */
export function statedOdds(signal: Measured, base: Measured): SignalOdds {
  const effective = signal.samples / signal.designEffect;
  const baseRate = statedBaseRate(base);
  if (signal.samples < MIN_SAMPLES || baseRate.probability === null)
    return {
      probability: null,
      raw: null,
      samples: signal.samples,
      effectiveSamples: effective,
      interval: null,
      noEdge: null,
      reason: 'not enough history',
    };
  const level = baseRate.probability;
  const spread = level * (1 - level);
  const raw = signal.rises / signal.samples;
  const baseEffective = baseRate.effectiveSamples;
  // The signal's bars are a subset of all bars: its rate varies around the whole's by this much.
  const sampling = Math.max(spread * (1 / effective - 1 / baseEffective), 1e-9);
  const prior = spread / (PRIOR_STRENGTH + 1);
  const weight = prior / (prior + sampling);
  const estimate = Math.min(1 - 1e-6, Math.max(1e-6, level + weight * (raw - baseRate.raw!)));
  const levelVariance = spread / (BASE_PRIOR_STRENGTH + baseEffective + 1);
  const variance = levelVariance + weight * sampling;
  // A Beta with the posterior's mean and variance: its 95% interval stays inside [0, 1].
  const concentration = Math.max((estimate * (1 - estimate)) / variance - 1, 1e-6);
  const interval = betaInterval(estimate * concentration, (1 - estimate) * concentration);
  const noEdge = interval[0] <= level && level <= interval[1];
  return {
    probability: noEdge ? level : estimate,
    raw,
    samples: signal.samples,
    effectiveSamples: effective,
    interval,
    noEdge,
    reason: null,
  };
}

/** The odds of every active signal at the last bar of `series`, and the base rate. */
export function watosOdds(
  series: CandleSeries,
  horizon = 24,
  history: WatosHistory = watosHistory(series),
): WatosReport {
  const base = measure(series.close, null, 0, horizon);
  const signals = watosSignals(series, history).map((signal): WatosOdds => {
    if (!signal.active) return { ...signal, odds: null };
    const state = signal.direction === 'bullish' ? 1 : -1;
    return { ...signal, odds: statedOdds(measure(series.close, history.states[signal.id], state, horizon), base) };
  });
  return { horizon, baseRate: statedBaseRate(base), signals };
}
