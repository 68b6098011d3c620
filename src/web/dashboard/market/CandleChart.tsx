// The candlestick chart of one asset (lightweight-charts), opened from a price card, the alerts
// panel's and the chart watchlist's "Chart" buttons, the chart area's symbol picker or as the
// fallback of a third-party chart, for any symbol of the table (crypto, stocks, ETFs, indices,
// futures). Timeframes 1m to 1D, a volume pane, the overlays the trader picks (SMA, EMA,
// Bollinger) and an RSI(14) pane, all computed on the server; the trader's active alert levels
// as labelled lines; the alerts that fired as markers on their bars (green up-arrows bullish,
// red down-arrows bearish, yellow circles caution); a legend with the hovered (else the last)
// bar's O H L C V. The forming candle moves with each tick of the tab's live connection; the
// stored bars are re-read every minute and when an alert on the symbol arrives on it, without
// moving the trader's zoom. Demo bars are labelled "Demo data" and Yahoo Finance bars "Delayed"
// ("Delayed 15 min" once ticks say by how much); a live price is labelled Live, or Stale when its
// market is open and no tick came for a while. A click on the price pane
// picks a price; "Alert at ..." opens the alert-rule form with a price-cross at that price.
// The chart library (about a third of the dashboard's code) is fetched the first time a chart
// is drawn, not with the page: the header and controls show at once, the canvas and its legend
// once the library is there (docs/performance.md). The chart's lifecycle is useCandleChart.ts;
// this file is its view: header, controls, legend and messages.
import { useEffect, useMemo, useRef, useState } from 'react';
import { compactNumber, formatPrice } from '../../../shared/format.ts';
import {
  CHART_OVERLAY_LABELS,
  CHART_OVERLAYS,
  CHART_TIMEFRAMES,
  type ChartOverlay,
  type ChartTimeframe,
} from '../../../shared/schemas/chartOptions.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { BellIcon, useRuleEditor, roundPrice, useActiveRules } from '../rules/index.ts';
import { ASSET_CLASS_LABELS } from '../../ui/assetClasses.ts';
import { LiveStateLabel, useLiveState } from '../../live/index.ts';
import { alertLevels } from './chartLevels.ts';
import { DELAYED_TITLE, isDelayedSource, useCandles, useRefetchOnAlert } from './marketApi.ts';
import { OVERLAY_COLORS, RSI_PERIOD, seconds, useCandleChart } from './useCandleChart.ts';

const formatVolume = compactNumber;

function formatValue(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? '–' : value.toFixed(digits);
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
  const query = useCandles(productId, timeframe, overlays, RSI_PERIOD);
  useRefetchOnAlert(productId, query.refetch);
  // While another symbol's or timeframe's bars load, the previous answer is not this chart's.
  const market = resolveSymbol(productId);
  const symbolId = market?.id ?? productId;
  const data = query.data && query.data.symbol === symbolId ? query.data : undefined;
  const ruleEditor = useRuleEditor();
  const activeRules = useActiveRules();
  const levels = useMemo(() => alertLevels(activeRules.data, symbolId), [activeRules.data, symbolId]);
  const liveState = useLiveState(symbolId);
  const lastClose = data?.candles.at(-1)?.close;
  const { container, hovered, picked: clicked, drawn, libraryError } = useCandleChart(productId, data, levels);
  const alertPrice = clicked ?? (lastClose === undefined ? undefined : roundPrice(lastClose));

  const legendIndex = useMemo(() => {
    if (!data || data.candles.length === 0) return -1;
    if (hovered === null) return data.candles.length - 1;
    const index = data.candles.findIndex((candle) => seconds(candle.time) === hovered);
    return index < 0 ? data.candles.length - 1 : index;
  }, [data, hovered]);
  // The legend reads the drawn chart's bars (the hovered one): it comes with the canvas.
  const legendBar = data && legendIndex >= 0 && drawn ? data.candles[legendIndex] : undefined;

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
        {isDelayedSource(data?.source) && liveState?.kind !== 'delayed' && (
          <span className="rounded bg-sky-300 px-2 py-0.5 text-xs font-bold text-gray-900" title={DELAYED_TITLE}>
            Delayed
          </span>
        )}
        {/* Demo data has its label above; the others say how live the forming candle is. */}
        {liveState && !(liveState.kind === 'demo' && data?.source === 'demo') && (
          <LiveStateLabel state={liveState} className="py-0.5 text-xs" />
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
