// @vitest-environment jsdom
// The alert panels on every market (issue 15), over a stubbed fetch and EventSource: the alert
// log's market (asset class) filter goes to the log query and picks the live alerts of the tab's
// one live connection (which carries every market's), and each row
// names its asset class; the watchlist alerts panel tracks every symbol the table knows (the
// default AAPL, TSLA, BTC, ETH included), explains only unknown ones in the table's words, and
// its chart button opens the chart of the table's canonical id.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertRecord } from '../../../shared/alertDisplay.ts';
import { unknownSymbolMessage } from '../../../shared/symbols.ts';
import { assetClassOfTicker } from '../../../shared/tickers.ts';
import { AlertLog } from './AlertLog.tsx';
import { alertMatchesFilters, alertQueryString, alertWindowLabel, EMPTY_FILTERS } from './alertApi.ts';
import { WatchlistAlerts } from './WatchlistAlerts.tsx';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { FakeEventSource, withLive } from '../../live/testLive.tsx';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const now = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

/** One alert a ticker, as the engine stores them. */
const STORED: AlertRecord[] = ['AAPL', 'TSLA', 'BTC', 'ETH', 'SPY', 'MES', 'SPX'].map((ticker) => ({
  ticker,
  alert_type: 'BreakoutAlertGenerator',
  message: `${ticker} broke out above resistance`,
  timestamp: now(),
}));

/** A fetch that answers the alert log like the server: filtered by symbol and market (asset class). */
function stubServer(savedAlerts: string[] = ['AAPL', 'TSLA', 'BTC', 'ETH']) {
  const alertQueries: URLSearchParams[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = requestedUrl(input);
      if (url.pathname === '/external-api/alert') {
        alertQueries.push(url.searchParams);
        const symbol = url.searchParams.get('symbol');
        const market = url.searchParams.get('market');
        const alerts = STORED.filter(
          (alert) => (!symbol || alert.ticker === symbol) && (!market || assetClassOfTicker(alert.ticker) === market),
        );
        return json(200, { alerts });
      }
      if (url.pathname === '/api/watchlists/alerts') return json(200, { symbols: savedAlerts });
      return json(404, { error: 'not stubbed' });
    }),
  );
  return alertQueries;
}

beforeEach(() => {
  FakeEventSource.reset();
  vi.stubGlobal('EventSource', FakeEventSource);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the alert log market filter', () => {
  it('builds the log query with the market and applies the same filters to live alerts', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const filters = { ...EMPTY_FILTERS, market: 'micro-future', symbol: ' mes ' };
    expect(new URLSearchParams(alertQueryString(filters, at)).get('market')).toBe('micro-future');
    expect(new URLSearchParams(alertQueryString(EMPTY_FILTERS, at)).has('market')).toBe(false);
    const breakout = 'BreakoutAlertGenerator';
    const matches = alertMatchesFilters(filters);
    expect(matches({ ticker: 'MES', alert_type: breakout })).toBe(true);
    expect(matches({ ticker: 'ES', alert_type: breakout })).toBe(false);
    // Any form the table resolves: BTC-USD and MES1! are the tickers BTC and MES.
    expect(alertMatchesFilters({ ...EMPTY_FILTERS, symbol: 'btc-usd' })({ ticker: 'BTC', alert_type: breakout })).toBe(
      true,
    );
    expect(alertMatchesFilters({ ...EMPTY_FILTERS, symbol: 'MES1!' })({ ticker: 'MES', alert_type: breakout })).toBe(
      true,
    );
    expect(alertMatchesFilters({ ...EMPTY_FILTERS, market: 'stock' })({ ticker: 'BTC', alert_type: breakout })).toBe(
      false,
    );
    expect(
      alertMatchesFilters({ ...EMPTY_FILTERS, alertType: 'RSIAlertGenerator' })({
        ticker: 'BTC',
        alert_type: breakout,
      }),
    ).toBe(false);
    expect(alertMatchesFilters(EMPTY_FILTERS)({ ticker: 'ZZZ', alert_type: breakout })).toBe(true);
  });

  it('adds the live alerts that match the applied filters, from the one live connection', async () => {
    stubServer();
    render(withClient(withLive(<AlertLog />)));
    const log = screen.getByRole('region', { name: 'All-Market Alert Log' });
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(STORED.length));
    fireEvent.change(within(log).getByLabelText('Market'), { target: { value: 'crypto' } });
    fireEvent.click(within(log).getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(2));
    await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
    const stream = FakeEventSource.latest();
    const live = (id: number, ticker: string) => ({
      id,
      ticker,
      alert_type: 'VolumeSpikeAlertGenerator',
      message: `${ticker} volume spike`,
      timestamp: now(),
      source: 'demo',
    });
    act(() => {
      stream.emit('alert', live(1, 'AAPL'));
      stream.emit('alert', live(2, 'SOL'));
    });
    // The stock's alert is not of the applied market; the crypto one goes first.
    const texts = () =>
      within(log)
        .getAllByTestId('alert-item')
        .map((item) => item.querySelector('p')?.textContent);
    // The list keeps its length (the max count's rows): the newest first.
    await waitFor(() => expect(texts()).toEqual(['SOL volume spike', 'BTC broke out above resistance']));
    // Applying new filters keeps the same connection: no stream per filter any more.
    fireEvent.click(within(log).getByRole('button', { name: 'Apply Filters' }));
    expect(FakeEventSource.opened).toHaveLength(1);
  });

  it('offers every asset class, sends the chosen one to the API, and labels each row', async () => {
    const queries = stubServer();
    render(withClient(<AlertLog />));
    const log = screen.getByRole('region', { name: 'All-Market Alert Log' });
    const market = within(log).getByLabelText('Market');
    expect(
      within(market)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['All markets', 'Crypto', 'Stocks', 'ETFs', 'Indices', 'Futures', 'Micro futures']);
    expect((market as HTMLSelectElement).value).toBe('');

    // Unfiltered: every market, each row named by its asset class (no longer always 'crypto').
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(STORED.length));
    const labelOf = (ticker: string) =>
      within(log)
        .getAllByTestId('alert-item')
        .find((item) => item.textContent?.includes(`${ticker} broke out`));
    expect(within(labelOf('AAPL')!).getByTestId('alert-market').textContent).toBe('Stock');
    expect(within(labelOf('BTC')!).getByTestId('alert-market').textContent).toBe('Crypto');
    expect(within(labelOf('SPY')!).getByTestId('alert-market').textContent).toBe('ETF');
    expect(within(labelOf('SPX')!).getByTestId('alert-market').textContent).toBe('Index');
    expect(within(labelOf('MES')!).getByTestId('alert-market').textContent).toBe('Micro future');
    expect(queries[0]?.has('market')).toBe(false);

    fireEvent.change(market, { target: { value: 'stock' } });
    fireEvent.click(within(log).getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(2));
    expect(queries.at(-1)?.get('market')).toBe('stock');
    for (const item of within(log).getAllByTestId('alert-item')) {
      expect(item.getAttribute('data-market')).toBe('stock');
      expect(within(item).getByTestId('alert-market').textContent).toBe('Stock');
    }

    fireEvent.change(market, { target: { value: 'crypto' } });
    fireEvent.change(within(log).getByLabelText('Alert type'), { target: { value: 'BreakoutAlertGenerator' } });
    fireEvent.click(within(log).getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() =>
      expect(
        within(log)
          .getAllByTestId('alert-item')
          .map((item) => item.getAttribute('data-market')),
      ).toEqual(['crypto', 'crypto']),
    );
    expect(queries.at(-1)?.get('market')).toBe('crypto');

    fireEvent.change(market, { target: { value: '' } });
    fireEvent.click(within(log).getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(STORED.length));
    expect(queries.at(-1)?.has('market')).toBe(false);
  });
});

describe('the watchlist alerts panel', () => {
  it('shows real alerts for the default AAPL, TSLA, BTC and ETH', async () => {
    const queries = stubServer();
    render(withClient(<WatchlistAlerts />));
    const panel = screen.getByRole('region', { name: 'Watchlist Alerts' });
    for (const ticker of ['AAPL', 'TSLA', 'BTC', 'ETH'])
      expect(await within(panel).findByText(`${ticker} broke out above resistance`)).toBeTruthy();
    expect(new Set(queries.map((query) => query.get('symbol')))).toEqual(new Set(['AAPL', 'TSLA', 'BTC', 'ETH']));
    expect(within(panel).queryByTestId('no-market-data')).toBeNull();
    expect(panel.textContent).not.toContain('No market data');
    // The latest three a symbol over four days: a weekend does not empty a stock.
    for (const query of queries) {
      expect(query.get('max_count')).toBe('3');
      const since = Date.parse(`${query.get('start_time')!.replace(' ', 'T')}Z`);
      expect(Math.abs(Date.now() - 4 * 86_400_000 - since)).toBeLessThan(60_000);
    }
    expect(
      within(panel)
        .getAllByTestId('watchlist-alert')
        .map((item) => item.getAttribute('data-symbol')),
    ).toEqual(expect.arrayContaining(['AAPL', 'TSLA', 'BTC', 'ETH']));
  });

  it('tracks every class the table knows and explains only unknown symbols, in the table’s words', async () => {
    const queries = stubServer(['SPY', 'MES', 'SPX', 'ZZQX', 'NASDAQ:AAPL']);
    render(withClient(<WatchlistAlerts />));
    const panel = screen.getByRole('region', { name: 'Watchlist Alerts' });
    for (const ticker of ['SPY', 'MES', 'SPX', 'AAPL'])
      expect(await within(panel).findByText(`${ticker} broke out above resistance`)).toBeTruthy();
    // Queried by plain ticker (NASDAQ:AAPL as AAPL); the unknown symbol is never asked for.
    const asked = queries.map((query) => query.get('symbol'));
    expect(asked).toEqual(expect.arrayContaining(['SPY', 'MES', 'SPX', 'AAPL']));
    expect(asked).not.toContain('ZZQX');
    expect(asked).not.toContain('NASDAQ:AAPL');
    expect(
      within(panel)
        .getAllByTestId('no-market-data')
        .map((line) => line.textContent),
    ).toEqual([unknownSymbolMessage('ZZQX')]);
  });

  it('opens the chart of the symbol table’s canonical id from the chart button', async () => {
    stubServer(['BTC', 'AAPL', 'MES']);
    const onOpenChart = vi.fn();
    render(withClient(<WatchlistAlerts onOpenChart={onOpenChart} />));
    const panel = screen.getByRole('region', { name: 'Watchlist Alerts' });
    fireEvent.click(await within(panel).findByRole('button', { name: 'Open the AAPL chart' }));
    fireEvent.click(within(panel).getByRole('button', { name: 'Open the BTC chart' }));
    fireEvent.click(within(panel).getByRole('button', { name: 'Open the MES chart' }));
    expect(onOpenChart.mock.calls).toEqual([['AAPL'], ['BTC-USD'], ['MES1!']]);
  });
});

describe('the alert log max count (docs/SPEC.md: non-positive or non-numeric gives 10, at most 100)', () => {
  it('caps, falls back and says so in one line instead of refusing the value', async () => {
    const queries = stubServer();
    render(withClient(<AlertLog />));
    const log = screen.getByRole('region', { name: 'All-Market Alert Log' });
    await waitFor(() => expect(queries).toHaveLength(1));
    const maxCount = within(log).getByLabelText<HTMLInputElement>('Max count');
    const apply = within(log).getByRole('button', { name: 'Apply Filters' });

    fireEvent.change(maxCount, { target: { value: '150' } });
    fireEvent.click(apply);
    await waitFor(() => expect(queries.at(-1)?.get('max_count')).toBe('100'));
    expect(within(log).getByRole('status').textContent).toBe('Max count is at most 100; showing 100.');
    expect(maxCount.value).toBe('100');

    fireEvent.change(maxCount, { target: { value: '0' } });
    fireEvent.click(apply);
    await waitFor(() => expect(queries.at(-1)?.get('max_count')).toBe('10'));
    expect(within(log).getByRole('status').textContent).toBe('Max count must be a positive number; showing 10.');
    expect(maxCount.value).toBe('10');

    fireEvent.change(maxCount, { target: { value: '25' } });
    fireEvent.click(apply);
    await waitFor(() => expect(queries.at(-1)?.get('max_count')).toBe('25'));
    expect(within(log).queryByText(/^Max count/, { selector: '[role="status"]' })).toBeNull();
  });
});

describe('the alert log Apply Filters', () => {
  it('sends one request a click, whether or not the filters changed', async () => {
    const queries = stubServer();
    render(withClient(<AlertLog />));
    const log = screen.getByRole('region', { name: 'All-Market Alert Log' });
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(STORED.length));
    expect(queries).toHaveLength(1);
    const apply = within(log).getByRole('button', { name: 'Apply Filters' });

    fireEvent.change(within(log).getByLabelText('Symbol'), { target: { value: 'BTC' } });
    fireEvent.click(apply);
    await waitFor(() => expect(within(log).getAllByTestId('alert-item')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queries).toHaveLength(2);
    expect(queries[1]?.get('symbol')).toBe('BTC');

    // The same filters again (possibly the same second, so the same query): still one request.
    fireEvent.click(apply);
    await waitFor(() => expect(queries).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queries).toHaveLength(3);
  });
});

describe('the alert log time window', () => {
  it('builds a line naming the window the list covers', () => {
    const at = new Date(2026, 0, 2, 15, 4, 5);
    expect(alertWindowLabel(EMPTY_FILTERS, at)).toBe('Showing the last hour');
    expect(alertWindowLabel({ ...EMPTY_FILTERS, startTime: '2026-01-02T09:30' }, at)).toBe(
      'Showing 2026-01-02 09:30 to now',
    );
    expect(alertWindowLabel({ ...EMPTY_FILTERS, startTime: '2026-01-01T09:30', endTime: '2026-01-02T10:00' }, at)).toBe(
      'Showing 2026-01-01 09:30 to 2026-01-02 10:00',
    );
    // An empty start is an hour before now (docs/SPEC.md), whatever the end.
    expect(alertWindowLabel({ ...EMPTY_FILTERS, endTime: '2026-01-02T15:30' }, at)).toBe(
      'Showing 2026-01-02 14:04 to 2026-01-02 15:30',
    );
  });

  it('shows the window of the applied filters beside the list, so an empty list is understandable', async () => {
    stubServer();
    render(withClient(<AlertLog />));
    const log = screen.getByRole('region', { name: 'All-Market Alert Log' });
    expect(within(log).getByTestId('alert-window').textContent).toBe('Showing the last hour');
    fireEvent.change(within(log).getByLabelText('Symbol'), { target: { value: 'NOPE' } });
    fireEvent.change(within(log).getByLabelText('Start time'), { target: { value: '2026-01-01T09:30' } });
    fireEvent.change(within(log).getByLabelText('End time'), { target: { value: '2026-01-01T10:30' } });
    // Only the applied filters count, not the draft.
    expect(within(log).getByTestId('alert-window').textContent).toBe('Showing the last hour');
    fireEvent.click(within(log).getByRole('button', { name: 'Apply Filters' }));
    expect(await within(log).findByText('No alerts found')).toBeTruthy();
    expect(within(log).getByTestId('alert-window').textContent).toBe('Showing 2026-01-01 09:30 to 2026-01-01 10:30');
  });
});

describe('the watchlist alerts chart button', () => {
  it('shows a chart icon and reads as opening a chart, not as video', async () => {
    stubServer(['AAPL']);
    render(withClient(<WatchlistAlerts onOpenChart={() => undefined} />));
    const panel = screen.getByRole('region', { name: 'Watchlist Alerts' });
    const button = await within(panel).findByRole('button', { name: 'Open the AAPL chart' });
    expect(button.getAttribute('title')).toBe('Open chart');
    const icon = button.querySelector('svg');
    expect(icon?.getAttribute('data-icon')).toBe('chart');
    // No video camera (a body and a lens triangle) left in the button.
    expect(button.querySelector('rect[width="14"], path[d="m22 8-6 4 6 4V8z"]')).toBeNull();
    expect(within(button).getByText('Chart').getAttribute('aria-hidden')).toBe('true');
  });
});
