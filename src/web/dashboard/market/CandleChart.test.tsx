// @vitest-environment jsdom
// The own candle chart on every market (issue 15), over a stubbed fetch (the chart library is
// replaced: jsdom has no canvas): the "Demo data" and "Delayed" labels follow the candle
// response's source, the header names the market and its class, and the symbol picker charts
// any table symbol by name, ticker or EXCHANGE:SYMBOL, and explains one the table does not know;
// the timeframe and overlay controls ask the server for those bars, the legend shows the hovered
// bar's O H L C V (the last one otherwise) and the trader's active alert levels become price lines.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertRule } from '../../../shared/schemas/alertRules.ts';
import { marketSymbolView } from '../../../shared/schemas/symbols.ts';
import { searchSymbols, toTradingView, unknownSymbolMessage } from '../../../shared/symbols.ts';
import { CandleChart } from './CandleChart.tsx';
import { ChartSymbolPicker } from './ChartSymbolPicker.tsx';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { FakeEventSource, tickOf, urlSymbols, withLive } from '../../live/testLive.tsx';

const chartMock = vi.hoisted(() => ({
  crosshair: null as null | ((param: { time?: number }) => void),
  priceLines: [] as Array<{ price: number; title: string }>,
  removedPriceLines: 0,
  timeScale: { fitContent: 0, ranges: [] as Array<{ from: number; to: number }> },
  /** series.update calls of the candle and volume series (the first two a chart adds). */
  updates: { candles: [] as unknown[], volume: [] as unknown[] },
}));

vi.mock('lightweight-charts', () => {
  const series = (index: number) => ({
    setData: vi.fn(),
    update: vi.fn((bar: unknown) => {
      if (index === 0) chartMock.updates.candles.push(bar);
      if (index === 1) chartMock.updates.volume.push(bar);
    }),
    coordinateToPrice: vi.fn(),
    createPriceLine: vi.fn((options: { price: number; title: string }) => {
      chartMock.priceLines.push({ price: options.price, title: options.title });
      return options;
    }),
    removePriceLine: vi.fn(() => {
      chartMock.removedPriceLines += 1;
    }),
  });
  return {
    CandlestickSeries: {},
    HistogramSeries: {},
    LineSeries: {},
    LineStyle: { Solid: 0, Dashed: 2 },
    ColorType: { Solid: 'solid' },
    createChart: () => {
      let added = 0;
      return {
        addSeries: () => series(added++),
        removeSeries: vi.fn(),
        panes: () => [0, 1, 2].map(() => ({ setStretchFactor: vi.fn() })),
        timeScale: () => ({
          fitContent: () => {
            chartMock.timeScale.fitContent += 1;
          },
          getVisibleLogicalRange: () => ({ from: 0.5, to: 1 }),
          setVisibleLogicalRange: (range: { from: number; to: number }) => {
            chartMock.timeScale.ranges.push(range);
          },
        }),
        subscribeClick: vi.fn(),
        subscribeCrosshairMove: (callback: (param: { time?: number }) => void) => {
          chartMock.crosshair = callback;
        },
        remove: vi.fn(),
      };
    },
    createSeriesMarkers: () => ({ setMarkers: vi.fn() }),
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
          timeframe: '1h',
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

describe('closing the chart', () => {
  function Opener({ onClose }: { onClose: () => void }) {
    const [open, setOpen] = useState(false);
    return (
      <>
        <button type="button" onClick={() => setOpen(true)}>
          BTC-USD card
        </button>
        {open && <CandleChart productId="BTC-USD" onClose={onClose} />}
      </>
    );
  }

  it('Escape inside the chart closes it and gives focus back to what opened it', async () => {
    stubServer('demo', 'crypto');
    const onClose = vi.fn();
    render(withClient(<Opener onClose={onClose} />));
    const opener = screen.getByRole('button', { name: 'BTC-USD card' });
    opener.focus();
    fireEvent.click(opener);
    const chart = screen.getByRole('dialog', { name: 'BTC-USD chart' });
    await within(chart).findByText('0 alerts marked');
    // An Escape outside the chart is not the chart's.
    fireEvent.keyDown(opener, { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    const timeframe = within(chart).getByRole('button', { name: '4h' });
    timeframe.focus();
    expect(fireEvent.keyDown(timeframe, { key: 'Escape' })).toBe(false);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(opener);
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

const HOUR_BARS = [
  { time: '2026-11-24T12:00:00.000Z', open: 100, high: 104, low: 99, close: 103, volume: 1200 },
  { time: '2026-11-24T13:00:00.000Z', open: 103, high: 106, low: 101.5, close: 102, volume: 2500000 },
];

function rule(id: number, symbol: string, status: AlertRule['status'], condition: AlertRule['condition']): AlertRule {
  return {
    id,
    name: `Rule ${id}`,
    symbol,
    ticker: symbol.split('-')[0]!,
    timeframe: '1h',
    condition,
    trigger: 'once',
    expiresAt: null,
    message: null,
    channels: ['in_app'],
    webhookUrl: null,
    status,
    description: '',
    triggerCount: 0,
    lastTriggeredAt: null,
    createdAt: '2026-11-24T00:00:00.000Z',
    updatedAt: '2026-11-24T00:00:00.000Z',
  };
}

/** Answers the candles route per timeframe (two bars, SMA 20 null then 101.25, RSI 55.5) and the rules route. */
function stubChartServer(rules: AlertRule[] = [], { newCloseEachTime = false } = {}) {
  const asked: URL[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = requestedUrl(input);
      asked.push(url);
      if (url.pathname === '/api/market/candles') {
        const overlays = (url.searchParams.get('overlays') ?? '').split(',').filter(Boolean);
        return json(200, {
          symbol: url.searchParams.get('symbol'),
          timeframe: url.searchParams.get('timeframe'),
          granularity: url.searchParams.get('timeframe') === '4h' ? 14_400 : 3600,
          source: 'demo',
          assetClass: 'crypto',
          // A refresh with a moved last close, when asked, so the answer is a new one.
          candles: newCloseEachTime
            ? HOUR_BARS.map((bar, index) => (index === 1 ? { ...bar, close: bar.close + asked.length / 100 } : bar))
            : HOUR_BARS,
          overlays: overlays.map((id) => ({
            id,
            label: id.toUpperCase(),
            lines: [{ name: id.toUpperCase(), values: [null, 101.25] }],
          })),
          rsi: url.searchParams.has('rsi') ? { period: 14, values: [null, 55.5] } : null,
          alerts: [],
        });
      }
      if (url.pathname === '/api/alert-rules' && url.searchParams.get('status') === 'active')
        return json(200, {
          rules,
          nextCursor: null,
          activeCount: rules.length,
          maxActive: 50,
          totalCount: rules.length,
          maxTotal: 500,
        });
      return json(404, { error: 'not stubbed' });
    }),
  );
  return asked;
}

const candleRequests = (asked: URL[]) => asked.filter((url) => url.pathname === '/api/market/candles');

describe('the own chart controls, legend and alert levels', () => {
  beforeEach(() => {
    chartMock.crosshair = null;
    chartMock.priceLines = [];
    chartMock.removedPriceLines = 0;
    chartMock.timeScale = { fitContent: 0, ranges: [] };
    chartMock.updates = { candles: [], volume: [] };
    FakeEventSource.reset();
    vi.stubGlobal('EventSource', FakeEventSource);
  });

  it('asks for 1h bars with SMA 20 and RSI 14 first, then the timeframe and overlays picked', async () => {
    const asked = stubChartServer();
    render(withClient(<CandleChart productId="BTC-USD" onClose={() => undefined} />));
    const chart = screen.getByRole('dialog', { name: 'BTC-USD chart' });
    await within(chart).findByTestId('chart-legend');
    const first = candleRequests(asked)[0]!.searchParams;
    expect(Object.fromEntries(first)).toEqual({
      symbol: 'BTC-USD',
      timeframe: '1h',
      limit: '300',
      overlays: 'sma20',
      rsi: '14',
    });
    const timeframes = within(chart).getByRole('group', { name: 'Timeframe' });
    expect(
      within(timeframes)
        .getAllByRole('button')
        .map((button) => button.textContent),
    ).toEqual(['1m', '5m', '15m', '1h', '4h', '1D']);
    expect(within(timeframes).getByRole('button', { name: '1h' }).getAttribute('aria-pressed')).toBe('true');

    fireEvent.click(within(timeframes).getByRole('button', { name: '4h' }));
    await vi.waitFor(() => expect(candleRequests(asked).at(-1)?.searchParams.get('timeframe')).toBe('4h'));
    expect(within(timeframes).getByRole('button', { name: '4h' }).getAttribute('aria-pressed')).toBe('true');
    expect(within(timeframes).getByRole('button', { name: '1h' }).getAttribute('aria-pressed')).toBe('false');

    const overlays = within(chart).getByRole('group', { name: 'Overlays' });
    fireEvent.click(within(overlays).getByRole('button', { name: 'BB 20,2' }));
    await vi.waitFor(() => expect(candleRequests(asked).at(-1)?.searchParams.get('overlays')).toBe('sma20,bb20'));
    fireEvent.click(within(overlays).getByRole('button', { name: 'SMA 20' }));
    await vi.waitFor(() => expect(candleRequests(asked).at(-1)?.searchParams.get('overlays')).toBe('bb20'));
    expect(candleRequests(asked).at(-1)?.searchParams.get('timeframe')).toBe('4h');
  });

  it('shows the last bar in the legend, the hovered bar under the crosshair, warm-up as a dash', async () => {
    stubChartServer();
    render(withClient(<CandleChart productId="BTC-USD" onClose={() => undefined} />));
    const legend = await screen.findByTestId('chart-legend');
    expect(legend.textContent).toBe(
      '2026-11-24 13:00 UTCO 103.00H 106.00L 101.50C 102.00V 2.5MSMA20 101.25RSI 14 55.50',
    );
    act(() => chartMock.crosshair?.({ time: Date.parse(HOUR_BARS[0]!.time) / 1000 }));
    expect(legend.textContent).toBe('2026-11-24 12:00 UTCO 100.00H 104.00L 99.00C 103.00V 1.2KSMA20 –RSI 14 –');
    act(() => chartMock.crosshair?.({}));
    expect(legend.textContent).toContain('C 102.00');
  });

  it('re-reads the bars when an alert on the symbol arrives on the live connection, keeping the view', async () => {
    const asked = stubChartServer([], { newCloseEachTime: true });
    render(withClient(withLive(<CandleChart productId="BTC-USD" onClose={() => undefined} />)));
    await screen.findByTestId('chart-legend');
    await vi.waitFor(() => expect(FakeEventSource.opened.map(urlSymbols)).toEqual([['BTC-USD']]));
    const before = candleRequests(asked).length;
    const alert = (id: number, ticker: string) => ({
      id,
      ticker,
      alert_type: 'BreakoutAlertGenerator',
      message: `${ticker} broke out`,
      timestamp: '2026-11-24 14:00:00',
      source: 'demo',
    });
    // Another symbol's alert changes nothing here.
    act(() => FakeEventSource.latest().emit('alert', alert(1, 'ETH')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(candleRequests(asked).length).toBe(before);
    act(() => FakeEventSource.latest().emit('alert', alert(2, 'BTC')));
    await vi.waitFor(() => expect(candleRequests(asked).length).toBe(before + 1));
    // The first bars fit the view once; the refresh puts back the trader's range (on the live edge).
    await vi.waitFor(() => expect(chartMock.timeScale.ranges).toEqual([{ from: 0.5, to: 1 }]));
    expect(chartMock.timeScale.fitContent).toBe(1);
  });

  it('moves the forming candle with each tick and labels the price Live', async () => {
    stubChartServer();
    render(withClient(withLive(<CandleChart productId="BTC-USD" onClose={() => undefined} />)));
    await screen.findByTestId('chart-legend');
    await vi.waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
    const at = (iso: string) => Date.parse(iso);
    const minute = at('2026-11-24T13:42:00Z');
    act(() =>
      FakeEventSource.latest().emit('ticks', [
        tickOf('BTC-USD', 106.5, { time: minute + 10_000, bar: [minute, 105, 106.8, 104.9, 106.5, 12] }),
      ]),
    );
    // The 13:00 hour (open 103, high 106, low 101.5) takes the forming minute's high in.
    const hour13 = at('2026-11-24T13:00:00Z') / 1000;
    expect(chartMock.updates.candles).toEqual([{ time: hour13, open: 103, high: 106.8, low: 101.5, close: 106.5 }]);
    expect(screen.getByTestId('live-state').textContent).toBe('Live');

    // The next hour's first tick starts a candle at the forming bar's open.
    const next = at('2026-11-24T14:00:00Z');
    act(() =>
      FakeEventSource.latest().emit('ticks', [
        tickOf('BTC-USD', 107.25, { time: next + 2000, bar: [next, 107, 107.3, 106.9, 107.25, 1] }),
      ]),
    );
    expect(chartMock.updates.candles.at(-1)).toEqual({
      time: next / 1000,
      open: 107,
      high: 107.3,
      low: 106.9,
      close: 107.25,
    });
    expect(chartMock.updates.volume.at(-1)).toEqual({ time: next / 1000, value: 1, color: '#22c55e80' });
  });

  it('draws the active price-cross levels and channel bounds of the rules on this symbol', async () => {
    stubChartServer([
      rule(1, 'BTC-USD', 'active', { kind: 'price_cross', direction: 'above', level: 105 }),
      rule(2, 'BTC-USD', 'active', { kind: 'channel', direction: 'exits', lower: 98, upper: 107 }),
      rule(3, 'BTC-USD', 'paused', { kind: 'price_cross', direction: 'below', level: 90 }),
      rule(4, 'ETH-USD', 'active', { kind: 'price_cross', direction: 'above', level: 4000 }),
      rule(5, 'BTC-USD', 'active', { kind: 'rsi', direction: 'above', level: 70, period: 14 }),
    ]);
    render(withClient(<CandleChart productId="BTC-USD" onClose={() => undefined} />));
    const list = await screen.findByRole('list', { name: 'Your alert levels' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Rule 1 (above): 105.00', 'Rule 2 (low): 98.00', 'Rule 2 (high): 107.00']);
    await vi.waitFor(() =>
      expect(chartMock.priceLines.filter((line) => line.title.startsWith('Rule'))).toEqual([
        { price: 105, title: 'Rule 1 (above)' },
        { price: 98, title: 'Rule 2 (low)' },
        { price: 107, title: 'Rule 2 (high)' },
      ]),
    );
  });
});
