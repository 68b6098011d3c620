// The track record's reliability diagram (issue 20), drawn as an SVG of our own: the stated
// probability of a higher close (x) against the share that did close higher (y), one point a
// decile of stated odds with forecasts, sized by its count and labelled with it, the 95% Wilson
// interval of the realised share as an error bar, and the diagonal where stated equals
// realised. The SVG is one described image; the same numbers follow in a table, so a screen
// reader (or anyone who wants the figures) reads them there.
import { useId } from 'react';
import type { TrackRecordResponse } from '../../../shared/schemas/trackRecord.ts';

type Bin = TrackRecordResponse['reliability'][number];

const SIZE = 300;
const PAD = { left: 44, right: 12, top: 12, bottom: 40 };
const PLOT = SIZE - PAD.left - PAD.right;
const PLOT_H = SIZE - PAD.top - PAD.bottom;
const TICKS = [0, 0.25, 0.5, 0.75, 1];

const x = (share: number) => PAD.left + share * PLOT;
const y = (share: number) => PAD.top + (1 - share) * PLOT_H;

export const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const decile = (bin: Bin) => `${Math.round(bin.from * 100)}–${Math.round(bin.to * 100)}%`;

/** The point's radius: 3 px for the smallest decile up to 10 px for the largest, by area. */
function radius(count: number, largest: number): number {
  return 3 + 7 * Math.sqrt(count / Math.max(1, largest));
}

export function ReliabilityDiagram({ bins, label }: { bins: Bin[]; label: string }) {
  const id = useId();
  const largest = Math.max(0, ...bins.map((bin) => bin.count));
  const total = bins.reduce((sum, bin) => sum + bin.count, 0);
  const worst = bins.reduce((gap, bin) => Math.max(gap, Math.abs(bin.realised - bin.stated)), 0);
  return (
    <figure className="min-w-0" data-testid="reliability-diagram">
      <svg
        viewBox={`0 0 ${SIZE} ${SIZE}`}
        className="mx-auto block h-auto w-full max-w-[320px]"
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{`Reliability diagram: ${label}`}</title>
        <desc id={`${id}-desc`}>
          {`Stated probability against realised share of higher closes for ${bins.length} decile${bins.length === 1 ? '' : 's'} ` +
            `with ${total.toLocaleString('en-US')} resolved forecasts; the largest gap between stated and realised is ` +
            `${(worst * 100).toFixed(1)} points. The table below lists every decile.`}
        </desc>
        {/* The frame and the grid lines. */}
        <rect x={PAD.left} y={PAD.top} width={PLOT} height={PLOT_H} fill="none" stroke="#4b5563" />
        {TICKS.map((tick) => (
          <g key={tick}>
            <line x1={x(tick)} x2={x(tick)} y1={PAD.top} y2={PAD.top + PLOT_H} stroke="#374151" strokeWidth={0.5} />
            <line x1={PAD.left} x2={PAD.left + PLOT} y1={y(tick)} y2={y(tick)} stroke="#374151" strokeWidth={0.5} />
            <text x={x(tick)} y={PAD.top + PLOT_H + 14} textAnchor="middle" fontSize={10} fill="#d1d5db">
              {`${tick * 100}%`}
            </text>
            <text x={PAD.left - 5} y={y(tick) + 3} textAnchor="end" fontSize={10} fill="#d1d5db">
              {`${tick * 100}%`}
            </text>
          </g>
        ))}
        <text x={PAD.left + PLOT / 2} y={SIZE - 6} textAnchor="middle" fontSize={11} fill="#e5e7eb">
          Stated probability
        </text>
        <text
          x={12}
          y={PAD.top + PLOT_H / 2}
          textAnchor="middle"
          fontSize={11}
          fill="#e5e7eb"
          transform={`rotate(-90 12 ${PAD.top + PLOT_H / 2})`}
        >
          Realised share
        </text>
        {/* Perfect calibration: realised = stated. */}
        <line
          x1={x(0)}
          y1={y(0)}
          x2={x(1)}
          y2={y(1)}
          stroke="#9ca3af"
          strokeDasharray="4 3"
          data-testid="reliability-diagonal"
        />
        {bins.map((bin) => {
          const r = radius(bin.count, largest);
          const cx = x(bin.stated);
          const above = y(bin.interval[1]);
          const below = y(bin.interval[0]);
          return (
            <g
              key={bin.from}
              data-testid="reliability-point"
              data-count={bin.count}
              data-stated={bin.stated}
              data-realised={bin.realised}
            >
              {/* The realised share's 95% interval. */}
              <line x1={cx} x2={cx} y1={above} y2={below} stroke="#a5b4fc" strokeWidth={1.5} />
              <line x1={cx - 4} x2={cx + 4} y1={above} y2={above} stroke="#a5b4fc" strokeWidth={1.5} />
              <line x1={cx - 4} x2={cx + 4} y1={below} y2={below} stroke="#a5b4fc" strokeWidth={1.5} />
              <circle
                cx={cx}
                cy={y(bin.realised)}
                r={r}
                fill="#6366f1"
                fillOpacity={0.75}
                stroke="#e0e7ff"
                strokeWidth={1}
              />
              {/* The count beside the point, on its left near the right edge so it stays inside. */}
              <text
                x={cx > x(0.7) ? cx - r - 3 : cx + r + 3}
                y={y(bin.realised) - 3}
                textAnchor={cx > x(0.7) ? 'end' : 'start'}
                fontSize={9}
                fill="#e5e7eb"
              >
                {`n=${bin.count.toLocaleString('en-US')}`}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-1 text-center text-[11px] text-gray-400">
        Points on the dashed diagonal came true as often as stated; bars are 95% intervals, point size the count.
      </figcaption>
      <table className="mt-2 w-full text-left text-[11px] text-gray-200" data-testid="reliability-table">
        <caption className="mb-1 text-left text-xs font-semibold text-gray-200">
          Reliability by decile of stated odds
        </caption>
        <thead className="text-gray-400">
          <tr>
            <th scope="col" className="py-0.5 pr-1 font-medium">
              Decile
            </th>
            <th scope="col" className="py-0.5 pr-1 text-right font-medium">
              Forecasts
            </th>
            <th scope="col" className="py-0.5 pr-1 text-right font-medium">
              Stated
            </th>
            <th scope="col" className="py-0.5 pr-1 text-right font-medium">
              Realised
            </th>
            <th scope="col" className="py-0.5 text-right font-medium">
              95% interval
            </th>
          </tr>
        </thead>
        <tbody>
          {bins.map((bin) => (
            <tr key={bin.from} className="border-t border-gray-800">
              <th scope="row" className="py-0.5 pr-1 font-normal">
                {decile(bin)}
              </th>
              <td className="py-0.5 pr-1 text-right tabular-nums">{bin.count.toLocaleString('en-US')}</td>
              <td className="py-0.5 pr-1 text-right tabular-nums">{percent(bin.stated)}</td>
              <td className="py-0.5 pr-1 text-right tabular-nums">{percent(bin.realised)}</td>
              <td className="py-0.5 text-right tabular-nums">
                {percent(bin.interval[0])}–{percent(bin.interval[1])}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
