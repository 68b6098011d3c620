// The own chart's bars and indicators: stored 1m or 1h bars bucketed into the asked timeframe
// (UTC-aligned: a 4h bar opens at 00, 04, 08 ... UTC and a 1D bar at midnight UTC), and the
// overlays and RSI the trader picked, computed with the signals engine on those buckets.
// A bucket no stored bar falls in is left out (a gap), never invented; an indicator's warm-up
// is null, never a made-up number.
import { bollinger, ema, rsi, sma } from '../../signals/indicators.ts';
import {
  CHART_OVERLAY_LABELS,
  CHART_TIMEFRAME_SPECS,
  type ChartOverlay,
  type ChartTimeframe,
  type OverlaySeries,
} from '../../shared/schemas/market.ts';
import type { StoredCandle } from './service.ts';

/**
 * Bars of `bucketMs` from finer bars (oldest first): the first open, the highest high, the
 * lowest low, the last close and the summed volume of the bars whose open time falls in each
 * UTC-aligned bucket; the bucket's source is its newest bar's.
 */
export function bucketCandles(bars: readonly StoredCandle[], bucketMs: number): StoredCandle[] {
  const buckets: StoredCandle[] = [];
  for (const bar of bars) {
    const time = Math.floor(bar.time / bucketMs) * bucketMs;
    const current = buckets.at(-1);
    if (current && current.time === time) {
      current.high = Math.max(current.high, bar.high);
      current.low = Math.min(current.low, bar.low);
      current.close = bar.close;
      current.volume += bar.volume;
      current.source = bar.source;
    } else {
      buckets.push({ ...bar, time });
    }
  }
  return buckets;
}

/** Bars before the first shown one that the overlays and RSI need to be defined from it on. */
export function warmupBars(overlays: readonly ChartOverlay[], rsiPeriod: number | undefined): number {
  const periods = overlays.map((overlay) => OVERLAY_PERIOD[overlay]);
  if (rsiPeriod !== undefined) periods.push(rsiPeriod + 1);
  return periods.length === 0 ? 0 : Math.max(...periods);
}

const OVERLAY_PERIOD: Record<ChartOverlay, number> = { sma20: 20, sma50: 50, ema20: 20, bb20: 20 };

function line(values: Float64Array): Array<number | null> {
  return Array.from(values, (value) => (Number.isFinite(value) ? value : null));
}

/** The picked overlays and the RSI of `bars`' closes, each aligned with `bars`. */
export function chartIndicators(
  bars: readonly StoredCandle[],
  overlays: readonly ChartOverlay[],
  rsiPeriod: number | undefined,
): { overlays: OverlaySeries[]; rsi: { period: number; values: Array<number | null> } | null } {
  const close = Float64Array.from(bars, (bar) => bar.close);
  return {
    overlays: overlays.map((id): OverlaySeries => {
      const label = CHART_OVERLAY_LABELS[id];
      switch (id) {
        case 'sma20':
          return { id, label, lines: [{ name: label, values: line(sma(close, 20)) }] };
        case 'sma50':
          return { id, label, lines: [{ name: label, values: line(sma(close, 50)) }] };
        case 'ema20':
          return { id, label, lines: [{ name: label, values: line(ema(close, 20)) }] };
        case 'bb20': {
          const bands = bollinger(close, 20, 2);
          return {
            id,
            label,
            lines: [
              { name: 'BB upper', values: line(bands.upper) },
              { name: 'BB middle', values: line(bands.middle) },
              { name: 'BB lower', values: line(bands.lower) },
            ],
          };
        }
      }
    }),
    rsi: rsiPeriod === undefined ? null : { period: rsiPeriod, values: line(rsi(close, rsiPeriod)) },
  };
}

export interface ChartBars {
  bars: StoredCandle[];
  overlays: OverlaySeries[];
  rsi: { period: number; values: Array<number | null> } | null;
}

/**
 * The newest `limit` bars of a timeframe with their indicators, from `history` (the newest
 * stored bars of a size, oldest first). Reads enough extra bars for the indicators' warm-up,
 * and drops the oldest bucket when the read was cut inside it (it would be a partial bar).
 */
export async function chartBars(
  history: (granularity: 60 | 3600, limit: number) => Promise<StoredCandle[]>,
  timeframe: ChartTimeframe,
  limit: number,
  overlays: readonly ChartOverlay[],
  rsiPeriod: number | undefined,
): Promise<ChartBars> {
  const spec = CHART_TIMEFRAME_SPECS[timeframe];
  const perBucket = spec.seconds / spec.from;
  const wanted = limit + warmupBars(overlays, rsiPeriod);
  const readLimit = (wanted + (perBucket > 1 ? 1 : 0)) * perBucket;
  const rows = await history(spec.from, readLimit);
  let bars = perBucket > 1 ? bucketCandles(rows, spec.seconds * 1000) : rows;
  if (perBucket > 1 && rows.length === readLimit) bars = bars.slice(1);
  const indicators = chartIndicators(bars, overlays, rsiPeriod);
  const from = Math.max(0, bars.length - limit);
  return {
    bars: bars.slice(from),
    overlays: indicators.overlays.map((overlay) => ({
      ...overlay,
      lines: overlay.lines.map((entry) => ({ ...entry, values: entry.values.slice(from) })),
    })),
    rsi: indicators.rsi && { period: indicators.rsi.period, values: indicators.rsi.values.slice(from) },
  };
}
