// @vitest-environment jsdom
// The own candle chart on every market (issue 15), over a stubbed fetch (the chart library is
// replaced: jsdom has no canvas): the "Demo data" and "Delayed" labels follow the candle
// response's source, the header names the market and its class, and the symbol picker charts
// any table symbol by name, ticker or EXCHANGE:SYMBOL, and explains one the table does not know.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { marketSymbolView } from '../../../shared/schemas/symbols.ts';
import { searchSymbols, toTradingView, unknownSymbolMessage } from '../../../shared/symbols.ts';
import { CandleChart } from './CandleChart.tsx';
import { ChartSymbolPicker } from './ChartSymbolPicker.tsx';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';

vi.mock('lightweight-charts', () => {
  const series = { setData: vi.fn(), coordinateToPrice: vi.fn() };
  return {
    CandlestickSeries: {},
    ColorType: { Solid: 'solid' },
    createChart: () => ({
      addSeries: () => series,
      timeScale: () => ({ fitContent: vi.fn() }),
      subscribeClick: vi.fn(),
      remove: vi.fn(),
    }),
    createSeriesMarkers: vi.fn(),
  };
});

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** Answers the candles route with one bar from `source`, and the type-ahead from the shared table. */
function stubServer(source: string | null, assetClass: string) {
  const asked: URL[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = requestedUrl(input);
      asked.push(url);
      if (url.pathname === '/api/market/candles')
        return json(200, {
          symbol: url.searchParams.get('symbol'),
          granularity: 3600,
          source,
          assetClass,
          candles: [{ time: '2026-11-24T15:00:00.000Z', open: 1, high: 2, low: 0.5, close: 1.5, volume: 10 }],
          alerts: [],
        });
      if (url.pathname === '/api/symbols/search')
        return json(200, {
          symbols: searchSymbols(url.searchParams.get('q') ?? '', 8).map((symbol) =>
            marketSymbolView.parse({ ...symbol, tradingView: toTradingView(symbol) }),
          ),
        });
      return json(404, { error: 'not stubbed' });
    }),
  );
  return asked;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the candle chart labels', () => {
  it('labels Yahoo Finance bars Delayed and names the market', async () => {
    const asked = stubServer('yahoo', 'stock');
    render(withClient(<CandleChart productId="AAPL" onClose={() => undefined} />));
    const chart = screen.getByRole('dialog', { name: 'AAPL chart' });
    expect(await within(chart).findByText('Delayed')).toBeTruthy();
    expect(within(chart).queryByText('Demo data')).toBeNull();
    expect(within(chart).getByTestId('chart-market').textContent).toBe('Apple · Stock');
    expect(within(chart).getByText('0 alerts marked')).toBeTruthy();
    expect(asked.find((url) => url.pathname === '/api/market/candles')?.searchParams.get('symbol')).toBe('AAPL');
  });

  it('labels demo bars Demo data, not Delayed', async () => {
    stubServer('demo', 'micro-future');
    render(withClient(<CandleChart productId="MES1!" onClose={() => undefined} />));
    const chart = screen.getByRole('dialog', { name: 'MES1! chart' });
    expect(await within(chart).findByText('Demo data')).toBeTruthy();
    expect(within(chart).queryByText('Delayed')).toBeNull();
    expect(within(chart).getByTestId('chart-market').textContent).toBe('Micro E-mini S&P 500 · Micro future');
  });

  it('gives real-time Coinbase bars neither label', async () => {
    stubServer('coinbase', 'crypto');
    render(withClient(<CandleChart productId="BTC-USD" onClose={() => undefined} />));
    const chart = screen.getByRole('dialog', { name: 'BTC-USD chart' });
    expect(await within(chart).findByText('0 alerts marked')).toBeTruthy();
    expect(within(chart).queryByText('Delayed')).toBeNull();
    expect(within(chart).queryByText('Demo data')).toBeNull();
  });
});

describe('the chart symbol picker', () => {
  it('charts a table symbol picked by name, or typed in any form, and explains an unknown one', async () => {
    stubServer('demo', 'crypto');
    const onChart = vi.fn();
    render(withClient(<ChartSymbolPicker label="Chart any symbol" onChart={onChart} />));
    const input = screen.getByRole('combobox', { name: 'Chart any symbol' });

    fireEvent.change(input, { target: { value: 'Micro E-mini' } });
    const option = await screen.findByRole('option', { name: /Micro E-mini S&P 500/ });
    fireEvent.click(option);
    expect(onChart).toHaveBeenLastCalledWith('MES1!');
    expect((input as HTMLInputElement).value).toBe('');

    fireEvent.change(input, { target: { value: 'nasdaq:aapl' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onChart).toHaveBeenLastCalledWith('AAPL');

    fireEvent.change(input, { target: { value: 'zzqx' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    const message = screen.getByRole('alert');
    expect(message.textContent).toBe(unknownSymbolMessage('zzqx'));
    expect(input.getAttribute('aria-describedby')).toBe(message.id);
    expect(onChart).toHaveBeenCalledTimes(2);
  });
});
