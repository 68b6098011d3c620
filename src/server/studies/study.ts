// The setup study (issue 36, item 2), pure: over the bars of each symbol, the signals are the bars
// where all of the setup's conditions became true together (signals/scanConditions.ts), and the
// outcome of a signal at bar i is whether close[i + h] > close[i]. The odds are the product's own
// estimator (signals/watosOdds.ts: measure() with the overlap design effect, statedOdds() with
// the shrinkage toward the base rate and the 95% Beta interval, "no measurable edge" when the
// interval holds the base rate), pooled over the symbols: the counts and the overlap sums add up.
// Plus the plain outcome statistics and the equity of "enter on the signal's close, exit h bars
// later" with a round-trip fee. Runs in a worker (worker.ts) and, for the bench's peer, inline.
import type { RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { MarketSource } from '../../shared/schemas/market.ts';
import type { ScanCondition, StudyResponse } from '../../shared/schemas/scans.ts';
import type { SessionCalendarId } from '../../shared/sessions.ts';
import type { AssetClass } from '../../shared/symbolTable.ts';
import type { CandleSeries } from '../../signals/candles.ts';
import { evaluateSetup, setupSignals } from '../../signals/scanConditions.ts';
import { measure, MIN_SAMPLES, statedBaseRate, statedOdds, type Measured } from '../../signals/watosOdds.ts';

/** Equity points answered at most (a long study's curve is thinned evenly, the last point kept). */
const EQUITY_POINTS_MAX = 1500;

export interface StudySymbol {
  /** Canonical id (AAPL, BTC-USD, MES1!). */
  id: string;
  /** What the verdict calls it (AAPL, BTC, MES1!). */
  ticker: string;
  assetClass: AssetClass;
  calendar: SessionCalendarId;
  series: CandleSeries;
  /** Who produced the bars (one source a history); null when there are none. */
  source: MarketSource | null;
}

export interface StudyInput {
  symbols: StudySymbol[];
  timeframe: RuleTimeframe;
  /** Bar size in ms of the timeframe. */
  barMs: number;
  conditions: ScanCondition[];
  horizon: number;
  feePercent: number;
}

interface Trade {
  exitTime: number;
  net: number;
}

const percentText = (share: number) => `${Math.round(share * 100)}%`;
const numberText = (value: number) =>
  Number(value.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 6 });

/** A condition in words, as the moment it became true ("crossed above its EMA 20"). */
function describeCondition(condition: ScanCondition): string | null {
  switch (condition.kind) {
    case 'change':
      return `${condition.side === 'above' ? 'rose' : 'fell'} ${numberText(condition.percent)}% or more over ${condition.bars} bar${condition.bars === 1 ? '' : 's'}`;
    case 'rsi':
      return `saw RSI ${condition.period} ${condition.side === 'above' ? 'rise above' : 'fall below'} ${numberText(condition.level)}`;
    case 'ema_cross':
      return `saw EMA ${condition.fast} cross ${condition.side} EMA ${condition.slow}`;
    case 'price_vs_ema':
      return `crossed ${condition.side} its EMA ${condition.period}`;
    case 'bollinger':
      return condition.side === 'above'
        ? `closed above its upper Bollinger band (${condition.period}, ${numberText(condition.deviations)})`
        : `closed below its lower Bollinger band (${condition.period}, ${numberText(condition.deviations)})`;
    case 'volume_z':
      return `had a volume surge (z-score ${numberText(condition.threshold)} or more)`;
    case 'builtin': {
      const name = condition.alertType?.replace('AlertGenerator', '').replace(/([a-z])([A-Z])/g, '$1 $2');
      return name ? `had a ${name} alert` : 'had a built-in alert';
    }
    case 'price_range':
      if (condition.min !== undefined && condition.max !== undefined)
        return `traded between ${numberText(condition.min)} and ${numberText(condition.max)}`;
      return condition.min !== undefined
        ? `traded at ${numberText(condition.min)} or more`
        : `traded at ${numberText(condition.max!)} or less`;
    case 'session_change':
      return `was ${condition.side === 'above' ? 'up' : 'down'} ${numberText(condition.percent)}% or more on the session`;
    case 'asset_class':
      return `is ${condition.classes.join(' or ')}`;
    case 'watos_edge':
      return `had WATOS odds of a ${condition.outcome} with a measurable edge`;
  }
}

/** "AAPL", "AAPL or MSFT", "AAPL, MSFT or NVDA", "AAPL, MSFT or 3 more". */
export function symbolsText(tickers: readonly string[]): string {
  if (tickers.length <= 1) return tickers[0] ?? '';
  if (tickers.length <= 3) return `${tickers.slice(0, -1).join(', ')} or ${tickers.at(-1)}`;
  return `${tickers.slice(0, 2).join(', ')} or ${tickers.length - 2} more`;
}

/** The setup in words: the conditions joined with "and" (an asset-class filter only when it is alone). */
export function describeSetup(conditions: readonly ScanCondition[]): string {
  const filtered =
    conditions.length > 1 ? conditions.filter((condition) => condition.kind !== 'asset_class') : conditions;
  return filtered
    .map(describeCondition)
    .filter((text): text is string => text !== null)
    .join(' and ');
}

function addMeasured(total: Measured & { overlap: number }, part: Measured): void {
  total.rises += part.rises;
  total.samples += part.samples;
  total.overlap += part.designEffect * part.samples;
}

function pooled(total: Measured & { overlap: number }): Measured {
  return {
    rises: total.rises,
    samples: total.samples,
    designEffect: total.samples > 0 ? total.overlap / total.samples : 1,
  };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const mean = (values: number[]) =>
  values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null;

/** Thins a curve to at most `max` points, evenly, keeping the last. */
function thin<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const step = points.length / max;
  const kept: T[] = [];
  for (let index = 0; index < max - 1; index += 1) kept.push(points[Math.floor(index * step)]!);
  kept.push(points.at(-1)!);
  return kept;
}

export function runStudy(input: StudyInput): StudyResponse {
  const { horizon, feePercent } = input;
  const signalTotal = { rises: 0, samples: 0, designEffect: 1, overlap: 0 };
  const baseTotal = { rises: 0, samples: 0, designEffect: 1, overlap: 0 };
  const moves: number[] = [];
  const adverse: number[] = [];
  const favourable: number[] = [];
  const trades: Trade[] = [];
  const perSymbol: StudyResponse['perSymbol'] = [];
  let from = Infinity;
  let to = -Infinity;

  for (const symbol of input.symbols) {
    const { series } = symbol;
    if (series.length > 0) {
      from = Math.min(from, series.time[0]!);
      to = Math.max(to, series.time[series.length - 1]!);
    }
    const setup = evaluateSetup(input.conditions, series, {
      ticker: symbol.ticker,
      assetClass: symbol.assetClass,
      calendar: symbol.calendar,
      barMs: input.barMs,
    });
    const signals = setupSignals(setup);
    const { close, high, low } = series;
    addMeasured(signalTotal, measure(close, signals, 1, horizon));
    addMeasured(baseTotal, measure(close, null, 0, horizon));
    let count = 0;
    let inTradeUntil = -1;
    for (let index = 0; index + horizon < series.length; index += 1) {
      if (signals[index] !== 1) continue;
      count += 1;
      const entry = close[index]!;
      const exit = close[index + horizon]!;
      moves.push((exit / entry - 1) * 100);
      let worst = Infinity;
      let best = -Infinity;
      for (let bar = index + 1; bar <= index + horizon; bar += 1) {
        worst = Math.min(worst, low[bar]!);
        best = Math.max(best, high[bar]!);
      }
      adverse.push((worst / entry - 1) * 100);
      favourable.push((best / entry - 1) * 100);
      // One trade at a time per symbol: a signal while in a trade is skipped.
      if (index >= inTradeUntil) {
        trades.push({
          exitTime: series.time[index + horizon]! + input.barMs,
          net: exit / entry - 1 - feePercent / 100,
        });
        inTradeUntil = index + horizon;
      }
    }
    perSymbol.push({ symbol: symbol.id, signals: count, source: symbol.source });
  }

  const signalMeasured = pooled(signalTotal);
  const baseMeasured = pooled(baseTotal);
  const odds = statedOdds(signalMeasured, baseMeasured);
  const base = statedBaseRate(baseMeasured);
  const baseRate = base.probability ?? (baseMeasured.samples > 0 ? baseMeasured.rises / baseMeasured.samples : 0.5);
  const raw = signalMeasured.samples > 0 ? signalMeasured.rises / signalMeasured.samples : null;
  const rose =
    odds.probability !== null && odds.interval
      ? { share: odds.probability, low: odds.interval[0], high: odds.interval[1] }
      : // Below MIN_SAMPLES the estimator states nothing: the measured share, and no interval to speak of.
        { share: raw ?? baseRate, low: 0, high: 1 };
  const edge = odds.noEdge === false;

  // Trades of several symbols may overlap in time: the curve compounds each trade's net return in
  // the order the trades closed, as if each took the whole account (a measure of the setup, not a
  // portfolio simulation).
  trades.sort((a, b) => a.exitTime - b.exitTime);
  let equity = 1;
  const curve = trades.map((trade) => {
    equity *= 1 + trade.net;
    return { time: new Date(trade.exitTime).toISOString(), equity };
  });

  const tickers = input.symbols.map((symbol) => symbol.ticker);
  const subject = `When ${symbolsText(tickers)} ${describeSetup(input.conditions)} on ${input.timeframe}`;
  const later = `${horizon} bar${horizon === 1 ? '' : 's'} later`;
  let verdict: string;
  if (raw === null) {
    verdict = `${subject}: the setup never occurred with ${later} stored (${perSymbol.length === 1 ? 'its' : 'their'} stored history has no such signal); base rate ${percentText(baseRate)}`;
  } else if (odds.probability === null || !odds.interval) {
    verdict = `${subject}, it closed higher ${later} ${percentText(raw)} of the time (n=${signalMeasured.samples}); base rate ${percentText(baseRate)}: too few signals to measure (at least ${MIN_SAMPLES} needed)`;
  } else {
    const [low, high] = odds.interval;
    const tail = !edge
      ? 'no measurable edge'
      : raw > baseRate
        ? 'a measurable edge (higher closes more often than usual)'
        : 'a measurable edge (higher closes less often than usual)';
    verdict = `${subject}, it closed higher ${later} ${percentText(raw)} of the time (n=${signalMeasured.samples}, 95% ${Math.round(low * 100)}-${percentText(high)}); base rate ${percentText(baseRate)}: ${tail}`;
  }

  return {
    symbols: input.symbols.map((symbol) => symbol.id),
    timeframe: input.timeframe,
    horizon,
    from: Number.isFinite(from) ? new Date(from).toISOString() : null,
    to: Number.isFinite(to) ? new Date(to).toISOString() : null,
    signals: signalMeasured.samples,
    effectiveSamples: signalMeasured.samples / signalMeasured.designEffect,
    rose,
    baseRate,
    edge,
    verdict,
    outcomes: {
      hitRate: raw,
      averageMovePercent: mean(moves),
      medianMovePercent: median(moves),
      adverseExcursionPercent: mean(adverse),
      favourableExcursionPercent: mean(favourable),
    },
    equity: thin(curve, EQUITY_POINTS_MAX),
    trades: trades.length,
    perSymbol,
  };
}
