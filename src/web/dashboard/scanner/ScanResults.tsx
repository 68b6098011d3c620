// A scan's matches as a table (issue 36): the watchlist table's columns (the symbol with its
// name, Last, Change and % since the session's open, following the tab's live ticks with the
// same flash) and one column per condition with the figure it tested. Headers sort (aria-sort;
// ascending, descending, then the server's order, strongest first) on the scan's own figures, so
// rows do not jump with every tick. Each row's actions: open its own chart, add it to the chart
// watchlist, make an alert rule from the scan's conditions, and study the setup on it. The table
// scrolls inside its own box on a narrow screen, never the page.
import { useState } from 'react';
import { formatPrice } from '../../../shared/format.ts';
import type { ScanCondition, ScanResponse, ScanRow } from '../../../shared/schemas/scans.ts';
import { useFlash, useLiveTick, useLiveTicks } from '../../live/index.ts';
import { conditionColumn } from './scanForm.ts';
import { SortButton } from '../../ui/SortButton.tsx';

type SortKey = 'symbol' | 'last' | 'change' | 'changePercent' | `value-${number}`;
type Sort = { key: SortKey; direction: 'ascending' | 'descending' } | null;

// The watchlist table's signs and colours (src/web/dashboard/watchlist/WatchlistTable.tsx).
function signed(value: number, text: string): string {
  return value > 0 ? `+${text}` : value < 0 ? `−${text.replace(/^-/, '')}` : text;
}

function trendClass(value: number | null | undefined): string {
  if (value == null || value === 0) return 'text-gray-300';
  return value > 0 ? 'text-green-400' : 'text-red-400';
}

/** A condition's figure: up to two decimals, a price as a price. */
function formatValue(condition: ScanCondition | undefined, value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  if (condition?.kind === 'price_range') return formatPrice(value);
  return Math.abs(value) >= 1000 ? value.toFixed(0) : value.toFixed(2).replace(/\.?0+$/, '') || '0';
}

function sortValue(row: ScanRow, key: SortKey): number | string | null {
  if (key === 'symbol') return row.ticker;
  if (key === 'last' || key === 'change' || key === 'changePercent') return row[key];
  return row.values[Number(key.slice('value-'.length))] ?? null;
}

/** Rows in the sort's order; rows without a value always last, ties in the server's order. */
function sortScanRows(rows: readonly ScanRow[], sort: Sort): ScanRow[] {
  if (!sort) return [...rows];
  const factor = sort.direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, value: sortValue(row, sort.key) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null) {
        if (a.value === b.value) return a.index - b.index;
        return a.value === null ? 1 : -1;
      }
      const order =
        typeof a.value === 'string' || typeof b.value === 'string'
          ? String(a.value).localeCompare(String(b.value))
          : a.value - b.value;
      return order === 0 ? a.index - b.index : order * factor;
    })
    .map(({ row }) => row);
}

/** Last, change and %: the newest tick's price once it is newer than the scan's bar. */
function LiveCells({ row }: { row: ScanRow }) {
  const live = useLiveTick(row.id);
  const flash = useFlash(live);
  const ticked = live && live.tick.time >= Date.parse(row.barTime) ? live.tick : null;
  // The session's open, from the scan's own figures (null when the server had none).
  const sessionOpen = row.change === null ? null : row.last - row.change;
  const last = ticked ? ticked.price : row.last;
  const change = ticked ? (sessionOpen === null ? null : ticked.price - sessionOpen) : row.change;
  const changePercent = ticked
    ? sessionOpen === null || sessionOpen === 0 || change === null
      ? null
      : (change / sessionOpen) * 100
    : row.changePercent;
  return (
    <>
      <td
        className={`px-1 py-1 text-right text-white tabular-nums ${flash ? `live-flash-${flash}` : ''}`}
        data-testid="scan-last"
      >
        {formatPrice(last)}
      </td>
      <td className={`px-1 py-1 text-right tabular-nums ${trendClass(change)}`}>
        {change === null ? '-' : signed(change, formatPrice(Math.abs(change)))}
      </td>
      <td className={`px-1 py-1 text-right font-medium tabular-nums ${trendClass(changePercent)}`}>
        {changePercent === null ? '-' : signed(changePercent, `${changePercent.toFixed(2)}%`)}
      </td>
    </>
  );
}

export interface ScanRowActions {
  onOpenChart: (row: ScanRow) => void;
  onAddToWatchlist: (row: ScanRow) => void;
  /** Absent outside the dashboard's rule editor. */
  onMakeRule?: (row: ScanRow) => void;
  onStudy: (row: ScanRow) => void;
}

const ACTION_CLASS =
  'rounded border border-gray-700 px-1.5 py-0.5 text-[11px] whitespace-nowrap text-gray-200 hover:border-indigo-400 hover:text-white';

export function ScanResults({
  result,
  conditions,
  actions,
}: {
  result: ScanResponse;
  /** The conditions the scan ran with, in order: one value column each. */
  conditions: readonly ScanCondition[];
  actions: ScanRowActions;
}) {
  const [sort, setSort] = useState<Sort>(null);
  useLiveTicks(result.rows.map((row) => row.id));
  const rows = sortScanRows(result.rows, sort);
  const demo = result.rows.some((row) => row.source === 'demo');

  const columns: Array<{ key: SortKey; label: string; numeric: boolean }> = [
    { key: 'symbol', label: 'Symbol', numeric: false },
    { key: 'last', label: 'Last', numeric: true },
    { key: 'change', label: 'Change', numeric: true },
    { key: 'changePercent', label: '% Change', numeric: true },
    ...conditions.map((condition, index) => ({
      key: `value-${index}` as const,
      label: conditionColumn(condition),
      numeric: true,
    })),
  ];

  function toggleSort(key: SortKey) {
    setSort((previous) =>
      previous?.key !== key
        ? { key, direction: 'ascending' }
        : previous.direction === 'ascending'
          ? { key, direction: 'descending' }
          : null,
    );
  }

  return (
    <div className="min-w-0" data-testid="scan-results">
      <p className="text-xs text-gray-300" role="status">
        {result.matched.toLocaleString('en-US')} of {result.evaluated.toLocaleString('en-US')} symbols match on{' '}
        {result.timeframe} bars
        {result.skipped > 0 ? ` (${result.skipped.toLocaleString('en-US')} skipped: too little history stored)` : ''}
        {result.matched > result.rows.length ? `; the strongest ${result.rows.length} shown` : ''}
        {result.asOf ? `, as of ${new Date(result.asOf).toLocaleString()}` : ''}.{demo ? ' Demo data.' : ''}
      </p>
      {rows.length > 0 && (
        <div className="relative mt-2 max-w-full overflow-x-auto">
          <table className="w-full border-collapse text-xs" data-testid="scan-table">
            <caption className="sr-only">Scan results: change since the session open</caption>
            <thead>
              <tr className="border-b border-gray-700 text-gray-400">
                {columns.map((column) => {
                  const sorted = sort?.key === column.key ? sort.direction : undefined;
                  return (
                    <th
                      key={column.key}
                      scope="col"
                      aria-sort={sorted ?? 'none'}
                      className={`px-1 py-1 font-medium whitespace-nowrap ${column.numeric ? 'text-right' : 'text-left'}`}
                    >
                      <SortButton label={column.label} sorted={sorted} onSort={() => toggleSort(column.key)} />
                    </th>
                  );
                })}
                <th scope="col" className="px-1 py-1 text-right font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} className="h-10 border-b border-gray-800" data-symbol={row.id}>
                  <th scope="row" className="max-w-[8rem] px-1 py-1 text-left font-normal">
                    <span className="block font-semibold text-white">{row.ticker}</span>
                    <span className="block truncate text-[11px] text-gray-400">{row.name}</span>
                  </th>
                  <LiveCells row={row} />
                  {conditions.map((condition, index) => (
                    <td key={index} className="px-1 py-1 text-right tabular-nums text-gray-200">
                      {formatValue(condition, row.values[index])}
                    </td>
                  ))}
                  <td className="px-1 py-1 text-right">
                    <span className="inline-flex gap-1">
                      <button
                        type="button"
                        className={ACTION_CLASS}
                        aria-label={`Open the ${row.ticker} chart`}
                        onClick={() => actions.onOpenChart(row)}
                      >
                        Chart
                      </button>
                      <button
                        type="button"
                        className={ACTION_CLASS}
                        aria-label={`Add ${row.ticker} to the watchlist`}
                        onClick={() => actions.onAddToWatchlist(row)}
                      >
                        + Watchlist
                      </button>
                      {actions.onMakeRule && (
                        <button
                          type="button"
                          className={ACTION_CLASS}
                          aria-label={`Make an alert rule for ${row.ticker} from this scan`}
                          onClick={() => actions.onMakeRule?.(row)}
                        >
                          Alert rule
                        </button>
                      )}
                      <button
                        type="button"
                        className={ACTION_CLASS}
                        aria-label={`Study this setup on ${row.ticker}`}
                        onClick={() => actions.onStudy(row)}
                      >
                        Study
                      </button>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
