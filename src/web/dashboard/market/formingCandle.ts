// The own chart's forming candle (issue 34, item 3): a live tick merged into the newest candle of
// the chart's timeframe. The tick's forming one-minute bar is the minute as the feed built it
// (its high and low include the trades coalesced away between two ticks); a larger bucket takes
// its high and low in, closes at the price, and a tick in a new bucket starts a new candle with
// the forming bar's open. Pure: the chart hook (useCandleChart.ts) draws the result with
// lightweight-charts' `series.update`.
import type { LiveTick } from '../../../shared/schemas/live.ts';

/** A candle as the chart draws it: time in seconds since the epoch (the bucket's start). */
export interface ChartCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** The bucket's volume as far as known (the stored bars'; a 1m bucket takes the forming bar's). */
  volume: number;
}

/**
 * The newest candle after `tick`, given the chart's newest candle `last` and its bucket length
 * in seconds (60 for 1m ... 86,400 for 1D, UTC-aligned like the server's buckets); null when the
 * tick is older than `last` (a chart cannot rewrite an earlier bar).
 */
export function mergeTick(last: ChartCandle | undefined, tick: LiveTick, bucketSeconds: number): ChartCandle | null {
  const bar = tick.bar;
  const at = (bar ? bar[0] : tick.time) / 1000;
  const time = Math.floor(at / bucketSeconds) * bucketSeconds;
  if (last && time < last.time) return null;
  const high = bar ? Math.max(bar[2], tick.price) : tick.price;
  const low = bar ? Math.min(bar[3], tick.price) : tick.price;
  // A one-minute chart's candle is the forming bar itself.
  if (bar && bucketSeconds === 60) return { time, open: bar[1], high, low, close: tick.price, volume: bar[5] };
  if (!last || time > last.time)
    return { time, open: bar ? bar[1] : tick.price, high, low, close: tick.price, volume: bar ? bar[5] : 0 };
  return {
    time,
    open: last.open,
    high: Math.max(last.high, high),
    low: Math.min(last.low, low),
    close: tick.price,
    volume: last.volume,
  };
}
