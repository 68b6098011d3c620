// The candlestick chart of one asset (lightweight-charts), opened from a price card, the alerts
// panel's video icon or the chart area's symbol picker, for any symbol of the table (crypto,
// stocks, ETFs, indices, futures), with the alerts that fired on it marked on their bars: green
// up-arrows bullish, red down-arrows bearish, yellow circles caution. Demo bars are labelled
// "Demo data" and Yahoo Finance bars "Delayed". A click on the chart picks a price; "Alert at ..."
// opens the alert-rule form with a price-cross at that price (the last close until one is picked).
import {
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  type SeriesMarker,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { alertDisplayType, parseAlertTimestamp } from '../../../shared/alertDisplay.ts';
import { formatPrice } from '../../../shared/format.ts';
import type { CandleGranularity } from '../../../shared/schemas/market.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { BellIcon } from '../rules/BellIcon.tsx';
import { useRuleEditor } from '../rules/AlertRulesProvider.tsx';
import { roundPrice } from '../rules/ruleForm.ts';
import { ASSET_CLASS_LABELS } from './assetClasses.ts';
import { DELAYED_TITLE, isDelayedSource, useCandles } from './marketApi.ts';

const MARKER_STYLE = {
  bullish: { position: 'belowBar', shape: 'arrowUp', color: '#22c55e' },
  bearish: { position: 'aboveBar', shape: 'arrowDown', color: '#ef4444' },
  caution: { position: 'aboveBar', shape: 'circle', color: '#facc15' },
} as const;

export function CandleChart({
  productId,
  onClose,
}: {
  /** The symbol table's canonical id (BTC-USD, AAPL, SPX, MES1!); any form the table resolves works. */
  productId: string;
  onClose: () => void;
}) {
  const [granularity, setGranularity] = useState<CandleGranularity>(3600);
  const container = useRef<HTMLDivElement>(null);
  const data = useCandles(productId, granularity);
  const market = resolveSymbol(productId);
  const ruleEditor = useRuleEditor();
  // The price the trader clicked on the chart, for "Alert at ...".
  const [picked, setPicked] = useState<{ chart: unknown; price: number } | null>(null);
  const lastClose = data.data?.candles.at(-1)?.close;

  useEffect(() => {
    if (!container.current || !data.data) return;
    const chart = createChart(container.current, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: '#111827' }, textColor: '#d1d5db' },
      grid: { vertLines: { color: '#1f2937' }, horzLines: { color: '#1f2937' } },
      timeScale: { timeVisible: true, secondsVisible: false },
    });
    const series = chart.addSeries(CandlestickSeries, {
      upColor: '#22c55e',
      downColor: '#ef4444',
      wickUpColor: '#22c55e',
      wickDownColor: '#ef4444',
      borderVisible: false,
    });
    const bars = data.data.candles.map((candle) => ({
      ...candle,
      time: (Date.parse(candle.time) / 1000) as UTCTimestamp,
    }));
    series.setData(bars);
    const size = data.data.granularity;
    // One marker per bar and kind keeps a busy hour readable; the log has every alert.
    const byBar = new Map<string, SeriesMarker<UTCTimestamp>>();
    for (const alert of data.data.alerts) {
      const closedAt = parseAlertTimestamp(alert.timestamp).getTime() / 1000;
      // An alert is stamped when its bar closed; mark the chart bar that contains that bar.
      const time = (Math.floor((closedAt - 1) / size) * size) as UTCTimestamp;
      const kind = alertDisplayType(alert.alert_type, alert.message);
      byBar.set(`${time}-${kind}`, { time, ...MARKER_STYLE[kind], size: 1 });
    }
    createSeriesMarkers(
      series,
      [...byBar.values()].sort((a, b) => a.time - b.time),
    );
    chart.timeScale().fitContent();
    chart.subscribeClick((param) => {
      const price = param.point ? series.coordinateToPrice(param.point.y) : null;
      if (price !== null && Number.isFinite(price) && price > 0)
        setPicked({ chart: data.data, price: roundPrice(price) });
    });
    return () => chart.remove();
  }, [data.data]);

  // A picked price belongs to the bars it was picked on: a new symbol or bar size forgets it.
  const clicked = picked && picked.chart === data.data ? picked.price : undefined;
  const alertPrice = clicked ?? (lastClose === undefined ? undefined : roundPrice(lastClose));

  return (
    <div
      role="dialog"
      aria-label={`${productId} chart`}
      className="absolute inset-0 z-20 flex flex-col rounded-lg bg-gray-900 p-4"
    >
      <div className="flex flex-wrap items-center gap-3">
        <h3 className="text-lg font-bold text-white">{productId}</h3>
        {market && (
          <span className="text-xs text-gray-400" data-testid="chart-market">
            {market.name} · {ASSET_CLASS_LABELS[market.assetClass]}
          </span>
        )}
        {data.data?.source === 'demo' && (
          <span className="rounded bg-amber-500 px-2 py-0.5 text-xs font-bold text-gray-900">Demo data</span>
        )}
        {isDelayedSource(data.data?.source) && (
          <span className="rounded bg-sky-300 px-2 py-0.5 text-xs font-bold text-gray-900" title={DELAYED_TITLE}>
            Delayed
          </span>
        )}
        <div className="flex gap-1" role="group" aria-label="Bar size">
          {([3600, 60] as const).map((option) => (
            <button
              key={option}
              type="button"
              aria-pressed={granularity === option}
              onClick={() => setGranularity(option)}
              className={`rounded px-2 py-1 text-xs ${granularity === option ? 'bg-indigo-600 text-white' : 'bg-gray-800 text-gray-300'}`}
            >
              {option === 3600 ? '1h' : '1m'}
            </button>
          ))}
        </div>
        <span className="text-xs text-gray-400">{data.data ? `${data.data.alerts.length} alerts marked` : ''}</span>
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
      {data.isPending && <p className="mt-4 text-gray-400">Loading...</p>}
      {data.isError && <p className="mt-4 text-red-300">The chart could not be loaded: {data.error.message}</p>}
      {data.data && data.data.candles.length === 0 && (
        <p className="mt-4 text-gray-400">
          No candles stored for {productId} yet; the alert engine is still filling the history.
        </p>
      )}
      <div ref={container} className="mt-3 min-h-0 flex-1" data-testid="candle-chart" />
    </div>
  );
}
