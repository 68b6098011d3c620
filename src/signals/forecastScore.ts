// Scoring resolved forecasts (issue 20): the maths of the track record, pure and streaming.
// A forecast states p = P(the close is higher after the horizon); its outcome is whether it
// was. Scores:
// - Brier score: mean of (p - outcome)^2 (0 is perfect, 0.25 is a coin flip at 50%).
// - Base-rate Brier: the same for the base rate stated with it (the unconditional share of
//   rises the product measured at the time), so Brier skill = 1 - brier / baseBrier says
//   whether the signal's odds beat simply quoting the base rate (> 0) or not (< 0).
// - Reliability by decile of p: mean stated p, realised share of rises, count, and the 95%
//   Wilson interval of the realised share; a calibrated forecaster's points sit on the diagonal.
// - Hit rate per signal: the share of forecasts whose signal direction came true (bullish and
//   the close rose, bearish and it did not).
// Everything is kept as sums (ScoreSums), so 1,000,000 forecasts score in one pass in constant
// memory, and sums computed by SQL (GROUP BY signal, decile) merge into the same accumulator.

/** Reliability bins: deciles of the stated probability, [0, 0.1) .. [0.9, 1]. */

/** Wilson score interval for k successes out of n at 95% (the realised rate's interval). */
function wilsonInterval(successes: number, trials: number, z = 1.959963984540054): [number, number] {
  if (trials === 0) return [0, 1];
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

const RELIABILITY_BINS = 10;

/** A signal is flagged when its Brier skill is negative over at least this many resolved forecasts. */
export const FLAG_MIN_RESOLVED = 100;

/** The decile of a stated probability (1 falls in the last one). */
export function reliabilityBin(stated: number): number {
  return Math.min(RELIABILITY_BINS - 1, Math.max(0, Math.floor(stated * RELIABILITY_BINS)));
}

/** Additive sums of a set of resolved forecasts. */
export interface ScoreSums {
  count: number;
  /** Sum of stated probabilities. */
  stated: number;
  /** How many rose. */
  rises: number;
  /** How many went the signal's way. */
  hits: number;
  /** Sum of (stated - outcome)^2. */
  brier: number;
  /** Sum of (baseRate - outcome)^2. */
  baseBrier: number;
}

interface ReliabilityBin {
  from: number;
  to: number;
  count: number;
  /** Mean stated probability in the bin. */
  stated: number;
  /** Share of the bin's forecasts whose close rose. */
  realised: number;
  /** 95% Wilson interval of `realised`. */
  interval: [number, number];
}

interface SignalScore {
  signal: string;
  count: number;
  stated: number;
  realised: number;
  hitRate: number;
  brierSkill: number | null;
  /** Brier skill negative over at least FLAG_MIN_RESOLVED forecasts. */
  flagged: boolean;
}

export interface ScoreReport {
  count: number;
  brier: number | null;
  baseBrier: number | null;
  brierSkill: number | null;
  reliability: ReliabilityBin[];
  signals: SignalScore[];
}

export const emptySums = (): ScoreSums => ({ count: 0, stated: 0, rises: 0, hits: 0, brier: 0, baseBrier: 0 });

function addInto(target: ScoreSums, sums: ScoreSums): void {
  target.count += sums.count;
  target.stated += sums.stated;
  target.rises += sums.rises;
  target.hits += sums.hits;
  target.brier += sums.brier;
  target.baseBrier += sums.baseBrier;
}

/** 1 - brier / baseBrier, or null when there is nothing to compare (no forecasts, or a zero baseline). */
function brierSkill(brier: number, baseBrier: number): number | null {
  return baseBrier > 0 ? 1 - brier / baseBrier : null;
}

/**
 * The streaming scorer: add forecasts one at a time (or SQL's grouped sums), then read the
 * report. Memory is O(bins + signals), whatever the number of forecasts.
 */
export class ForecastScorer {
  /** Per bin: count, sum of stated, rises. */
  private readonly bins = new Float64Array(RELIABILITY_BINS * 3);
  private readonly perSignal = new Map<string, ScoreSums>();
  private readonly total = emptySums();

  private signalSums(signal: string): ScoreSums {
    let sums = this.perSignal.get(signal);
    if (!sums) {
      sums = emptySums();
      this.perSignal.set(signal, sums);
    }
    return sums;
  }

  /** One resolved forecast: stated P(rise), the base rate stated with it, the outcome, the signal's direction. */
  add(signal: string, stated: number, baseRate: number, rose: boolean, bullish: boolean): void {
    const outcome = rose ? 1 : 0;
    const error = stated - outcome;
    const baseError = baseRate - outcome;
    const hit = rose === bullish ? 1 : 0;
    const bin = reliabilityBin(stated) * 3;
    this.bins[bin]! += 1;
    this.bins[bin + 1]! += stated;
    this.bins[bin + 2]! += outcome;
    const sums = this.signalSums(signal);
    for (const target of [sums, this.total]) {
      target.count += 1;
      target.stated += stated;
      target.rises += outcome;
      target.hits += hit;
      target.brier += error * error;
      target.baseBrier += baseError * baseError;
    }
  }

  /** Sums of the forecasts of one signal in one reliability bin (as SQL's GROUP BY returns them). */
  addSums(signal: string, bin: number, sums: ScoreSums): void {
    if (!Number.isInteger(bin) || bin < 0 || bin >= RELIABILITY_BINS) throw new RangeError(`bin ${bin} out of range`);
    this.bins[bin * 3]! += sums.count;
    this.bins[bin * 3 + 1]! += sums.stated;
    this.bins[bin * 3 + 2]! += sums.rises;
    addInto(this.signalSums(signal), sums);
    addInto(this.total, sums);
  }

  get count(): number {
    return this.total.count;
  }

  report(): ScoreReport {
    const { total } = this;
    const reliability: ReliabilityBin[] = [];
    for (let bin = 0; bin < RELIABILITY_BINS; bin += 1) {
      const count = this.bins[bin * 3]!;
      if (count === 0) continue;
      const rises = this.bins[bin * 3 + 2]!;
      reliability.push({
        from: bin / RELIABILITY_BINS,
        to: (bin + 1) / RELIABILITY_BINS,
        count,
        stated: this.bins[bin * 3 + 1]! / count,
        realised: rises / count,
        interval: wilsonInterval(rises, count),
      });
    }
    const signals = [...this.perSignal]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([signal, sums]): SignalScore => {
        const skill = brierSkill(sums.brier, sums.baseBrier);
        return {
          signal,
          count: sums.count,
          stated: sums.stated / sums.count,
          realised: sums.rises / sums.count,
          hitRate: sums.hits / sums.count,
          brierSkill: skill,
          flagged: sums.count >= FLAG_MIN_RESOLVED && skill !== null && skill < 0,
        };
      });
    return {
      count: total.count,
      brier: total.count > 0 ? total.brier / total.count : null,
      baseBrier: total.count > 0 ? total.baseBrier / total.count : null,
      brierSkill: total.count > 0 ? brierSkill(total.brier, total.baseBrier) : null,
      reliability,
      signals,
    };
  }
}
