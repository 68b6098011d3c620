// The watchlist alerts panel (docs/SPEC.md): the watchlist as a table (issue 17: last price,
// change since the session open, sparkline, latest alert; a row opens the symbol's own chart) or,
// by the Table / Chips switch, as symbol chips saved per user (AAPL, TSLA, BTC, ETH to
// start), a plus button with Add / Cancel (a type-ahead suggests plain tickers; a typed symbol the
// symbol table does not know is explained, not added), and the latest real alerts for those symbols,
// coloured by type. The speaker icon reads new alerts aloud; the candlestick 'Chart' button opens
// the symbol's chart; a chip's bell opens the alert-rule form for that symbol at its last price. Every symbol of the symbol table (crypto, stocks, ETFs, indices, futures) is tracked;
// a saved symbol the table does not know says so, in the table's words, instead of showing
// invented alerts.
import { Panel } from '../../ui/Panel.tsx';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { DEFAULT_ALERTS_WATCHLIST } from '../../../shared/constants.ts';
import { alertTimeLabel, toAlertDisplayItem, type AlertRecord } from '../../../shared/alertDisplay.ts';
import { resolveSymbol as resolveLocally, unknownSymbolMessage } from '../../../shared/symbols.ts';
import { symbolByTicker } from '../../../shared/tickers.ts';
import { ApiError } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { useNotify } from '../../ui/Notifications.tsx';
import { BellIcon, useRuleEditor } from '../rules/index.ts';
import { resolveSymbol } from '../../api/symbols.ts';
import { SymbolSearch } from '../../ui/SymbolSearch.tsx';
import { useSavedWatchlist, useWatchlistView, WatchlistTable, WatchlistViewToggle } from '../watchlist/index.ts';
import { ChartIcon } from '../market/index.ts';
import { fetchAlerts } from './alertApi.ts';
import { TYPE_STYLES } from './AlertLog.tsx';

/**
 * How far back the panel looks, per symbol (its latest three alerts in that time). Stocks, ETFs
 * and indices only make alerts in their sessions, so a day would leave AAPL empty all weekend;
 * four days cover a weekend and a holiday Monday.
 */
const WINDOW_DAYS = 4;

/**
 * The plain ticker alerts are stored under for a saved symbol, or null when the symbol table
 * does not know it. Saved lists hold tickers ('AAPL', 'MES'); older or hand-typed entries in
 * another form ('BTC-USD', 'NASDAQ:AAPL') are resolved the same way the server does.
 */
function alertTickerOf(symbol: string): string | null {
  return (symbolByTicker(symbol) ?? resolveLocally(symbol))?.ticker ?? null;
}

function speak(text: string) {
  if ('speechSynthesis' in window) window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
}

export function WatchlistAlerts({
  onOpenChart,
}: {
  /** Opens the own candle chart of a symbol, given the symbol table's canonical id (BTC-USD, AAPL, MES1!). */
  onOpenChart?: (symbolId: string) => void;
}) {
  const notify = useNotify();
  const ruleEditor = useRuleEditor();
  const watchlist = useSavedWatchlist('alerts', DEFAULT_ALERTS_WATCHLIST, notify);
  const { symbols } = watchlist;
  const tracked = [...new Set(symbols.map(alertTickerOf).filter((ticker): ticker is string => ticker !== null))];
  const untracked = symbols.filter((symbol) => alertTickerOf(symbol) === null);
  const alerts = useQuery({
    queryKey: queryKeys.alerts.watchlist(tracked),
    enabled: tracked.length > 0,
    refetchInterval: 60_000,
    queryFn: async () => {
      const since = new Date(Date.now() - WINDOW_DAYS * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
      const lists = await Promise.all(
        tracked.map((symbol) =>
          fetchAlerts(new URLSearchParams({ symbol, max_count: '3', start_time: since }).toString()),
        ),
      );
      return lists.flat().sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    },
  });

  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState('');
  const [unknown, setUnknown] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [audio, setAudio] = useState(false);
  const spoken = useRef<Set<string>>(new Set());
  const unknownId = useId();
  const [view, setView] = useWatchlistView('alerts');

  useEffect(() => {
    if (!audio || !alerts.data) return;
    for (const alert of alerts.data) {
      const key = `${alert.ticker}-${alert.alert_type}-${alert.timestamp}`;
      if (spoken.current.has(key)) continue;
      spoken.current.add(key);
      speak(alert.message);
    }
  }, [audio, alerts.data]);

  /** A symbol's bell: the alert-rule form for it (issue 16), for symbols the table knows. */
  function bell(symbol: string) {
    if (!ruleEditor || alertTickerOf(symbol) === null) return null;
    return (
      <button
        type="button"
        aria-label={`Alert on ${symbol}`}
        title={`Alert: create an alert rule for ${symbol}`}
        // 24 px square at least, as the row's remove button: a touch target a finger can hit
        // (WCAG 2.5.8; Lighthouse's target-size audit found it 14 px).
        className="inline-flex min-h-6 min-w-6 items-center justify-center text-gray-400 hover:text-indigo-300"
        onClick={() => ruleEditor.open({ prefill: { symbol } })}
      >
        <BellIcon />
      </button>
    );
  }

  function remove(symbol: string) {
    watchlist.save(symbols.filter((entry) => entry !== symbol));
  }

  const addButton = (
    <button
      type="button"
      aria-label="Add symbol"
      onClick={() => setAdding(true)}
      className="rounded-full bg-indigo-600 px-2 py-0.5 text-sm font-bold text-white hover:bg-indigo-500"
    >
      +
    </button>
  );

  function close() {
    setAdding(false);
    setDraft('');
    setUnknown(null);
  }

  function save(symbol: string) {
    if (!symbols.includes(symbol)) watchlist.save([...symbols, symbol]);
    close();
  }

  /** A typed symbol: looked up first, so an unknown one is explained instead of added. */
  async function add() {
    const typed = draft.trim().toUpperCase();
    if (!typed || symbols.includes(typed) || checking) return;
    setChecking(true);
    try {
      const market = await resolveSymbol(typed);
      save(market.ticker);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) setUnknown(error.message);
      // The lookup itself failed (offline, server error): add as typed, as before the lookup existed.
      else save(typed);
    } finally {
      setChecking(false);
    }
  }

  return (
    <Panel
      headingId="watchlist-alerts-heading"
      title="Watchlist Alerts"
      className="flex h-full flex-col"
      headerClassName="flex items-center justify-between"
      data-tour="watchlist-alerts"
      header={
        <>
          <WatchlistViewToggle view={view} onChange={setView} label="Alert watchlist view" />
          <button
            type="button"
            aria-pressed={audio}
            title={audio ? 'Stop reading new alerts aloud' : 'Read new alerts aloud'}
            onClick={() => {
              // Alerts already on screen are not news: only later ones are spoken.
              for (const alert of alerts.data ?? [])
                spoken.current.add(`${alert.ticker}-${alert.alert_type}-${alert.timestamp}`);
              setAudio(!audio);
            }}
            className={`rounded px-2 py-1 text-sm ${audio ? 'bg-indigo-600 text-white' : 'text-gray-400 hover:text-white'}`}
          >
            <svg aria-hidden viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
              <path d="M11 5 6 9H2v6h4l5 4V5z" />
              <path d="M15.5 8.5a5 5 0 0 1 0 7M19 5a10 10 0 0 1 0 14" />
            </svg>
            <span className="sr-only">Audio alerts</span>
          </button>
        </>
      }
    >
      {view === 'table' && (
        <div className="mt-2 max-h-80 shrink-0 overflow-y-auto" tabIndex={0} role="region" aria-label="Watchlist table">
          <WatchlistTable
            symbols={symbols}
            label="Alert watchlist"
            onOpen={(_symbol, symbolId) => {
              if (symbolId) onOpenChart?.(symbolId);
            }}
            onRemove={remove}
            rowActions={bell}
          />
          <div className="mt-1">{addButton}</div>
        </div>
      )}
      <ul hidden={view !== 'chips'} className="mt-2 flex flex-wrap gap-2" aria-label="Alert watchlist">
        {symbols.map((symbol) => (
          <li key={symbol} className="flex items-center gap-1 rounded-full bg-gray-800 px-2 py-0.5 text-sm text-white">
            {symbol}
            {bell(symbol)}
            <button
              type="button"
              aria-label={`Remove ${symbol}`}
              className="text-gray-400 hover:text-red-400"
              onClick={() => remove(symbol)}
            >
              ×
            </button>
          </li>
        ))}
        <li>{addButton}</li>
      </ul>
      {adding && (
        <form
          className="mt-2 flex gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void add();
          }}
        >
          <div className="min-w-0 flex-1">
            <SymbolSearch
              autoFocus
              form="ticker"
              label="Symbol to add"
              value={draft}
              onChange={(value) => {
                setDraft(value);
                setUnknown(null);
              }}
              onPick={save}
              placeholder="e.g. SOL"
              describedBy={unknown ? unknownId : undefined}
              className="w-full rounded border border-gray-700 bg-gray-800 px-2 py-1 text-sm text-white"
            />
          </div>
          <button
            type="submit"
            disabled={checking}
            className="rounded bg-indigo-600 px-2 py-1 text-sm text-white disabled:opacity-60"
          >
            Add
          </button>
          <button
            type="button"
            className="rounded border border-gray-600 px-2 py-1 text-sm text-gray-300"
            onClick={close}
          >
            Cancel
          </button>
        </form>
      )}
      {adding && unknown && (
        <p id={unknownId} role="alert" className="mt-1 text-xs text-amber-300">
          {unknown}
        </p>
      )}
      <div
        className="mt-3 min-h-0 flex-1 space-y-2 overflow-y-auto"
        tabIndex={0}
        role="region"
        aria-label="Alerts for your watchlist"
      >
        {untracked.map((symbol) => (
          <p key={symbol} className="text-xs text-gray-400" data-testid="no-market-data">
            {unknownSymbolMessage(symbol)}
          </p>
        ))}
        {tracked.length > 0 && alerts.isPending && <p className="text-sm text-gray-400">Loading alerts...</p>}
        {alerts.data?.length === 0 && (
          <p className="text-sm text-gray-400">No alerts for your symbols in the last {WINDOW_DAYS} days</p>
        )}
        <ul className="space-y-2">
          {alerts.data?.map((alert: AlertRecord) => {
            const item = toAlertDisplayItem(alert);
            const style = TYPE_STYLES[item.type];
            return (
              <li
                key={`${alert.ticker}-${alert.alert_type}-${alert.timestamp}`}
                className="flex gap-2 rounded border border-gray-800 bg-gray-800/50 p-2"
                data-testid="watchlist-alert"
                data-symbol={item.symbol}
                data-type={item.type}
              >
                <span className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${style.dot}`} aria-hidden />
                <div className="min-w-0 flex-1">
                  <div className="flex items-center gap-2 text-xs">
                    <span className="font-bold text-white">{item.symbol}</span>
                    <span className={style.text}>{style.label}</span>
                    <time className="ml-auto text-gray-400" title={item.fullDate}>
                      {alertTimeLabel(alert.timestamp)}
                    </time>
                  </div>
                  <p className="text-sm text-gray-200">{item.content}</p>
                </div>
                <button
                  type="button"
                  title="Open chart"
                  onClick={() => {
                    // The alert's plain ticker to the table's canonical id: BTC gives BTC-USD, MES gives MES1!.
                    const symbolId = symbolByTicker(item.symbol)?.id;
                    if (symbolId) onOpenChart?.(symbolId);
                  }}
                  className="flex shrink-0 items-center gap-1 self-start rounded px-1 text-[11px] text-gray-400 hover:text-white"
                >
                  <ChartIcon />
                  <span aria-hidden="true">Chart</span>
                  <span className="sr-only">Open the {item.symbol} chart</span>
                </button>
              </li>
            );
          })}
        </ul>
      </div>
    </Panel>
  );
}
