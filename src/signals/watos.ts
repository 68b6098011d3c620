// WATOS ("What Are The Odds?"): the six signals of docs/SPEC.md section 9 computed from candles.
// Every signal has a state at every bar (+1 bullish, -1 bearish, 0 inactive) so the odds can
// be measured over history, plus a strength from the data and a one-line description that
// states the measured value.
//
// - watos1 Volume Surge: volume z-score over the previous 20 bars >= 2 (3 medium, 4 high);
//   direction of the bar's body.
// - watos2 Price Momentum: 10-bar change in units of typical movement (ATR% x sqrt 10) >= 1
//   (1.5 medium, 2.5 high); direction of the change.
// - watos3 MA Crossover: SMA 50 crossed SMA 200 within the last 20 bars; strength by the gap
//   in ATRs (1 medium, 2 high); golden cross bullish, death cross bearish.
// - watos4 RSI Divergence: the last two confirmed swing lows (highs) show price lower (higher)
//   but RSI(14) higher (lower), the latest within 10 bars; strength by the RSI gap (5, 10).
// - watos5 Support Test: the bar's low came within 0.5 ATR of a level below the close formed by
//   swing points of the last 100 bars (the bar held above it); strength by earlier touches (2, 3).
// - watos6 Volatility Expansion: ATR(14) at least 1.3x its 50-bar average (1.6 medium, 2 high);
//   direction of the 14-bar change.
import { WATOS_SIGNALS, type WatosSignalDefinition, type WatosStrength } from '../shared/constants.ts';
import type { CandleSeries } from './candles.ts';
import { atr, roc, rsi, sma, supportResistance, swingPoints, volumeZScore } from './indicators.ts';

export type WatosId = WatosSignalDefinition['id'];

export interface WatosHistory {
  /** Per signal: +1 bullish, -1 bearish, 0 inactive, for every bar. */
  states: Record<WatosId, Int8Array>;
  /** Per signal: the measured value behind the state, for every bar (NaN when unknown). */
  values: Record<WatosId, Float64Array>;
}

export interface WatosSignal {
  id: WatosId;
  name: string;
  active: boolean;
  direction: 'bullish' | 'bearish' | 'neutral';
  strength: WatosStrength;
  value: number | null;
  description: string;
}

const SWING_STRENGTH = 3;

function strengthOf(value: number, medium: number, high: number): WatosStrength {
  return value >= high ? 'high' : value >= medium ? 'medium' : 'low';
}

function fmt(value: number, decimals = 1): string {
  return value.toFixed(decimals);
}

/** Computes every signal's state and value at every bar. */
export function watosHistory(series: CandleSeries): WatosHistory {
  const { length, open, high, low, close, volume } = series;
  const make = () => new Int8Array(length);
  const values = () => new Float64Array(length).fill(NaN);
  const states = { watos1: make(), watos2: make(), watos3: make(), watos4: make(), watos5: make(), watos6: make() };
  const measured = {
    watos1: values(),
    watos2: values(),
    watos3: values(),
    watos4: values(),
    watos5: values(),
    watos6: values(),
  };

  const volumeZ = volumeZScore(volume, 20);
  const change10 = roc(close, 10);
  const range14 = atr(high, low, close, 14);
  const fast = sma(close, 50);
  const slow = sma(close, 200);
  const rsi14 = rsi(close, 14);
  const rangeAverage = sma(
    range14.map((value) => (Number.isFinite(value) ? value : 0)),
    50,
  );
  const swings = swingPoints(high, low, SWING_STRENGTH);

  let lastCross = -Infinity;
  let crossSide = 0;
  const lows: number[] = [];
  const highs: number[] = [];

  for (let index = 0; index < length; index += 1) {
    const typical = range14[index]!;

    // watos1 Volume Surge (the z-score is kept without a surge too: the inactive tile states it)
    if (Number.isFinite(volumeZ[index])) measured.watos1[index] = volumeZ[index]!;
    if (volumeZ[index]! >= 2) states.watos1[index] = close[index]! >= open[index]! ? 1 : -1;

    // watos2 Price Momentum
    if (Number.isFinite(change10[index]) && typical > 0) {
      const units = change10[index]! / ((typical / close[index]!) * 100 * Math.sqrt(10));
      measured.watos2[index] = units;
      if (Math.abs(units) >= 1) states.watos2[index] = units > 0 ? 1 : -1;
    }

    // watos3 MA Crossover 50/200
    if (Number.isFinite(slow[index]) && Number.isFinite(slow[index - 1])) {
      const side = Math.sign(fast[index]! - slow[index]!);
      const before = Math.sign(fast[index - 1]! - slow[index - 1]!);
      if (side !== 0 && side !== before) {
        lastCross = index;
        crossSide = side;
      }
      if (index - lastCross <= 20 && crossSide === side && typical > 0) {
        states.watos3[index] = side;
        measured.watos3[index] = Math.abs(fast[index]! - slow[index]!) / typical;
      }
    }

    // watos4 RSI Divergence: swings become known SWING_STRENGTH bars after they form.
    const confirmed = index - SWING_STRENGTH;
    if (confirmed >= 0 && swings[confirmed] !== 0 && Number.isFinite(rsi14[confirmed]))
      (swings[confirmed] === -1 ? lows : highs).push(confirmed);
    if (lows.length >= 2) {
      const previous = lows[lows.length - 2]!;
      const latest = lows[lows.length - 1]!;
      if (index - latest <= 10 && low[latest]! < low[previous]! && rsi14[latest]! > rsi14[previous]!) {
        states.watos4[index] = 1;
        measured.watos4[index] = rsi14[latest]! - rsi14[previous]!;
      }
    }
    if (highs.length >= 2 && states.watos4[index] === 0) {
      const previous = highs[highs.length - 2]!;
      const latest = highs[highs.length - 1]!;
      if (index - latest <= 10 && high[latest]! > high[previous]! && rsi14[latest]! < rsi14[previous]!) {
        states.watos4[index] = -1;
        measured.watos4[index] = rsi14[previous]! - rsi14[latest]!;
      }
    }

    // watos5 Support Test: levels from swings known before this bar.
    if (typical > 0 && index > SWING_STRENGTH) {
      const levels = supportResistance(high, low, close, swings, index - SWING_STRENGTH - 1, 100, typical * 0.5);
      const support = levels
        .filter((level) => level.price < close[index]!)
        .reduce<(typeof levels)[number] | null>(
          (nearest, level) =>
            !nearest || Math.abs(low[index]! - level.price) < Math.abs(low[index]! - nearest.price) ? level : nearest,
          null,
        );
      if (support && Math.abs(low[index]! - support.price) <= typical * 0.5) {
        states.watos5[index] = 1;
        measured.watos5[index] = support.touches;
      }
    }

    // watos6 Volatility Expansion
    if (rangeAverage[index]! > 0 && index >= 63) {
      const ratio = typical / rangeAverage[index]!;
      measured.watos6[index] = ratio;
      if (ratio >= 1.3) states.watos6[index] = close[index]! >= close[index - 14]! ? 1 : -1;
    }
  }
  return { states, values: measured };
}

function describe(
  id: WatosId,
  series: CandleSeries,
  history: WatosHistory,
  index: number,
): { strength: WatosStrength; description: string } {
  const value = history.values[id][index]!;
  const state = history.states[id][index]!;
  switch (id) {
    case 'watos1':
      return {
        strength: strengthOf(value, 3, 4),
        description: `Volume ${fmt(value)}σ above its 20-bar average on a ${state > 0 ? 'rising' : 'falling'} bar`,
      };
    case 'watos2': {
      const change = roc(series.close.subarray(index - 10, index + 1), 10)[10]!;
      return {
        strength: strengthOf(Math.abs(value), 1.5, 2.5),
        description: `10-bar change ${change >= 0 ? '+' : ''}${fmt(change, 2)}%, ${fmt(Math.abs(value))}x its typical move`,
      };
    }
    case 'watos3':
      return {
        strength: strengthOf(value, 1, 2),
        description: `50-bar SMA ${state > 0 ? 'above' : 'below'} the 200-bar SMA after a recent ${state > 0 ? 'golden' : 'death'} cross (gap ${fmt(value)} ATR)`,
      };
    case 'watos4':
      return {
        strength: strengthOf(value, 5, 10),
        description: `${state > 0 ? 'Bullish' : 'Bearish'} divergence: price made a ${state > 0 ? 'lower low' : 'higher high'} while RSI moved ${fmt(value)} points the other way`,
      };
    case 'watos5':
      return {
        strength: strengthOf(value, 2, 3),
        description: `Low tested a support level with ${value} swing touch${value === 1 ? '' : 'es'} and the bar closed above it`,
      };
    case 'watos6':
      return {
        strength: strengthOf(value, 1.6, 2),
        description: `Average true range ${fmt(value, 2)}x its 50-bar average`,
      };
  }
}

const INACTIVE_TEXT: Record<WatosId, (value: number) => string> = {
  watos1: (value) =>
    Number.isFinite(value)
      ? `Volume ${fmt(value)}σ from its 20-bar average: no surge`
      : 'Not enough bars to measure volume',
  watos2: (value) =>
    Number.isFinite(value)
      ? `10-bar move ${fmt(Math.abs(value))}x its typical size: no momentum signal`
      : 'Not enough bars to measure momentum',
  watos3: () => 'No 50/200 moving-average cross in the last 20 bars',
  watos4: () => 'No RSI divergence at the latest swing points',
  watos5: () => 'Price is not testing a support level',
  watos6: (value) =>
    Number.isFinite(value)
      ? `Average true range ${fmt(value, 2)}x its 50-bar average: no expansion`
      : 'Not enough bars to measure volatility',
};

/** The six signals at the last bar of the series. */
export function watosSignals(series: CandleSeries, history: WatosHistory = watosHistory(series)): WatosSignal[] {
  const index = series.length - 1;
  return WATOS_SIGNALS.map((definition) => {
    const state = index >= 0 ? history.states[definition.id][index]! : 0;
    const value = index >= 0 ? history.values[definition.id][index]! : NaN;
    if (state === 0) {
      return {
        id: definition.id,
        name: definition.name,
        active: false,
        direction: 'neutral',
        strength: 'low',
        value: Number.isFinite(value) ? value : null,
        description: INACTIVE_TEXT[definition.id](value),
      };
    }
    const { strength, description } = describe(definition.id, series, history, index);
    return {
      id: definition.id,
      name: definition.name,
      active: true,
      direction: state > 0 ? 'bullish' : 'bearish',
      strength,
      value,
      description,
    };
  });
}
