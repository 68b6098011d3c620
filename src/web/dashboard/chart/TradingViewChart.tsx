// The professional charting widget: TradingView's embedded advanced chart, built from the
// watchlist (first symbol the main chart, the rest in its watchlist) with docs/SPEC.md's settings.
// Every watchlist change removes the old script and iframe before loading the new one.
import { useEffect, useRef } from 'react';

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

  useEffect(() => {
    const host = container.current;
    if (!host) return;
    const widget = document.createElement('div');
    widget.className = 'tradingview-widget-container__widget';
    widget.style.height = '650px';
    const script = document.createElement('script');
    script.src = TRADINGVIEW_SCRIPT_URL;
    script.type = 'text/javascript';
    script.async = true;
    script.textContent = JSON.stringify(tradingViewConfig(key.split(',').filter(Boolean)));
    script.onerror = () => console.error('TradingView widget failed to load');
    host.replaceChildren(widget, script);
    return () => host.replaceChildren();
  }, [key]);

  return (
    <div
      ref={container}
      className="tradingview-widget-container h-[650px] w-full"
      data-testid="tradingview-container"
      data-tour="tradingview"
    />
  );
}
