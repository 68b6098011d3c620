// The setup study's equity curve ("enter on the signal's close, exit `horizon` bars later", fee
// included, from 1) drawn with lightweight-charts, the product's chart library: fetched on the
// first curve (like the candle chart's, market/useCandleChart.ts), one area series, made when
// the data arrives and removed when it changes or the view unmounts. The chart is one described
// figure (not an image: the library puts its attribution link inside it, and an image cannot
// hold a control); the figures it draws are in the study's statistics beside it.
import type { IChartApi, UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { CHUNK_FAILED_MESSAGE, loadWithin } from '../../chunkLoad.ts';
import type { StudyResponse } from '../../../shared/schemas/scans.ts';

type ChartLibrary = typeof import('lightweight-charts');

let library: Promise<ChartLibrary> | null = null;
function loadChartLibrary(): Promise<ChartLibrary> {
  library ??= loadWithin(() => import('lightweight-charts'));
  return library;
}

/**
 * The curve as the chart takes it: seconds, strictly ascending. Trades of several symbols can
 * close in the same second; the last equity of that second is the one that stands.
 */
function equityPoints(equity: StudyResponse['equity']): Array<{ time: UTCTimestamp; value: number }> {
  const bySecond = new Map<number, number>();
  for (const point of equity) {
    const time = Math.floor(Date.parse(point.time) / 1000);
    if (Number.isFinite(time)) bySecond.set(time, point.equity);
  }
  return [...bySecond.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([time, value]) => ({ time: time as UTCTimestamp, value }));
}

export function EquityChart({ equity, label }: { equity: StudyResponse['equity']; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const element = host.current;
    const points = equityPoints(equity);
    if (!element || points.length === 0) return;
    let chart: IChartApi | null = null;
    let cancelled = false;
    loadChartLibrary().then(
      ({ AreaSeries, ColorType, createChart }) => {
        if (cancelled) return;
        chart = createChart(element, {
          autoSize: true,
          layout: { background: { type: ColorType.Solid, color: '#111827' }, textColor: '#d1d5db' },
          grid: { vertLines: { color: '#1f2937' }, horzLines: { color: '#1f2937' } },
          rightPriceScale: { borderColor: '#374151' },
          timeScale: { borderColor: '#374151' },
        });
        const last = points[points.length - 1]!.value;
        const up = last >= 1;
        const series = chart.addSeries(AreaSeries, {
          lineColor: up ? '#22c55e' : '#ef4444',
          topColor: up ? 'rgba(34,197,94,0.3)' : 'rgba(239,68,68,0.3)',
          bottomColor: 'rgba(17,24,39,0)',
          lineWidth: 2,
          priceFormat: { type: 'price', precision: 3, minMove: 0.001 },
        });
        series.setData(points);
        chart.timeScale().fitContent();
      },
      (error: unknown) => {
        console.error('The chart library could not be loaded', error);
        if (!cancelled) setFailed(true);
      },
    );
    return () => {
      cancelled = true;
      chart?.remove();
    };
  }, [equity]);

  if (equity.length === 0) return <p className="text-xs text-gray-400">No trade to draw.</p>;
  const final = equity[equity.length - 1]!.equity;
  const name = `${label}: equity from 1 to ${final.toFixed(3)} over ${equity.length} trade closes`;
  return (
    <figure className="min-w-0">
      {failed ? (
        <p role="alert" className="text-xs text-amber-300">
          {CHUNK_FAILED_MESSAGE}
        </p>
      ) : (
        <div ref={host} role="figure" aria-label={name} className="h-48 w-full" data-testid="equity-chart" />
      )}
      <figcaption className="mt-1 text-[11px] text-gray-400">
        Equity of entering on each signal's close and exiting after the horizon, fee included (starts at 1).
      </figcaption>
    </figure>
  );
}
