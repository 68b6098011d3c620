// @vitest-environment jsdom
// No blank boxes (issue 17): when the TradingView script cannot load (its error event, or no load
// event within the timeout) the panel shows our own candle chart of the first watchlist symbol
// with a notice, and Retry adds the script again. A script that loaded is success even if it
// builds nothing. The Barchart widget says it could not load and offers Retry. jsdom fetches no
// scripts: the tests fire the script's events themselves. The chart library is replaced (jsdom
// has no canvas).
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { BarchartPanel, BARCHART_SCRIPT_URL } from './BarchartPanel.tsx';
import { SCRIPT_TIMEOUT_MS } from './scriptWatch.ts';
import { TRADINGVIEW_SCRIPT_URL, TradingViewChart } from './TradingViewChart.tsx';

vi.mock('lightweight-charts', () => ({
  CandlestickSeries: {},
  ColorType: { Solid: 'solid' },
  createChart: () => ({
    addSeries: () => ({ setData: vi.fn() }),
    timeScale: () => ({ fitContent: vi.fn() }),
    remove: vi.fn(),
  }),
  createSeriesMarkers: vi.fn(),
}));

const NOTICE = 'TradingView could not load (blocked or offline). Showing our own chart of AAPL.';

function tradingViewScripts(): HTMLScriptElement[] {
  return [...document.querySelectorAll<HTMLScriptElement>(`script[src="${TRADINGVIEW_SCRIPT_URL}"]`)];
}

function fire(script: HTMLScriptElement | undefined, type: 'load' | 'error') {
  act(() => {
    script!.dispatchEvent(new Event(type));
  });
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = requestedUrl(input);
      return new Response(
        JSON.stringify({
          symbol: url.searchParams.get('symbol'),
          granularity: 3600,
          source: 'demo',
          assetClass: 'stock',
          candles: [],
          alerts: [],
        }),
        { status: 200, headers: { 'Content-Type': 'application/json' } },
      );
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

describe('the TradingView panel when the script cannot load', () => {
  it('falls back to our own chart on the script error event, and Retry adds the script again', () => {
    render(withClient(<TradingViewChart symbols={['NASDAQ:AAPL', 'NASDAQ:TSLA']} />));
    expect(tradingViewScripts()).toHaveLength(1);
    expect(screen.queryByTestId('tradingview-fallback')).toBeNull();

    fire(tradingViewScripts()[0], 'error');
    expect(screen.getByRole('status').textContent).toContain(NOTICE);
    expect(screen.getByRole('dialog', { name: 'AAPL chart' })).toBeTruthy();
    expect(screen.getByTestId('tradingview-container').hidden).toBe(true);

    const failedScript = tradingViewScripts()[0];
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    const scripts = tradingViewScripts();
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).not.toBe(failedScript);
    expect(screen.queryByTestId('tradingview-fallback')).toBeNull();
    expect(screen.queryByRole('dialog', { name: 'AAPL chart' })).toBeNull();
    expect(screen.getByTestId('tradingview-container').hidden).toBe(false);

    fire(scripts[0], 'load');
    expect(screen.queryByTestId('tradingview-fallback')).toBeNull();
  });

  it('falls back when the script never arrives within the timeout, but not once it has loaded', () => {
    vi.useFakeTimers();
    render(withClient(<TradingViewChart symbols={['BINANCE:BTCUSDT']} />));
    act(() => {
      vi.advanceTimersByTime(SCRIPT_TIMEOUT_MS - 1);
    });
    expect(screen.queryByTestId('tradingview-fallback')).toBeNull();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByRole('status').textContent).toContain(
      'TradingView could not load (blocked or offline). Showing our own chart of BTC-USD.',
    );
    expect(screen.getByRole('dialog', { name: 'BTC-USD chart' })).toBeTruthy();

    // Retry, and this time the script loads (a stub that builds no widget still counts).
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(tradingViewScripts()).toHaveLength(1);
    fire(tradingViewScripts()[0], 'load');
    act(() => {
      vi.advanceTimersByTime(SCRIPT_TIMEOUT_MS * 3);
    });
    expect(screen.queryByTestId('tradingview-fallback')).toBeNull();
  });

  it('a script that arrives after the timeout clears the notice', () => {
    vi.useFakeTimers();
    render(withClient(<TradingViewChart symbols={['NASDAQ:AAPL']} />));
    act(() => {
      vi.advanceTimersByTime(SCRIPT_TIMEOUT_MS);
    });
    expect(screen.getByTestId('tradingview-fallback')).toBeTruthy();
    fire(tradingViewScripts()[0], 'load');
    expect(screen.queryByTestId('tradingview-fallback')).toBeNull();
  });

  it('says so without an own chart for a symbol we have no data for, and closing our chart keeps Retry', () => {
    const { unmount } = render(withClient(<TradingViewChart symbols={['LSE:VOD']} />));
    fire(tradingViewScripts()[0], 'error');
    expect(screen.getByRole('status').textContent).toContain(
      'TradingView could not load (blocked or offline). We have no chart of our own for LSE:VOD.',
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    unmount();

    render(withClient(<TradingViewChart symbols={['NASDAQ:AAPL']} />));
    fire(tradingViewScripts()[0], 'error');
    fireEvent.click(screen.getByRole('button', { name: 'Close chart' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show our chart' }));
    expect(screen.getByRole('dialog', { name: 'AAPL chart' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});

describe('the Barchart widget when its script cannot load', () => {
  function barchartScripts(): HTMLScriptElement[] {
    return [...document.querySelectorAll<HTMLScriptElement>(`script[src="${BARCHART_SCRIPT_URL}"]`)];
  }

  function loadWidget() {
    render(withClient(<BarchartPanel open />));
    fireEvent.change(screen.getByLabelText('API Key'), { target: { value: 'my-key' } });
    fireEvent.click(screen.getByRole('button', { name: 'Load Barchart Widget' }));
    expect(barchartScripts()).toHaveLength(1);
  }

  it('says it could not load on the error event, and Retry adds the script again', () => {
    loadWidget();
    fire(barchartScripts()[0], 'error');
    expect(screen.getByRole('status').textContent).toContain(
      'The Barchart widget could not load (blocked or offline).',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(barchartScripts()).toHaveLength(1);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says it could not load after the timeout, not when the script loaded', () => {
    vi.useFakeTimers();
    loadWidget();
    act(() => {
      vi.advanceTimersByTime(SCRIPT_TIMEOUT_MS);
    });
    expect(screen.getByTestId('barchart-fallback')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    fire(barchartScripts()[0], 'load');
    act(() => {
      vi.advanceTimersByTime(SCRIPT_TIMEOUT_MS * 2);
    });
    expect(screen.queryByTestId('barchart-fallback')).toBeNull();
  });
});
