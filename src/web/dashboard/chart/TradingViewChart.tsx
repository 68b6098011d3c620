// The professional charting widget: TradingView's embedded advanced chart, built from the
// watchlist (first symbol the main chart, the rest in its watchlist) with docs/SPEC.md's settings.
// Every watchlist change removes the old script and iframe before loading the new one.
// When the script cannot load (its error event, or no load within SCRIPT_TIMEOUT_MS: offline,
// an ad blocker, a very slow network) the panel shows our own candle chart of the watchlist's
// first symbol with a one-line notice and a Retry that adds the script again.
import { useEffect, useRef, useState } from 'react';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { CandleChart } from '../market/index.ts';
import { watchScript } from './scriptWatch.ts';

export const TRADINGVIEW_SCRIPT_URL = 'https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js';

export function tradingViewConfig(symbols: readonly string[]) {
  return {
    width: '100%',
    height: 650,
    symbol: symbols[0] ?? 'NASDAQ:AAPL',
    watchlist: symbols.slice(1),
    interval: 'D',
    timezone: 'Etc/UTC',
    theme: 'dark',
    style: '1',
    locale: 'en',
    studies: ['STD;SMA'],
    details: true,
    hotlist: true,
    calendar: false,
    allow_symbol_change: true,
    support_host: 'https://www.tradingview.com',
  };
}

export function TradingViewChart({ symbols }: { symbols: readonly string[] }) {
  const container = useRef<HTMLDivElement>(null);
  const key = symbols.join(',');
  const [attempt, setAttempt] = useState(0);
  // The attempt (watchlist and try) whose script failed; a new watchlist or a Retry starts afresh.
  const [failedAttempt, setFailedAttempt] = useState<string | null>(null);
  const [ownChartClosed, setOwnChartClosed] = useState(false);
  const current = `${attempt}|${key}`;
  const failed = failedAttempt === current;

  useEffect(() => {
    const host = container.current;
    if (!host) return;
    const token = `${attempt}|${key}`;
    const widget = document.createElement('div');
    widget.className = 'tradingview-widget-container__widget';
    widget.style.height = '650px';
    const script = document.createElement('script');
    script.src = TRADINGVIEW_SCRIPT_URL;
    script.type = 'text/javascript';
    script.async = true;
    script.textContent = JSON.stringify(tradingViewConfig(key.split(',').filter(Boolean)));
    const stop = watchScript(script, {
      onLoad: () => setFailedAttempt((previous) => (previous === token ? null : previous)),
      onFail: (reason) => {
        console.error(`TradingView widget failed to load (${reason})`);
        setFailedAttempt(token);
      },
    });
    host.replaceChildren(widget, script);
    return () => {
      stop();
      host.replaceChildren();
    };
  }, [key, attempt]);

  const first = symbols[0] ?? 'NASDAQ:AAPL';
  const market = resolveSymbol(first);

  return (
    <div className="w-full" data-tour="tradingview">
      {failed && (
        <div
          role="status"
          className="mb-2 flex flex-wrap items-center gap-3 rounded border border-amber-700 bg-amber-950/50 px-3 py-2 text-sm text-amber-200"
          data-testid="tradingview-fallback"
        >
          <span>
            TradingView could not load (blocked or offline).{' '}
            {market ? `Showing our own chart of ${market.id}.` : `We have no chart of our own for ${first}.`}
          </span>
          {market && ownChartClosed && (
            <button
              type="button"
              className="rounded border border-amber-600 px-2 py-0.5 text-amber-100 hover:bg-amber-900"
              onClick={() => setOwnChartClosed(false)}
            >
              Show our chart
            </button>
          )}
          <button
            type="button"
            className="rounded bg-indigo-600 px-3 py-0.5 font-semibold text-white hover:bg-indigo-500"
            onClick={() => {
              setOwnChartClosed(false);
              setAttempt((value) => value + 1);
            }}
          >
            Retry
          </button>
        </div>
      )}
      {failed && market && !ownChartClosed && (
        <div className="relative h-[650px]" data-testid="tradingview-own-chart">
          <CandleChart productId={market.id} onClose={() => setOwnChartClosed(true)} />
        </div>
      )}
      <div
        ref={container}
        hidden={failed}
        className="tradingview-widget-container h-[650px] w-full"
        data-testid="tradingview-container"
      />
    </div>
  );
}
