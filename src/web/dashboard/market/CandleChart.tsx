// The candlestick chart of one asset (lightweight-charts), opened from a price card, the alerts
// panel's and the chart watchlist's "Chart" buttons, the chart area's symbol picker or as the
// fallback of a third-party chart, for any symbol of the table (crypto, stocks, ETFs, indices,
// futures). Timeframes 1m to 1D, a volume pane, the overlays the trader picks (SMA, EMA,
// Bollinger) and an RSI(14) pane, all computed on the server; the trader's active alert levels
// as labelled lines; the alerts that fired as markers on their bars (green up-arrows bullish,
// red down-arrows bearish, yellow circles caution); a legend with the hovered (else the last)
// bar's O H L C V. The newest bars are re-read every 30 s and when an alert on the symbol
// arrives on the live stream, without moving the trader's zoom.
// Demo bars are labelled "Demo data" and Yahoo Finance bars "Delayed". A click on the price pane
// picks a price; "Alert at ..." opens the alert-rule form with a price-cross at that price.
// The chart library (about a third of the dashboard's code) is fetched the first time a chart
// is drawn, not with the page: the header and controls show at once, the canvas and its legend
// once the library is there (docs/performance.md).
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
import { useEffect, useMemo, useRef, useState } from 'react';
import { CHUNK_FAILED_MESSAGE, loadWithin } from '../../chunkLoad.ts';
import { alertDisplayType, parseAlertTimestamp } from '../../../shared/alertDisplay.ts';
import { compactNumber, formatPrice } from '../../../shared/format.ts';
import { crosshairTimeText, tickMarkText } from './chartTime.ts';
import {
  CHART_OVERLAY_LABELS,
  CHART_OVERLAYS,
  CHART_TIMEFRAMES,
  type ChartOverlay,
  type ChartTimeframe,
} from '../../../shared/schemas/chartOptions.ts';
import type { CandleResponse } from '../../../shared/schemas/market.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { BellIcon, useRuleEditor, roundPrice, useActiveRules } from '../rules/index.ts';
import { ASSET_CLASS_LABELS } from '../../ui/assetClasses.ts';
import { alertLevels } from './chartLevels.ts';
import { DELAYED_TITLE, isDelayedSource, useCandles, useRefetchOnAlert } from './marketApi.ts';

type ChartLibrary = typeof import('lightweight-charts');

/** lightweight-charts, fetched once on the first chart and shared by every later one. */
let library: Promise<ChartLibrary> | null = null;
function loadChartLibrary(): Promise<ChartLibrary> {
  library ??= loadWithin(() => import('lightweight-charts'));
  // A failed download stays failed for the page's life (the browser keeps it): no retry here.
  return library;
}

const RSI_PERIOD = 14;
const UP = '#22c55e';
const DOWN = '#ef4444';
const LEVEL_COLOR = '#818cf8';

const MARKER_STYLE = {
  bullish: { position: 'belowBar', shape: 'arrowUp', color: UP },
  bearish: { position: 'aboveBar', shape: 'arrowDown', color: DOWN },
  caution: { position: 'aboveBar', shape: 'circle', color: '#facc15' },
} as const;

const OVERLAY_COLORS: Record<ChartOverlay, string> = {
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

const seconds = (iso: string) => (Date.parse(iso) / 1000) as UTCTimestamp;

const formatVolume = compactNumber;

function formatValue(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? '–' : value.toFixed(digits);
}

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

function ToggleButton({ pressed, onClick, children }: { pressed: boolean; onClick: () => void; children: string }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={`rounded px-2 py-1 text-xs ${pressed ? 'bg-indigo-600 text-white' : 'bg-gray-800 text-gray-300 hover:text-white'}`}
    >
      {children}
    </button>
  );
}

export function CandleChart({
  productId,
  onClose,
}: {
  /** The symbol table's canonical id (BTC-USD, AAPL, SPX, MES1!); any form the table resolves works. */
  productId: string;
  onClose: () => void;
}) {
  const [timeframe, setTimeframe] = useState<ChartTimeframe>('1h');
  const [overlays, setOverlays] = useState<ChartOverlay[]>(['sma20']);
  const container = useRef<HTMLDivElement>(null);
  const parts = useRef<ChartParts | null>(null);
  // The timeframe and bar times last drawn, to keep the view across refreshes.
  const shown = useRef<{ timeframe: string; times: number[] } | null>(null);
  const query = useCandles(productId, timeframe, overlays, RSI_PERIOD);
  useRefetchOnAlert(productId, query.refetch);
  // While another symbol's or timeframe's bars load, the previous answer is not this chart's.
  const market = resolveSymbol(productId);
  const symbolId = market?.id ?? productId;
  const data = query.data && query.data.symbol === symbolId ? query.data : undefined;
  const ruleEditor = useRuleEditor();
  const activeRules = useActiveRules();
  const levels = useMemo(() => alertLevels(activeRules.data, symbolId), [activeRules.data, symbolId]);
  // The price the trader clicked on the chart, for "Alert at ...".
  const [picked, setPicked] = useState<{ chart: unknown; price: number } | null>(null);
  // The bar under the crosshair (its time in seconds), or null for the last bar.
  const [hovered, setHovered] = useState<number | null>(null);
  const lastClose = data?.candles.at(-1)?.close;
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
          setDrawn((count) => count + 1);
        },
        (error: unknown) => {
          if (!cancelled) setLibraryError(error instanceof Error ? error.message : CHUNK_FAILED_MESSAGE);
        },
      );
    return () => {
      cancelled = true;
      parts.current = null;
      made?.remove();
    };
  }, [hasBars, productId]);

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

    chart.candles.setData(data.candles.map((candle, index) => ({ ...candle, time: times[index] })));
    chart.volume.setData(
      data.candles.map((candle, index) => ({
        time: times[index],
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
      const shift = Math.max(0, previous.times.indexOf(times[0]));
      const atLiveEdge = range.to >= previous.times.length - 1;
      const move = atLiveEdge ? times.length - previous.times.length : -shift;
      timeScale.setVisibleLogicalRange({ from: range.from + move, to: range.to + move });
    }
    shown.current = { timeframe: data.timeframe, times };
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

  // A picked price belongs to the symbol it was picked on.
  const clicked = picked && picked.chart === productId ? picked.price : undefined;
  const alertPrice = clicked ?? (lastClose === undefined ? undefined : roundPrice(lastClose));

  const legendIndex = useMemo(() => {
    if (!data || data.candles.length === 0) return -1;
    if (hovered === null) return data.candles.length - 1;
    const index = data.candles.findIndex((candle) => seconds(candle.time) === hovered);
    return index < 0 ? data.candles.length - 1 : index;
  }, [data, hovered]);
  // The legend reads the drawn chart's bars (the hovered one): it comes with the canvas.
  const legendBar = data && legendIndex >= 0 && drawn > 0 ? data.candles[legendIndex] : undefined;

  // Escape closes the chart, like its 'Close chart' button, when focus is inside it or on
  // nothing (the chart-icon button that opened it may have left the page) and it is on screen;
  // focus goes back to what opened it (an exchange card) when that is still on the page.
  const panel = useRef<HTMLDivElement>(null);
  const latestClose = useRef(onClose);
  useEffect(() => {
    latestClose.current = onClose;
  });
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const onKeyDown = (event: KeyboardEvent) => {
      const dialog = panel.current;
      if (event.key !== 'Escape' || event.defaultPrevented || !dialog) return;
      if (document.querySelector('[aria-modal="true"]')) return;
      const focus = document.activeElement;
      const onNothing = (focus === null || focus === document.body) && dialog.getClientRects().length > 0;
      if (!dialog.contains(focus) && !onNothing) return;
      event.preventDefault();
      latestClose.current();
      if (opener?.isConnected && opener !== document.body) opener.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  function toggleOverlay(overlay: ChartOverlay) {
    setOverlays((current) =>
      current.includes(overlay)
        ? current.filter((entry) => entry !== overlay)
        : CHART_OVERLAYS.filter((entry) => entry === overlay || current.includes(entry)),
    );
  }

  return (
    <div
      role="dialog"
      aria-label={`${productId} chart`}
      ref={panel}
      className="absolute inset-0 z-20 flex min-w-0 flex-col overflow-x-hidden overflow-y-auto rounded-lg bg-gray-900 p-2 sm:p-3"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        {/* h2: the chart is a section of the dashboard (under its h1), not of a panel heading. */}
        <h2 className="text-lg font-bold text-white">{productId}</h2>
        {market && (
          <span className="text-xs text-gray-400" data-testid="chart-market">
            {market.name} · {ASSET_CLASS_LABELS[market.assetClass]}
          </span>
        )}
        {data?.source === 'demo' && (
          <span className="rounded bg-amber-500 px-2 py-0.5 text-xs font-bold text-gray-900">Demo data</span>
        )}
        {isDelayedSource(data?.source) && (
          <span className="rounded bg-sky-300 px-2 py-0.5 text-xs font-bold text-gray-900" title={DELAYED_TITLE}>
            Delayed
          </span>
        )}
        <span className="text-xs text-gray-400">{data ? `${data.alerts.length} alerts marked` : ''}</span>
        {ruleEditor && alertPrice !== undefined && (
          <button
            type="button"
            title={
              clicked
                ? 'Create an alert rule when the price crosses this level'
                : 'Create an alert rule at the last close (click the chart to pick another price)'
            }
            onClick={() => ruleEditor.open({ prefill: { symbol: productId, level: alertPrice } })}
            className="flex items-center gap-1 rounded border border-indigo-500 px-2 py-1 text-xs text-indigo-200 hover:bg-indigo-900/50"
          >
            <BellIcon />
            Alert at {formatPrice(alertPrice)}
          </button>
        )}
        <button
          type="button"
          onClick={onClose}
          className="ml-auto rounded border border-gray-600 px-3 py-1 text-sm text-gray-200 hover:bg-gray-800"
        >
          Close chart
        </button>
      </div>
      <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1">
        <div className="flex flex-wrap gap-1" role="group" aria-label="Timeframe">
          {CHART_TIMEFRAMES.map((option) => (
            <ToggleButton key={option} pressed={timeframe === option} onClick={() => setTimeframe(option)}>
              {option}
            </ToggleButton>
          ))}
        </div>
        <div className="flex flex-wrap gap-1" role="group" aria-label="Overlays">
          {CHART_OVERLAYS.map((overlay) => (
            <ToggleButton key={overlay} pressed={overlays.includes(overlay)} onClick={() => toggleOverlay(overlay)}>
              {CHART_OVERLAY_LABELS[overlay]}
            </ToggleButton>
          ))}
        </div>
      </div>
      {legendBar && (
        <p className="mt-1 flex flex-wrap gap-x-3 font-mono text-[11px] text-gray-300" data-testid="chart-legend">
          <span className="text-gray-400">
            {new Date(legendBar.time).toISOString().slice(0, 16).replace('T', ' ')} UTC
          </span>
          <span>O {formatPrice(legendBar.open)}</span>
          <span>H {formatPrice(legendBar.high)}</span>
          <span>L {formatPrice(legendBar.low)}</span>
          <span>C {formatPrice(legendBar.close)}</span>
          <span>V {formatVolume(legendBar.volume)}</span>
          {data?.overlays.map((overlay) =>
            overlay.lines.map((line) => (
              <span key={`${overlay.id}-${line.name}`} style={{ color: OVERLAY_COLORS[overlay.id] }}>
                {line.name} {formatValue(line.values[legendIndex])}
              </span>
            )),
          )}
          {data?.rsi && (
            <span className="text-purple-300">
              RSI {data.rsi.period} {formatValue(data.rsi.values[legendIndex])}
            </span>
          )}
        </p>
      )}
      {levels.length > 0 && (
        <ul
          className="mt-1 flex flex-wrap gap-x-3 text-[11px] text-indigo-200"
          aria-label="Your alert levels"
          data-testid="chart-alert-levels"
        >
          {levels.map((level) => (
            <li key={level.key}>
              {level.title}: {formatPrice(level.price)}
            </li>
          ))}
        </ul>
      )}
      {query.isPending && <p className="mt-4 text-gray-400">Loading...</p>}
      {query.isError && !data && (
        <p className="mt-4 text-red-300">The chart could not be loaded: {query.error.message}</p>
      )}
      {libraryError && (
        <p role="alert" className="mt-4 text-red-300">
          The chart could not be drawn: {libraryError}{' '}
          <button type="button" className="underline" onClick={() => window.location.reload()}>
            Reload
          </button>
        </p>
      )}
      {data && data.candles.length === 0 && (
        <p className="mt-4 text-gray-400">
          No candles stored for {productId} yet; the alert engine is still filling the history.
        </p>
      )}
      <div
        ref={container}
        className="relative mt-2 h-[min(55vh,420px)] w-full min-w-0 shrink-0 overflow-hidden sm:h-[min(60vh,560px)]"
        data-testid="candle-chart"
        role="figure"
        aria-label={`${productId} ${timeframe} candles with volume and RSI ${RSI_PERIOD} panes`}
      />
    </div>
  );
}
