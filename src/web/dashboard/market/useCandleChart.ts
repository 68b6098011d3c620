// The lightweight-charts side of the candle chart (CandleChart.tsx is its view): fetches the
// library on the first chart, makes the chart with its candle, volume and RSI panes once the
// first bars are there, draws the bars, overlays, alert markers and the trader's alert levels on
// it in place (a refresh of the same timeframe keeps the trader's zoom), reports the hovered bar
// and a clicked price, moves the forming candle with each live tick (series.update: the canvas
// alone, no re-render), and removes the chart when the symbol changes or the view unmounts.
import type {
  IChartApi,
  IPriceLine,
  ISeriesApi,
  ISeriesMarkersPluginApi,
  SeriesMarker,
  TickMarkType,
  Time,
  UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { CHUNK_FAILED_MESSAGE, loadWithin } from '../../chunkLoad.ts';
import { alertDisplayType, parseAlertTimestamp } from '../../../shared/alertDisplay.ts';
import type { ChartOverlay } from '../../../shared/schemas/chartOptions.ts';
import type { CandleResponse } from '../../../shared/schemas/market.ts';
import type { LiveTick } from '../../../shared/schemas/live.ts';
import { useLiveTickListener } from '../../live/index.ts';
import { roundPrice } from '../rules/index.ts';
import { mergeTick, type ChartCandle } from './formingCandle.ts';
import { crosshairTimeText, tickMarkText } from './chartTime.ts';
import type { alertLevels } from './chartLevels.ts';

type ChartLibrary = typeof import('lightweight-charts');

/** lightweight-charts, fetched once on the first chart and shared by every later one. */
let library: Promise<ChartLibrary> | null = null;
function loadChartLibrary(): Promise<ChartLibrary> {
  library ??= loadWithin(() => import('lightweight-charts'));
  // A failed download stays failed for the page's life (the browser keeps it): no retry here.
  return library;
}

export const RSI_PERIOD = 14;
const UP = '#22c55e';
const DOWN = '#ef4444';
const LEVEL_COLOR = '#818cf8';

const MARKER_STYLE = {
  bullish: { position: 'belowBar', shape: 'arrowUp', color: UP },
  bearish: { position: 'aboveBar', shape: 'arrowDown', color: DOWN },
  caution: { position: 'aboveBar', shape: 'circle', color: '#facc15' },
} as const;

export const OVERLAY_COLORS: Record<ChartOverlay, string> = {
  sma20: '#f59e0b',
  sma50: '#e879f9',
  ema20: '#38bdf8',
  bb20: '#94a3b8',
};

/** The chart and its series, made once per dialog; data and lines change on them in place. */
interface ChartParts {
  lib: ChartLibrary;
  chart: IChartApi;
  candles: ISeriesApi<'Candlestick'>;
  volume: ISeriesApi<'Histogram'>;
  rsi: ISeriesApi<'Line'>;
  markers: ISeriesMarkersPluginApi<Time>;
  overlays: Map<string, ISeriesApi<'Line'>>;
  levels: IPriceLine[];
}

/** A bar's time (ISO) as the chart's time: seconds since the epoch. */
export const seconds = (iso: string) => (Date.parse(iso) / 1000) as UTCTimestamp;

/** One marker per bar and kind keeps a busy hour readable; the log has every alert. */
function alertMarkers(data: CandleResponse): Array<SeriesMarker<UTCTimestamp>> {
  const size = data.granularity;
  const byBar = new Map<string, SeriesMarker<UTCTimestamp>>();
  for (const alert of data.alerts) {
    const closedAt = parseAlertTimestamp(alert.timestamp).getTime() / 1000;
    // An alert is stamped when its bar closed; mark the chart bar that contains that bar.
    const time = (Math.floor((closedAt - 1) / size) * size) as UTCTimestamp;
    const kind = alertDisplayType(alert.alert_type, alert.message);
    byBar.set(`${time}-${kind}`, { time, ...MARKER_STYLE[kind], size: 1 });
  }
  return [...byBar.values()].sort((a, b) => a.time - b.time);
}

/** A chart with its candle, volume and RSI panes, reporting the hovered bar and a clicked price. */
function makeChart(
  lib: ChartLibrary,
  host: HTMLDivElement,
  on: { onHover: (time: number | null) => void; onPick: (price: number) => void },
): ChartParts {
  const { CandlestickSeries, ColorType, createChart, createSeriesMarkers, HistogramSeries, LineSeries, LineStyle } =
    lib;
  const chart = createChart(host, {
    autoSize: true,
    layout: {
      background: { type: ColorType.Solid, color: '#111827' },
      textColor: '#d1d5db',
      panes: { separatorColor: '#374151' },
    },
    grid: { vertLines: { color: '#1f2937' }, horzLines: { color: '#1f2937' } },
    timeScale: {
      timeVisible: true,
      secondsVisible: false,
      tickMarkFormatter: (time: Time, type: TickMarkType) => tickMarkText(lib, time, type),
    },
    localization: { timeFormatter: crosshairTimeText },
  });
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    borderVisible: false,
  });
  const volume = chart.addSeries(
    HistogramSeries,
    { priceFormat: { type: 'volume' }, priceLineVisible: false, lastValueVisible: false, title: 'Volume' },
    1,
  );
  const rsi = chart.addSeries(
    LineSeries,
    { color: '#c084fc', lineWidth: 1, priceLineVisible: false, title: `RSI ${RSI_PERIOD}` },
    2,
  );
  for (const level of [70, 30])
    rsi.createPriceLine({ price: level, color: '#6b7280', lineStyle: LineStyle.Dashed, lineWidth: 1, title: '' });
  const panes = chart.panes();
  panes[0]?.setStretchFactor(4);
  panes[1]?.setStretchFactor(1);
  panes[2]?.setStretchFactor(1.3);
  const markers = createSeriesMarkers(candles, []);
  chart.subscribeCrosshairMove((param) => on.onHover(typeof param.time === 'number' ? param.time : null));
  chart.subscribeClick((param) => {
    // Only the price pane has prices to pick (the volume and RSI panes have their own scales).
    if (param.paneIndex !== undefined && param.paneIndex !== 0) return;
    const price = param.point ? candles.coordinateToPrice(param.point.y) : null;
    if (price !== null && Number.isFinite(price) && price > 0) on.onPick(roundPrice(price));
  });
  return { lib, chart, candles, volume, rsi, markers, overlays: new Map(), levels: [] };
}

export interface CandleChartState {
  /** The element the chart draws into. */
  container: RefObject<HTMLDivElement | null>;
  /** The bar under the crosshair (its time in seconds), or null for the last bar. */
  hovered: number | null;
  /** The price the trader clicked on this symbol's chart, if any. */
  picked: number | undefined;
  /** True once a chart is drawn (the library arrived). */
  drawn: boolean;
  /** Why the library could not be fetched, if it could not. */
  libraryError: string | null;
}

/**
 * The chart of `productId`'s bars (`data`: this symbol's answer, or undefined while it loads)
 * with the trader's alert `levels` as labelled lines.
 */
export function useCandleChart(
  productId: string,
  data: CandleResponse | undefined,
  levels: ReturnType<typeof alertLevels>,
): CandleChartState {
  const container = useRef<HTMLDivElement>(null);
  const parts = useRef<ChartParts | null>(null);
  // The timeframe and bar times last drawn, to keep the view across refreshes.
  const shown = useRef<{ timeframe: string; times: number[] } | null>(null);
  // The newest candle drawn (the answer's last, then as ticks moved it) and the newest tick.
  const forming = useRef<{ candle: ChartCandle | undefined; bucket: number } | null>(null);
  const lastTick = useRef<LiveTick | null>(null);
  // The price the trader clicked on the chart, for "Alert at ...".
  const [picked, setPicked] = useState<{ chart: unknown; price: number } | null>(null);
  // The bar under the crosshair (its time in seconds), or null for the last bar.
  const [hovered, setHovered] = useState<number | null>(null);
  const hasBars = data !== undefined && data.candles.length > 0;
  // Counts the charts made (each after the library arrived): the effects below draw on the newest.
  const [drawn, setDrawn] = useState(0);
  const [libraryError, setLibraryError] = useState<string | null>(null);

  // The chart itself, once the first bars and the library are there; data, overlays and lines
  // change on it.
  useEffect(() => {
    if (!hasBars) return;
    let cancelled = false;
    let made: IChartApi | null = null;
    loadChartLibrary()
      // The chart is made in a task of its own, not in the one that evaluated the library's
      // 56 kB: each alone is a short task, so the page keeps answering input while the chart
      // appears (Lighthouse's total blocking time counted the two as one long task).
      .then((lib) => new Promise<ChartLibrary>((resolve) => setTimeout(() => resolve(lib), 0)))
      .then(
        (lib) => {
          if (cancelled || !container.current) return;
          parts.current = makeChart(lib, container.current, {
            onHover: setHovered,
            onPick: (price) => setPicked({ chart: productId, price }),
          });
          made = parts.current.chart;
          shown.current = null;
          forming.current = null;
          setDrawn((count) => count + 1);
        },
        (error: unknown) => {
          if (!cancelled) setLibraryError(error instanceof Error ? error.message : CHUNK_FAILED_MESSAGE);
        },
      );
    return () => {
      cancelled = true;
      parts.current = null;
      lastTick.current = null;
      made?.remove();
    };
  }, [hasBars, productId]);

  /** Draws `tick` into the forming candle, if it is not older than the newest candle drawn. */
  function drawTick(tick: LiveTick) {
    const chart = parts.current;
    const current = forming.current;
    if (!chart || !current) return;
    const candle = mergeTick(current.candle, tick, current.bucket);
    if (!candle) return;
    const time = candle.time as UTCTimestamp;
    chart.candles.update({ time, open: candle.open, high: candle.high, low: candle.low, close: candle.close });
    chart.volume.update({
      time,
      value: candle.volume,
      color: candle.close >= candle.open ? `${UP}80` : `${DOWN}80`,
    });
    forming.current = { candle, bucket: current.bucket };
  }

  useLiveTickListener(productId, ({ tick }) => {
    lastTick.current = tick;
    drawTick(tick);
  });

  // Bars, volume, RSI, overlays and markers. The first bars of a timeframe fit the view; a
  // refresh of the same timeframe keeps the trader's zoom and scroll (following the live edge
  // when they were on it).
  useEffect(() => {
    const chart = parts.current;
    if (!chart || !data || data.candles.length === 0) return;
    const times = data.candles.map((candle) => seconds(candle.time));
    const timeScale = chart.chart.timeScale();
    const previous = shown.current && shown.current.timeframe === data.timeframe ? shown.current : null;
    const range = previous ? timeScale.getVisibleLogicalRange() : null;

    chart.candles.setData(data.candles.map((candle, index) => ({ ...candle, time: times[index]! })));
    chart.volume.setData(
      data.candles.map((candle, index) => ({
        time: times[index]!,
        value: candle.volume,
        color: candle.close >= candle.open ? `${UP}80` : `${DOWN}80`,
      })),
    );
    chart.rsi.setData(
      times.map((time, index) => {
        const value = data.rsi?.values[index];
        return value === null || value === undefined ? { time } : { time, value };
      }),
    );
    const wanted = new Set<string>();
    for (const overlay of data.overlays)
      for (const line of overlay.lines) {
        const key = `${overlay.id}:${line.name}`;
        wanted.add(key);
        let series = chart.overlays.get(key);
        if (!series) {
          const { LineSeries, LineStyle } = chart.lib;
          series = chart.chart.addSeries(LineSeries, {
            color: OVERLAY_COLORS[overlay.id],
            lineWidth: line.name === 'BB middle' ? 1 : 2,
            lineStyle: overlay.id === 'bb20' && line.name !== 'BB middle' ? LineStyle.Dashed : LineStyle.Solid,
            priceLineVisible: false,
            lastValueVisible: false,
            crosshairMarkerVisible: false,
          });
          chart.overlays.set(key, series);
        }
        // A warm-up null is a gap (whitespace), never a made-up value.
        series.setData(
          times.map((time, index) => {
            const value = line.values[index];
            return value === null || value === undefined ? { time } : { time, value };
          }),
        );
      }
    for (const [key, series] of chart.overlays)
      if (!wanted.has(key)) {
        chart.chart.removeSeries(series);
        chart.overlays.delete(key);
      }
    chart.markers.setMarkers(alertMarkers(data));

    if (!previous) timeScale.fitContent();
    else if (range) {
      // Logical indexes count from the oldest bar: bars that left the start shift the view back,
      // and on the live edge the view follows the bars that were added.
      const shift = Math.max(0, previous.times.indexOf(times[0]!));
      const atLiveEdge = range.to >= previous.times.length - 1;
      const move = atLiveEdge ? times.length - previous.times.length : -shift;
      timeScale.setVisibleLogicalRange({ from: range.from + move, to: range.to + move });
    }
    shown.current = { timeframe: data.timeframe, times };
    // The stored bars end at the last complete minute: the newest tick puts the forming candle back.
    const newest = data.candles.at(-1)!;
    forming.current = { candle: { ...newest, time: times.at(-1)! }, bucket: data.granularity };
    if (lastTick.current) drawTick(lastTick.current);
  }, [data, drawn]);

  // The trader's alert levels as labelled horizontal lines.
  useEffect(() => {
    const chart = parts.current;
    if (!chart) return;
    for (const line of chart.levels) chart.candles.removePriceLine(line);
    chart.levels = levels.map((level) =>
      chart.candles.createPriceLine({
        price: level.price,
        color: LEVEL_COLOR,
        lineStyle: chart.lib.LineStyle.Dashed,
        lineWidth: 1,
        axisLabelVisible: true,
        title: level.title,
      }),
    );
  }, [levels, drawn]);

  return {
    container,
    hovered,
    // A picked price belongs to the symbol it was picked on.
    picked: picked && picked.chart === productId ? picked.price : undefined,
    drawn: drawn > 0,
    libraryError,
  };
}
