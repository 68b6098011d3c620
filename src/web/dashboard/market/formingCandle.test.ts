// The own chart's forming candle (issue 34, item 3): a 1m chart draws the tick's forming bar; a
// larger bucket widens its high and low and closes at the price; a tick in a new bucket starts a
// candle with the forming bar's open; an older tick changes nothing.
import { describe, expect, it } from 'vitest';
import type { LiveTick } from '../../../shared/schemas/live.ts';
import { mergeTick, type ChartCandle } from './formingCandle.ts';

const HOUR = Date.parse('2026-11-25T15:00:00Z');
const sec = (ms: number) => ms / 1000;

function tick(price: number, time: number, bar: LiveTick['bar'] = null): LiveTick {
  return { symbol: 'BTC-USD', price, time, source: 'coinbase', delayMinutes: 0, bar };
}

/** The 15:00 hour as stored: 15:00 to 15:41 complete. */
const STORED_HOUR: ChartCandle = { time: sec(HOUR), open: 100, high: 104, low: 98, close: 103, volume: 50 };

describe('mergeTick', () => {
  it('draws the forming one-minute bar itself on a 1m chart', () => {
    const minute = HOUR + 42 * 60_000;
    const last: ChartCandle = { time: sec(minute - 60_000), open: 102, high: 103, low: 101, close: 103, volume: 2 };
    expect(mergeTick(last, tick(103.5, minute + 20_000, [minute, 103, 104.5, 102.5, 103.5, 1.25]), 60)).toEqual({
      time: sec(minute),
      open: 103,
      high: 104.5,
      low: 102.5,
      close: 103.5,
      volume: 1.25,
    });
  });

  it('merges a tick into the current bucket of a larger timeframe', () => {
    const minute = HOUR + 42 * 60_000;
    // The forming bar went above the stored high between two ticks: the candle shows it.
    expect(mergeTick(STORED_HOUR, tick(103.2, minute + 5000, [minute, 103, 105, 102.9, 103.2, 3]), 3600)).toEqual({
      time: sec(HOUR),
      open: 100,
      high: 105,
      low: 98,
      close: 103.2,
      volume: 50,
    });
    // Without a forming bar, the price alone.
    expect(mergeTick(STORED_HOUR, tick(97, minute + 5000), 3600)).toEqual({
      ...STORED_HOUR,
      low: 97,
      close: 97,
    });
  });

  it('starts a new candle with the forming bar’s open in a new bucket', () => {
    const next = HOUR + 3_600_000;
    expect(mergeTick(STORED_HOUR, tick(103.8, next + 4000, [next, 103.4, 103.9, 103.3, 103.8, 0.5]), 3600)).toEqual({
      time: sec(next),
      open: 103.4,
      high: 103.9,
      low: 103.3,
      close: 103.8,
      volume: 0.5,
    });
    // 4h buckets are UTC-aligned: 15:42 belongs to the 12:00 candle.
    expect(mergeTick(undefined, tick(101, HOUR + 42 * 60_000), 14_400)?.time).toBe(
      sec(Date.parse('2026-11-25T12:00:00Z')),
    );
  });

  it('ignores a tick older than the newest candle (the chart cannot rewrite it)', () => {
    expect(mergeTick(STORED_HOUR, tick(99, HOUR - 1000), 3600)).toBeNull();
  });
});
