// The candle summary: trend, momentum, volatility and levels of a series, measured on the
// timeframes the analysis builds from the providers' candles. Pure: no I/O.
import type { WatosTimeframe } from '../../shared/schemas/chat.ts';
import type { AssetClass } from '../../shared/symbols.ts';
import { symbolById } from '../../shared/tickers.ts';
import type { CandleSeries } from '../../signals/candles.ts';
import { atr, rsi, sma, supportResistance, swingPoints, volumeZScore } from '../../signals/indicators.ts';
import { appendToBucket, type CandleRow, type Granularity, type MarketSource } from '../market/service.ts';

const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Timeframes we can build from the provider's candles, with the odds horizon in bars (about a day, an hour for minute charts). */
export const ANALYSIS_TIMEFRAMES = {
  '1m': { ms: 60_000, base: 60, horizon: 60 },
  '5m': { ms: 5 * 60_000, base: 60, horizon: 12 },
  '15m': { ms: 15 * 60_000, base: 60, horizon: 16 },
  '1h': { ms: HOUR, base: 3600, horizon: 24 },
  '4h': { ms: 4 * HOUR, base: 3600, horizon: 6 },
  '8h': { ms: 8 * HOUR, base: 3600, horizon: 3 },
  '12h': { ms: 12 * HOUR, base: 3600, horizon: 2 },
  D: { ms: DAY, base: 3600, horizon: 1 },
} as const satisfies Record<WatosTimeframe, { ms: number; base: Granularity; horizon: number }>;
export type AnalysisTimeframe = keyof typeof ANALYSIS_TIMEFRAMES;

export interface CandleSummary {
  productId: string;
  assetClass: AssetClass;
  timeframe: AnalysisTimeframe;
  source: MarketSource;
  bars: number;
  /** Open time of the first bar and close time of the last bar (ISO, UTC). */
  from: string;
  to: string;
  lastClose: number;
  /** Close-to-close change over the periods the history covers, in percent. */
  changes: Array<{ period: '24h' | '7d' | '30d'; percent: number }>;
  range24h: { high: number; low: number } | null;
  rangeAll: { high: number; low: number };
  sma: { sma20: number | null; sma50: number | null; sma200: number | null };
  /** Close against SMA 50 and 200: 'uptrend' (close > 50 > 200), 'downtrend' (close < 50 < 200), else 'mixed'. */
  trend: 'uptrend' | 'downtrend' | 'mixed' | null;
  rsi14: number | null;
  atr14: number | null;
  atrPercent: number | null;
  /** ATR(14) against its own 50-bar average. */
  atrRatio: number | null;
  volumeZ: number | null;
  support: { price: number; touches: number } | null;
  resistance: { price: number; touches: number } | null;
}

/** Candles grouped into `ms` buckets (UTC-aligned); an incomplete last bucket is dropped. */
export function aggregateCandles(rows: CandleRow[], baseMs: number, ms: number): CandleRow[] {
  if (ms === baseMs) return rows;
  const result: CandleRow[] = [];
  for (const bar of rows) appendToBucket(result, bar, ms);
  const lastBase = rows.at(-1);
  const lastBucket = result.at(-1);
  if (lastBase && lastBucket && lastBase.time + baseMs < lastBucket.time + ms) result.pop();
  return result;
}

const finite = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value : null);

export function summariseCandles(
  series: CandleSeries,
  productId: string,
  timeframe: AnalysisTimeframe,
  source: MarketSource,
): CandleSummary {
  const { ms } = ANALYSIS_TIMEFRAMES[timeframe];
  const last = series.length - 1;
  if (last < 0) throw new RangeError(`No ${timeframe} bars to summarise for ${productId}`);
  const { close, high, low, time } = series;
  // Periods are clock time, not bar counts: a stock's 24 hours hold about 7 hourly bars, a
  // crypto's 24. The reference is the last bar that opened at or before the period's start.
  const atOrBefore = (at: number) => {
    let index = last;
    while (index >= 0 && time[index]! > at) index -= 1;
    return index;
  };
  const changes: CandleSummary['changes'] = [];
  for (const [period, span] of [
    ['24h', DAY],
    ['7d', 7 * DAY],
    ['30d', 30 * DAY],
  ] as const) {
    if (span < ms) continue;
    const from = atOrBefore(time[last]! - span);
    if (from >= 0 && from < last) changes.push({ period, percent: (close[last]! / close[from]! - 1) * 100 });
  }
  const dayStart = time[last]! + ms - DAY;
  const rangeOf = (from: number) => {
    let top = -Infinity;
    let bottom = Infinity;
    for (let index = from; index <= last; index += 1) {
      top = Math.max(top, high[index]!);
      bottom = Math.min(bottom, low[index]!);
    }
    return { high: top, low: bottom };
  };
  const sma20 = finite(sma(close, 20)[last]);
  const sma50 = finite(sma(close, 50)[last]);
  const sma200 = finite(sma(close, 200)[last]);
  const price = close[last]!;
  let trend: CandleSummary['trend'] = null;
  if (sma50 !== null && sma200 !== null)
    trend = price > sma50 && sma50 > sma200 ? 'uptrend' : price < sma50 && sma50 < sma200 ? 'downtrend' : 'mixed';
  const range = atr(high, low, close, 14);
  const atr14 = finite(range[last]);
  const rangeAverage = sma(
    range.map((value) => (Number.isFinite(value) ? value : 0)),
    50,
  );
  const atrRatio = atr14 !== null && last >= 63 && rangeAverage[last]! > 0 ? atr14 / rangeAverage[last]! : null;
  let support: CandleSummary['support'] = null;
  let resistance: CandleSummary['resistance'] = null;
  if (atr14 !== null) {
    const levels = supportResistance(high, low, close, swingPoints(high, low, 3), last, 200, atr14 * 0.5);
    const nearest = (kind: 'support' | 'resistance') => levels.find((level) => level.kind === kind);
    const s = nearest('support');
    const r = nearest('resistance');
    support = s ? { price: s.price, touches: s.touches } : null;
    resistance = r ? { price: r.price, touches: r.touches } : null;
  }
  return {
    productId,
    assetClass: symbolById(productId)?.assetClass ?? 'crypto',
    timeframe,
    source,
    bars: series.length,
    from: new Date(series.time[0]!).toISOString(),
    to: new Date(series.time[last]! + ms).toISOString(),
    lastClose: price,
    changes,
    range24h: ms < DAY && time[0]! <= dayStart ? rangeOf(atOrBefore(dayStart - 1) + 1) : null,
    rangeAll: rangeOf(0),
    sma: { sma20, sma50, sma200 },
    trend,
    rsi14: finite(rsi(close, 14)[last]),
    atr14,
    atrPercent: atr14 !== null ? (atr14 / price) * 100 : null,
    atrRatio,
    volumeZ: finite(volumeZScore(series.volume, 20)[last]),
    support,
    resistance,
  };
}
