// The watchlist as a table (issue 17, items 3 and 7), shared by the chart watchlist and the
// alerts panel: per symbol its ticker and name, last price, change and % change since the
// session open, a sparkline of the last hour and the newest engine alert. Last, change and %
// follow the ticks of the tab's live connection (a brief green or red flash when a tick moves
// the price; nothing is announced per tick) and each priced row says how live it is: Live,
// Delayed N min, Demo or Stale (its market open and no tick for a while), back to Live with the
// next tick; the rest is re-read every minute. Headers sort (on the re-read figures, so rows do
// not jump with every tick) (aria-sort); a click on a row, or Enter on it, opens that symbol's chart;
// the arrow keys (and Home / End) move between rows. The Table / Chips switch beside it
// chooses this or the compact chips.
//
// Narrow containers (the right column, a phone) hide the absolute change and then the latest
// alert, through container queries; whatever still does not fit scrolls inside the table's own
// box, never the page.
import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { alertDisplayType } from '../../../shared/alertDisplay.ts';
import { formatPrice } from '../../../shared/format.ts';
import type { WatchlistEntry, WatchlistQuote } from '../../../shared/schemas/market.ts';
import { LiveStateLabel, useFlash, useLiveState, useLiveTick, useLiveTicks } from '../../live/index.ts';
import { shortDate, shortWeekday, timeOfDay } from '../../ui/dates.ts';
import { useWatchlistQuotes, type WatchlistView } from './watchlistQuotes.ts';
import { SortButton } from '../../ui/SortButton.tsx';

type SortKey = 'symbol' | 'last' | 'change' | 'changePercent' | 'alert';
type Sort = { key: SortKey; direction: 'ascending' | 'descending' } | null;

const ALERT_COLOURS = { bullish: 'text-green-400', bearish: 'text-red-400', caution: 'text-yellow-300' } as const;

/** The Table / Chips switch of a watchlist. */
export function WatchlistViewToggle({
  view,
  onChange,
  label,
}: {
  view: WatchlistView;
  onChange: (view: WatchlistView) => void;
  /** Names the group for screen readers, e.g. 'Chart watchlist view'. */
  label: string;
}) {
  return (
    <div
      role="group"
      aria-label={label}
      className="inline-flex shrink-0 overflow-hidden rounded border border-gray-700"
    >
      {(['table', 'chips'] as const).map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={view === option}
          onClick={() => onChange(option)}
          className={`px-2 py-0.5 text-xs ${view === option ? 'bg-indigo-600 text-white' : 'text-gray-300 hover:text-white'}`}
        >
          {option === 'table' ? 'Table' : 'Chips'}
        </button>
      ))}
    </div>
  );
}

/** The generator's name in words: 'VolatilitySpikeAlertGenerator' gives 'Volatility Spike'. */
function alertTypeLabel(alertType: string): string {
  return alertType
    .replace(/AlertGenerator$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim();
}

/** A short local time: '02:35 PM' today, 'Mon 02:35 PM' this week, the day ('Nov 30, 2026') before that. */
export function shortTime(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  if (date.getTime() >= startOfToday) return timeOfDay(date);
  if (date.getTime() >= startOfToday - 6 * 86_400_000) return `${shortWeekday(date)} ${timeOfDay(date)}`;
  return shortDate(date);
}

function signed(value: number, text: string): string {
  return value > 0 ? `+${text}` : value < 0 ? `−${text.replace(/^-/, '')}` : text;
}

function trendClass(value: number | null | undefined): string {
  if (value == null || value === 0) return 'text-gray-300';
  return value > 0 ? 'text-green-400' : 'text-red-400';
}

/** The last hour's closes as a line; its accessible name says what it is and where it went. */
function Sparkline({ ticker, closes }: { ticker: string; closes: readonly number[] }) {
  if (closes.length < 2) return <span className="text-gray-400">-</span>;
  const width = 64;
  const height = 20;
  const low = Math.min(...closes);
  const high = Math.max(...closes);
  const span = high - low || 1;
  const points = closes
    .map((close, index) => {
      const x = (index / (closes.length - 1)) * width;
      const y = height - 1 - ((close - low) / span) * (height - 2);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
  const first = closes[0]!;
  const last = closes[closes.length - 1]!;
  const name = `${ticker} last hour, from ${formatPrice(first)} to ${formatPrice(last)}`;
  return (
    // Narrower in a narrow table (a phone), so the row's actions stay in view.
    <svg
      role="img"
      aria-label={name}
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      className="h-5 w-10 @md:w-16"
    >
      <title>{name}</title>
      <polyline
        points={points}
        fill="none"
        strokeWidth="1.5"
        vectorEffect="non-scaling-stroke"
        className={last >= first ? 'stroke-green-400' : 'stroke-red-400'}
      />
    </svg>
  );
}

function sortValue(entry: WatchlistEntry | undefined, symbol: string, key: SortKey): number | string | null {
  if (key === 'symbol') return entry && entry.status !== 'unknown' ? entry.ticker : symbol;
  if (!entry || entry.status === 'unknown') return null;
  if (key === 'alert') return entry.latestAlert ? Date.parse(entry.latestAlert.time) : null;
  return entry[key];
}

/** Rows in the sort's order; rows without a value always last, ties in watchlist order. */
function sortRows<T extends { symbol: string; entry: WatchlistEntry | undefined }>(rows: T[], sort: Sort): T[] {
  if (!sort) return rows;
  const factor = sort.direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, value: sortValue(row.entry, row.symbol, sort.key) }))
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

const COLUMNS: Array<{ key: SortKey | 'trend'; label: string; className: string; numeric?: boolean }> = [
  { key: 'symbol', label: 'Symbol', className: '' },
  { key: 'last', label: 'Last', className: '', numeric: true },
  { key: 'change', label: 'Change', className: 'hidden @md:table-cell', numeric: true },
  { key: 'changePercent', label: '% Change', className: '', numeric: true },
  { key: 'trend', label: 'Last hour', className: '' },
  { key: 'alert', label: 'Latest alert', className: 'hidden @lg:table-cell' },
];

export function WatchlistTable({
  symbols,
  label,
  onOpen,
  onRemove,
  rowActions,
  current,
}: {
  /** The watchlist as saved (any form the symbol table resolves). */
  symbols: readonly string[];
  /** The table's caption, e.g. 'Chart watchlist'. */
  label: string;
  /** Opens the chart of a row's symbol (the saved form, and the canonical id when known). */
  onOpen: (symbol: string, symbolId: string | null) => void;
  onRemove: (symbol: string) => void;
  /** More buttons of a row (the alerts panel's bell). */
  rowActions?: (symbol: string, entry: WatchlistEntry | undefined) => ReactNode;
  /** The symbol whose chart is shown now (marked as current). */
  current?: string;
}) {
  const quotes = useWatchlistQuotes(symbols);
  // The whole list at once, so that the first URL of the live connection (or one PUT) names them all.
  useLiveTicks(symbols);
  const [sort, setSort] = useState<Sort>(null);
  // The row that keeps the tab stop, by symbol: a re-sort or a live update that reorders the
  // rows leaves it on the same symbol, not on whichever row moved into its place.
  const [focused, setFocused] = useState<string | null>(null);
  const body = useRef<HTMLTableSectionElement>(null);

  const byQuery = new Map((quotes.data?.entries ?? []).map((entry) => [entry.query, entry]));
  const rows = sortRows(
    symbols.map((symbol) => ({ symbol, entry: byQuery.get(symbol) })),
    sort,
  );
  const active = Math.max(
    0,
    rows.findIndex((row) => row.symbol === focused),
  );

  function toggleSort(key: SortKey) {
    // Ascending, descending, then back to the watchlist's own order.
    setSort((previous) =>
      previous?.key !== key
        ? { key, direction: 'ascending' }
        : previous.direction === 'ascending'
          ? { key, direction: 'descending' }
          : null,
    );
  }

  function open(symbol: string, entry: WatchlistEntry | undefined) {
    onOpen(symbol, entry && entry.status !== 'unknown' ? entry.id : null);
  }

  function focusRow(index: number) {
    setFocused(rows[index]!.symbol);
    body.current?.querySelectorAll<HTMLTableRowElement>('tr')[index]?.focus();
  }

  function onRowKey(event: KeyboardEvent<HTMLTableRowElement>, index: number) {
    // Keys inside a row's buttons belong to those buttons.
    if (event.target !== event.currentTarget) return;
    const moves: Record<string, number> = {
      ArrowDown: Math.min(rows.length - 1, index + 1),
      ArrowUp: Math.max(0, index - 1),
      Home: 0,
      End: rows.length - 1,
    };
    const move = moves[event.key];
    if (move !== undefined) {
      event.preventDefault();
      focusRow(move);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open(rows[index]!.symbol, rows[index]!.entry);
    }
  }

  const delayed = quotes.data?.entries.some((entry) => entry.status === 'priced' && entry.delayed);
  const demo = quotes.data?.entries.some((entry) => entry.status === 'priced' && entry.source === 'demo');

  return (
    <div className="@container w-full min-w-0">
      {/* relative: the visually hidden header text (sr-only, absolutely placed) stays inside what scrolls. */}
      <div className="relative max-w-full overflow-x-auto">
        <table className="w-full border-collapse text-xs" data-testid="watchlist-table">
          <caption className="sr-only">
            {label}: change since the session open (crypto: since 00:00 UTC). Arrow keys move between rows, Enter opens
            the chart.
          </caption>
          <thead>
            <tr className="border-b border-gray-700 text-gray-400">
              {COLUMNS.map((column) => {
                const sorted = sort?.key === column.key ? sort.direction : undefined;
                return (
                  <th
                    key={column.key}
                    scope="col"
                    aria-sort={column.key === 'trend' ? undefined : (sorted ?? 'none')}
                    className={`px-1 py-1 font-medium whitespace-nowrap ${column.numeric ? 'text-right' : 'text-left'} ${column.className}`}
                  >
                    {column.key === 'trend' ? (
                      column.label
                    ) : (
                      <SortButton
                        label={column.label}
                        sorted={sorted}
                        onSort={() => toggleSort(column.key as SortKey)}
                      />
                    )}
                  </th>
                );
              })}
              <th scope="col" className="px-1 py-1 text-right font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody ref={body}>
            {rows.map(({ symbol, entry }, index) => (
              <tr
                key={symbol}
                tabIndex={index === active ? 0 : -1}
                aria-current={symbol === current ? 'true' : undefined}
                data-symbol={symbol}
                onClick={() => open(symbol, entry)}
                onFocus={(event) => {
                  if (event.target === event.currentTarget) setFocused(symbol);
                }}
                onKeyDown={(event) => onRowKey(event, index)}
                // h-10: a row is as tall before its quote arrives (one line) as after (ticker and
                // name) and after its first tick adds the live label under the price, so the
                // panels below do not move when the prices come in.
                className={`h-10 cursor-pointer border-b border-gray-800 outline-none hover:bg-gray-800/60 focus-visible:bg-gray-800 focus-visible:ring-2 focus-visible:ring-indigo-400 focus-visible:ring-inset ${symbol === current ? 'bg-indigo-950/60 shadow-[inset_3px_0_0_0_#6366f1]' : ''}`}
              >
                <WatchlistCells symbol={symbol} entry={entry} loading={quotes.isPending} />
                <td className="px-1 py-1 text-right whitespace-nowrap">
                  <span className="inline-flex items-center gap-1" onClick={(event) => event.stopPropagation()}>
                    {rowActions?.(symbol, entry)}
                    <button
                      type="button"
                      aria-label={`Remove ${symbol}`}
                      className="inline-flex min-h-6 min-w-6 items-center justify-center text-gray-400 hover:text-red-400"
                      onClick={() => onRemove(symbol)}
                    >
                      ×
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {quotes.isError && (
        <p role="status" className="mt-1 text-xs text-amber-300">
          Prices could not be loaded: {quotes.error.message}
        </p>
      )}
      {(demo || delayed) && (
        <p className="mt-1 text-[11px] text-gray-400">
          {demo ? 'Demo data. ' : ''}
          {delayed ? 'Stock and futures prices from Yahoo Finance are delayed. ' : ''}
        </p>
      )}
      {/* The source line's place while the first prices load (demo and Yahoo prices have one). */}
      {quotes.isPending && symbols.length > 0 && <p aria-hidden="true" className="mt-1 h-[16.5px]" />}
    </div>
  );
}

function WatchlistCells({
  symbol,
  entry,
  loading,
}: {
  symbol: string;
  entry: WatchlistEntry | undefined;
  loading: boolean;
}) {
  if (!entry || entry.status === 'unknown') {
    return (
      <>
        <th scope="row" className="px-1 py-1 text-left font-semibold text-white">
          {symbol}
        </th>
        <td colSpan={5} className="px-1 py-1 text-gray-400">
          {entry ? entry.error : loading ? 'Loading...' : '-'}
        </td>
      </>
    );
  }
  return <QuoteCells quote={entry} />;
}

/** Last, change and % of a priced row: the newest tick's price when it is newer than the stored bar's. */
function LivePriceCells({ quote }: { quote: WatchlistQuote }) {
  const live = useLiveTick(quote.id);
  const state = useLiveState(quote.id);
  const flash = useFlash(live);
  const ticked = live && (quote.lastTime === null || live.tick.time >= Date.parse(quote.lastTime)) ? live.tick : null;
  const last = ticked ? ticked.price : quote.last;
  const change = ticked ? (quote.sessionOpen === null ? null : ticked.price - quote.sessionOpen) : quote.change;
  const changePercent = ticked
    ? quote.sessionOpen === null || quote.sessionOpen === 0 || change === null
      ? null
      : (change / quote.sessionOpen) * 100
    : quote.changePercent;
  return (
    <>
      <td
        className="px-1 py-1 text-right text-white tabular-nums"
        title={quote.delayed && !state ? 'Delayed' : undefined}
        data-testid="watchlist-last"
        data-flash={flash ?? undefined}
      >
        {/* The price flashes, not the cell: the state label beside it keeps its contrast (axe). */}
        <span className={flash ? `live-flash-${flash}` : undefined}>{last === null ? '-' : formatPrice(last)}</span>
        {state ? (
          <LiveStateLabel state={state} className="block w-fit ml-auto" />
        ) : (
          quote.delayed && <span className="ml-0.5 text-[10px] text-amber-300">D</span>
        )}
      </td>
      <td className={`hidden px-1 py-1 text-right tabular-nums @md:table-cell ${trendClass(change)}`}>
        {change === null ? '-' : signed(change, formatPrice(Math.abs(change)))}
      </td>
      <td
        className={`px-1 py-1 text-right font-medium tabular-nums ${trendClass(changePercent)}`}
        data-testid="watchlist-change-percent"
      >
        {changePercent === null ? '-' : signed(changePercent, `${changePercent.toFixed(2)}%`)}
      </td>
    </>
  );
}

function QuoteCells({ quote }: { quote: WatchlistQuote }) {
  const alert = quote.latestAlert;
  return (
    <>
      <th scope="row" className="max-w-[8rem] px-1 py-1 text-left font-normal">
        <span className="block font-semibold text-white">{quote.ticker}</span>
        <span className="block truncate text-[11px] text-gray-400">{quote.name}</span>
      </th>
      {quote.status === 'no-data' ? (
        <td colSpan={4} className="px-1 py-1 text-gray-400" data-testid="watchlist-no-data">
          {quote.message}
        </td>
      ) : (
        <>
          <LivePriceCells quote={quote} />
          <td className="px-1 py-1">
            <Sparkline ticker={quote.ticker} closes={quote.sparkline} />
          </td>
        </>
      )}
      <td className="hidden px-1 py-1 whitespace-nowrap @lg:table-cell">
        {alert ? (
          <span title={alert.message}>
            <span className={ALERT_COLOURS[alertDisplayType(alert.type, alert.message)]}>
              {alertTypeLabel(alert.type)}
            </span>{' '}
            <time dateTime={alert.time} className="text-gray-400">
              {shortTime(alert.time)}
            </time>
          </span>
        ) : (
          <span className="text-gray-400">-</span>
        )}
      </td>
    </>
  );
}
