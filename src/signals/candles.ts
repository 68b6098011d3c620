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
  const length = rows.length;
  const raw = seriesOfLength(length);
  for (let index = 0; index < length; index += 1) writeBar(raw, index, rows[index]!);
  return cleanSeries(raw);
}

/** Writes `bar` as it is into the columns of a series (or a buffer shaped like one) at `at`. */
export function writeBar(columns: Omit<CandleSeries, 'length'>, at: number, bar: CandleInput): void {
  columns.time[at] = bar.time;
  columns.open[at] = bar.open;
  columns.high[at] = bar.high;
  columns.low[at] = bar.low;
  columns.close[at] = bar.close;
  columns.volume[at] = bar.volume;
}

/** A series of `length` bars, every value 0, for a reader to fill. */
export function seriesOfLength(length: number): CandleSeries {
  return {
    length,
    time: new Float64Array(length),
    open: new Float64Array(length),
    high: new Float64Array(length),
    low: new Float64Array(length),
    close: new Float64Array(length),
    volume: new Float64Array(length),
  };
}

/**
 * Cleans columns read as they were stored by candleSeries' rules, in place: the result is a view
 * of the same arrays (a bar dropped before the first valid close moves the others forward).
 * `previousClose` is the close of the bar before them, when they continue a series.
 */
export function cleanSeries(raw: CandleSeries, previousClose = NaN): CandleSeries {
  const { time, open, high, low, close, volume } = raw;
  let length = 0;
  for (let index = 0; index < raw.length; index += 1) {
    const barClose = usable(close[index]!) ? close[index]! : previousClose;
    if (!Number.isFinite(barClose)) continue;
    const barOpen = usable(open[index]!) ? open[index]! : barClose;
    const barHigh = Math.max(usable(high[index]!) ? high[index]! : barClose, barOpen, barClose);
    const barLow = Math.min(usable(low[index]!) ? low[index]! : barClose, barOpen, barClose);
    const barVolume = Number.isFinite(volume[index]!) && volume[index]! > 0 ? volume[index]! : 0;
    time[length] = time[index]!;
    open[length] = barOpen;
    high[length] = barHigh;
    low[length] = barLow;
    close[length] = barClose;
    volume[length] = barVolume;
    previousClose = barClose;
    length += 1;
  }
  return seriesPrefix(raw, length);
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

/** The bars of `series` from index `start` on (a view, no copy). */
export function seriesFrom(series: CandleSeries, start: number): CandleSeries {
  return {
    length: series.length - start,
    time: series.time.subarray(start, series.length),
    open: series.open.subarray(start, series.length),
    high: series.high.subarray(start, series.length),
    low: series.low.subarray(start, series.length),
    close: series.close.subarray(start, series.length),
    volume: series.volume.subarray(start, series.length),
  };
}
