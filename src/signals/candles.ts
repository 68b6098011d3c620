// Candle series as parallel Float64Arrays (time in epoch ms, open, high, low, close,
// volume): the input of every indicator, generator and odds function. Built once from rows,
// cleaning what a feed can get wrong so nothing downstream sees NaN.
export interface CandleSeries {
  readonly length: number;
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
}

export interface CandleInput {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** A price a bar can use: finite and above zero. */
function usable(value: number): boolean {
  return Number.isFinite(value) && value > 0;
}

/**
 * Builds a series from rows. A bar with a missing or non-positive close repeats the previous
 * close (a flat gap bar); missing open/high/low fall back to the close; missing or negative
 * volume counts as zero. Bars before the first valid close are dropped.
 */
export function candleSeries(rows: ArrayLike<CandleInput>): CandleSeries {
  const capacity = rows.length;
  const time = new Float64Array(capacity);
  const open = new Float64Array(capacity);
  const high = new Float64Array(capacity);
  const low = new Float64Array(capacity);
  const close = new Float64Array(capacity);
  const volume = new Float64Array(capacity);
  let length = 0;
  let previousClose = NaN;
  for (let index = 0; index < capacity; index += 1) {
    const row = rows[index]!;
    const barClose = usable(row.close) ? row.close : previousClose;
    if (!Number.isFinite(barClose)) continue;
    const barOpen = usable(row.open) ? row.open : barClose;
    const barHigh = Math.max(usable(row.high) ? row.high : barClose, barOpen, barClose);
    const barLow = Math.min(usable(row.low) ? row.low : barClose, barOpen, barClose);
    time[length] = row.time;
    open[length] = barOpen;
    high[length] = barHigh;
    low[length] = barLow;
    close[length] = barClose;
    volume[length] = Number.isFinite(row.volume) && row.volume > 0 ? row.volume : 0;
    previousClose = barClose;
    length += 1;
  }
  return {
    length,
    time: time.subarray(0, length),
    open: open.subarray(0, length),
    high: high.subarray(0, length),
    low: low.subarray(0, length),
    close: close.subarray(0, length),
    volume: volume.subarray(0, length),
  };
}

const COLUMNS = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;

/**
 * The bars of `parts` one after another, in a series of its own: every column in one
 * allocation (6 x 8 bytes a bar), so a series kept for long (the alert engine's warm-up window
 * per symbol) costs its numbers and little more. `keepLast` keeps only the newest bars.
 */
export function joinSeries(parts: readonly CandleSeries[], keepLast = Infinity): CandleSeries {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const length = Math.max(0, Math.min(total, keepLast));
  const buffer = new Float64Array(length * COLUMNS.length);
  const columns = COLUMNS.map((_, index) => buffer.subarray(index * length, (index + 1) * length));
  let skip = total - length;
  let at = 0;
  for (const part of parts) {
    const from = Math.min(skip, part.length);
    skip -= from;
    if (from === part.length) continue;
    COLUMNS.forEach((name, index) => columns[index]!.set(part[name].subarray(from), at));
    at += part.length - from;
  }
  // COLUMNS has six names, so columns has six arrays.
  const [time, open, high, low, close, volume] = columns as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  return { length, time, open, high, low, close, volume };
}

/** The first `length` bars of `series` (a view, no copy). */
export function seriesPrefix(series: CandleSeries, length: number): CandleSeries {
  return {
    length,
    time: series.time.subarray(0, length),
    open: series.open.subarray(0, length),
    high: series.high.subarray(0, length),
    low: series.low.subarray(0, length),
    close: series.close.subarray(0, length),
    volume: series.volume.subarray(0, length),
  };
}
