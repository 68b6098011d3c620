// The chart watchlist controls: the watchlist as a table (prices, change, sparkline, latest
// alert; a row opens its chart) or, by the Table / Chips switch, as symbol chips with remove
// buttons and a chart icon (the own candle chart of a symbol the table knows); an input with
// Add (Enter also adds) and a type-ahead whose picks add their EXCHANGE:SYMBOL form, the format
// hint and a help tooltip. The first symbol is the main chart until a row makes another one
// the main chart.
import { useState } from 'react';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { HelpTooltip } from '../../ui/HelpTooltip.tsx';
import { ChartIcon } from '../market/index.ts';
import { SymbolSearch } from '../../ui/SymbolSearch.tsx';
import { useWatchlistView } from './watchlistQuotes.ts';
import { WatchlistTable, WatchlistViewToggle } from './WatchlistTable.tsx';

export function ChartWatchlist({
  symbols,
  onAdd,
  onRemove,
  onOpenChart,
  onOpen,
  current = symbols[0],
}: {
  symbols: string[];
  onAdd: (input: string) => { added: boolean; alert?: string };
  onRemove: (symbol: string) => void;
  /** Opens the own candle chart, given the symbol table's canonical id (NASDAQ:AAPL gives AAPL). */
  onOpenChart?: (symbolId: string) => void;
  /** Makes a symbol the TradingView chart's main symbol (a table row's click or Enter). */
  onOpen?: (symbol: string) => void;
  /** The main chart's symbol. */
  current?: string;
}) {
  const [view, setView] = useWatchlistView('chart');
  const [input, setInput] = useState('');
  // The format error (docs/SPEC.md's alert text) beside the input rather than a timed toast: it
  // stays while it is true and goes once the input changes or an add succeeds.
  const [error, setError] = useState<string | null>(null);

  function add(symbol = input) {
    const result = onAdd(symbol);
    if (result.alert) {
      setError(result.alert);
      return;
    }
    setError(null);
    setInput('');
  }

  /** The own candle chart of a symbol the table knows (a chip's or a table row's action). */
  const chartButton = (symbol: string) => {
    const known = onOpenChart ? resolveSymbol(symbol) : null;
    if (!onOpenChart || !known) return null;
    return (
      <button
        type="button"
        title={`Open the ${symbol} chart`}
        aria-label={`Open the ${symbol} chart`}
        // 24 px square at least: a touch target a finger can hit (WCAG 2.5.8).
        className="flex min-h-6 min-w-6 items-center justify-center text-gray-300 hover:text-white"
        onClick={() => onOpenChart(known.id)}
      >
        <ChartIcon className="h-3.5 w-3.5" />
      </button>
    );
  };

  return (
    <div className="flex flex-wrap items-center gap-2" data-tour="watchlist">
      {view === 'table' && (
        <WatchlistTable
          symbols={symbols}
          label="Chart watchlist"
          current={current}
          onOpen={(symbol) => onOpen?.(symbol)}
          onRemove={onRemove}
          rowActions={chartButton}
        />
      )}
      <ul hidden={view !== 'chips'} className="flex flex-wrap gap-1.5" aria-label="Chart watchlist">
        {symbols.map((symbol) => (
          <li
            key={symbol}
            className={`flex items-center gap-1 rounded-full px-2 py-0.5 text-xs ${symbol === current ? 'bg-indigo-700 text-white' : 'bg-gray-800 text-gray-200'}`}
          >
            {symbol}
            {chartButton(symbol)}
            <button
              type="button"
              aria-label={`Remove ${symbol}`}
              className="text-gray-400 hover:text-red-400"
              onClick={() => onRemove(symbol)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap items-center gap-1">
        <SymbolSearch
          keyShortcut="/"
          form="tradingView"
          label="Add symbol to the chart watchlist"
          value={input}
          onChange={(value) => {
            setInput(value);
            setError(null);
          }}
          onEnter={() => add()}
          onPick={(symbol) => add(symbol)}
          placeholder="EXCHANGE:SYMBOL"
          className="w-40 rounded border border-gray-700 bg-gray-800 px-2 py-1 text-xs text-white"
        />
        <button
          type="button"
          onClick={() => add()}
          className="rounded bg-indigo-600 px-2 py-1 text-xs font-semibold text-white hover:bg-indigo-500"
        >
          Add
        </button>
        <span className="text-[11px] text-gray-400">Format: EXCHANGE:SYMBOL, e.g. NASDAQ:AAPL</span>
        {/* Opening to the left: centred above the '?' at the row's end, its 256px ran past a
            phone's right edge and scrolled the whole page sideways at 390px. */}
        <WatchlistViewToggle view={view} onChange={setView} label="Chart watchlist view" />
        <HelpTooltip placement="left">
          Add symbols as EXCHANGE:SYMBOL (for example NASDAQ:AAPL or BINANCE:BTCUSDT), or type a ticker or name (Apple,
          Micro E-mini) and pick a suggestion, and remove them with ×. The first symbol is the main chart; the rest
          appear in the chart&apos;s watchlist. In the table, click a row (or press Enter on it) to make it the main
          chart; Table / Chips switches between the table and the compact chips. The chart reloads on every change, and
          your list is saved to your account.
        </HelpTooltip>
      </div>
      {error ? (
        <p role="alert" className="w-full text-xs text-amber-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
