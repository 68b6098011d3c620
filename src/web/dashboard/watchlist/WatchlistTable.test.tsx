// @vitest-environment jsdom
// The watchlist table (issue 17, items 3 and 7) over a stubbed GET /api/market/watchlist: the
// figures with their signs, rows without bars (re-read in 10 s) and unknown symbols, sorting by
// header (aria-sort), the arrow keys and Enter, a row click that opens the chart (the chart watchlist's main chart,
// the alerts panel's own chart by canonical id), and the Table / Chips choice kept in localStorage.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WatchlistEntry, WatchlistQuote } from '../../../shared/schemas/market.ts';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { WatchlistAlerts } from '../alerts/WatchlistAlerts.tsx';
import { ChartWatchlist } from './ChartWatchlist.tsx';
import { watchlistViewKey } from './watchlistQuotes.ts';
import { shortTime, WatchlistTable } from './WatchlistTable.tsx';

function quote(
  query: string,
  fields: Partial<WatchlistQuote> & Pick<WatchlistQuote, 'id' | 'ticker' | 'name'>,
): WatchlistQuote {
  return {
    status: 'priced',
    query,
    assetClass: 'stock',
    last: null,
    lastTime: '2026-11-25T15:00:00.000Z',
    sessionOpen: null,
    sessionOpenTime: '2026-11-25T14:30:00.000Z',
    change: null,
    changePercent: null,
    sparkline: [],
    sparklineFrom: '2026-11-25T14:01:00.000Z',
    latestAlert: null,
    source: 'demo',
    delayed: false,
    message: null,
    ...fields,
  };
}

const ENTRIES: Record<string, WatchlistEntry> = {
  'NASDAQ:AAPL': quote('NASDAQ:AAPL', {
    id: 'AAPL',
    ticker: 'AAPL',
    name: 'Apple',
    last: 202.5,
    sessionOpen: 200,
    change: 2.5,
    changePercent: 1.25,
    sparkline: [200, 201, 202.5],
    latestAlert: { type: 'BreakoutAlertGenerator', message: 'AAPL broke out', time: '2026-11-25T14:35:00.000Z' },
  }),
  'NASDAQ:TSLA': quote('NASDAQ:TSLA', {
    id: 'TSLA',
    ticker: 'TSLA',
    name: 'Tesla',
    last: 300,
    sessionOpen: 310,
    change: -10,
    changePercent: -3.2258,
    sparkline: [310, 305, 300],
  }),
  'BINANCE:BTCUSDT': quote('BINANCE:BTCUSDT', {
    id: 'BTC-USD',
    ticker: 'BTC',
    name: 'Bitcoin',
    assetClass: 'crypto',
    last: 90_000,
    sessionOpen: 89_000,
    change: 1000,
    changePercent: 1.1236,
    sparkline: [89_000, 90_000],
  }),
  'NASDAQ:MSFT': quote('NASDAQ:MSFT', {
    status: 'no-data',
    id: 'MSFT',
    ticker: 'MSFT',
    name: 'Microsoft',
    lastTime: null,
    sessionOpenTime: null,
    sparklineFrom: null,
    source: null,
    message: 'No prices for MSFT yet: its first bars have not been stored.',
  }),
  'LSE:VOD': { status: 'unknown', query: 'LSE:VOD', error: 'No market data for LSE:VOD: it is not a market we cover.' },
  AAPL: quote('AAPL', { id: 'AAPL', ticker: 'AAPL', name: 'Apple', last: 202.5, change: 2.5, changePercent: 1.25 }),
  BTC: quote('BTC', {
    id: 'BTC-USD',
    ticker: 'BTC',
    name: 'Bitcoin',
    last: 90_000,
    change: 1000,
    changePercent: 1.1236,
  }),
};

const CHART_LIST = ['NASDAQ:AAPL', 'NASDAQ:TSLA', 'BINANCE:BTCUSDT', 'NASDAQ:MSFT', 'LSE:VOD'];

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
}

let asked: string[][] = [];
beforeEach(() => {
  asked = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = requestedUrl(input);
      if (url.pathname === '/api/market/watchlist') {
        const symbols = url.searchParams.get('symbols')!.split(',');
        asked.push(symbols);
        return json({
          entries: symbols.map(
            (symbol) => ENTRIES[symbol] ?? { status: 'unknown', query: symbol, error: 'Not stubbed' },
          ),
          asOf: new Date().toISOString(),
        });
      }
      if (url.pathname === '/api/watchlists/alerts') return json({ symbols: ['AAPL', 'BTC'] });
      if (url.pathname === '/external-api/alert') return json({ alerts: [] });
      return new Response(JSON.stringify({ error: 'not stubbed' }), { status: 404 });
    }),
  );
});

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

function bodyRows() {
  const table = screen.getByRole('table');
  return within(table).getAllByRole('row').slice(1);
}

function rowSymbols() {
  return bodyRows().map((row) => row.getAttribute('data-symbol'));
}

async function renderTable(props: Partial<Parameters<typeof WatchlistTable>[0]> = {}) {
  const onOpen = vi.fn();
  const onRemove = vi.fn();
  render(
    withClient(
      <WatchlistTable symbols={CHART_LIST} label="Chart watchlist" onOpen={onOpen} onRemove={onRemove} {...props} />,
    ),
  );
  await screen.findByText('202.50');
  return { onOpen, onRemove };
}

describe('the watchlist table', () => {
  it('shows each symbol’s figures with signs, its sparkline and latest alert, and says which have no data', async () => {
    await renderTable();
    expect(asked).toEqual([CHART_LIST]);
    const table = screen.getByRole('table', { name: /Chart watchlist/ });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Symbol', 'Last', 'Change', '% Change', 'Last hour', 'Latest alert', 'Actions']);
    const [aapl, tsla, , msft, vod] = bodyRows();
    expect(within(aapl!).getByRole('rowheader').textContent).toBe('AAPLApple');
    expect(
      within(aapl!)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual([
      '202.50',
      '+2.50',
      '+1.25%',
      'AAPL last hour, from 200.00 to 202.50',
      expect.stringMatching(/^Breakout /),
      '×',
    ]);
    expect(within(aapl!).getByTestId('watchlist-change-percent').className).toContain('text-green-400');
    expect(within(aapl!).getByRole('img', { name: 'AAPL last hour, from 200.00 to 202.50' })).toBeTruthy();
    expect(within(tsla!).getByTestId('watchlist-change-percent').textContent).toBe('−3.23%');
    expect(within(tsla!).getByTestId('watchlist-change-percent').className).toContain('text-red-400');
    expect(within(tsla!).getAllByRole('cell')[4]!.textContent).toBe('-');
    expect(within(msft!).getByTestId('watchlist-no-data').textContent).toBe(
      'No prices for MSFT yet: its first bars have not been stored.',
    );
    expect(within(msft!).queryByRole('img')).toBeNull();
    expect(within(vod!).getAllByRole('cell')[0]!.textContent).toBe(
      'No market data for LSE:VOD: it is not a market we cover.',
    );
    expect(screen.getByText(/Demo data/)).toBeTruthy();
  });

  it('sorts by a header: ascending, descending, then the watchlist’s order, rows without figures last', async () => {
    await renderTable();
    const header = screen.getByRole('columnheader', { name: /% Change/ });
    expect(header.getAttribute('aria-sort')).toBe('none');
    fireEvent.click(within(header).getByRole('button'));
    expect(header.getAttribute('aria-sort')).toBe('ascending');
    expect(rowSymbols()).toEqual(['NASDAQ:TSLA', 'BINANCE:BTCUSDT', 'NASDAQ:AAPL', 'NASDAQ:MSFT', 'LSE:VOD']);
    fireEvent.click(within(header).getByRole('button'));
    expect(header.getAttribute('aria-sort')).toBe('descending');
    expect(rowSymbols()).toEqual(['NASDAQ:AAPL', 'BINANCE:BTCUSDT', 'NASDAQ:TSLA', 'NASDAQ:MSFT', 'LSE:VOD']);
    fireEvent.click(within(header).getByRole('button'));
    expect(header.getAttribute('aria-sort')).toBe('none');
    expect(rowSymbols()).toEqual(CHART_LIST);

    const symbolHeader = screen.getByRole('columnheader', { name: /Symbol/ });
    fireEvent.click(within(symbolHeader).getByRole('button'));
    expect(symbolHeader.getAttribute('aria-sort')).toBe('ascending');
    expect(header.getAttribute('aria-sort')).toBe('none');
    expect(rowSymbols()).toEqual(['NASDAQ:AAPL', 'BINANCE:BTCUSDT', 'LSE:VOD', 'NASDAQ:MSFT', 'NASDAQ:TSLA']);
  });

  it('re-reads every 10 s while a symbol’s first bars are being stored, then once a minute', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      let stored = false;
      const reads: number[] = [];
      vi.stubGlobal(
        'fetch',
        vi.fn(async (input: RequestInfo | URL) => {
          const symbols = requestedUrl(input).searchParams.get('symbols')!.split(',');
          reads.push(Date.now());
          const msft = stored
            ? quote('NASDAQ:MSFT', { id: 'MSFT', ticker: 'MSFT', name: 'Microsoft', last: 410, changePercent: 0.5 })
            : ENTRIES['NASDAQ:MSFT'];
          return json({
            entries: symbols.map((symbol) => (symbol === 'NASDAQ:MSFT' ? msft : ENTRIES[symbol])),
            asOf: new Date().toISOString(),
          });
        }),
      );
      await renderTable({ symbols: ['NASDAQ:AAPL', 'NASDAQ:MSFT'] });
      expect(screen.getByTestId('watchlist-no-data')).toBeTruthy();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(reads).toHaveLength(2);
      stored = true;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(reads).toHaveLength(3);
      await screen.findByText('410.00');
      expect(screen.queryByTestId('watchlist-no-data')).toBeNull();
      // Every symbol priced: the next re-read is a minute later.
      await vi.advanceTimersByTimeAsync(59_000);
      expect(reads).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(reads).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('moves between rows with the arrow keys, Home and End, and opens a row with Enter or a click', async () => {
    const { onOpen, onRemove } = await renderTable();
    const rows = bodyRows();
    expect(rows.map((row) => row.tabIndex)).toEqual([0, -1, -1, -1, -1]);
    rows[0]!.focus();
    fireEvent.keyDown(rows[0]!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(rows[1]);
    fireEvent.keyDown(rows[1]!, { key: 'End' });
    expect(document.activeElement).toBe(rows[4]);
    fireEvent.keyDown(rows[4]!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(rows[4]);
    fireEvent.keyDown(rows[4]!, { key: 'Home' });
    fireEvent.keyDown(rows[0]!, { key: 'ArrowDown' });
    fireEvent.keyDown(rows[1]!, { key: 'ArrowDown' });
    fireEvent.keyDown(rows[2]!, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(rows[1]);
    expect(bodyRows().map((row) => row.tabIndex)).toEqual([-1, 0, -1, -1, -1]);
    fireEvent.keyDown(rows[1]!, { key: 'Enter' });
    expect(onOpen).toHaveBeenLastCalledWith('NASDAQ:TSLA', 'TSLA');
    fireEvent.click(within(rows[2]!).getByText('Bitcoin'));
    expect(onOpen).toHaveBeenLastCalledWith('BINANCE:BTCUSDT', 'BTC-USD');
    fireEvent.click(within(rows[4]!).getByRole('button', { name: 'Remove LSE:VOD' }));
    expect(onRemove).toHaveBeenCalledWith('LSE:VOD');
    expect(onOpen).toHaveBeenCalledTimes(2);
  });
  it('keeps the tab stop on the same symbol when a sort or a removal moves the rows', async () => {
    const onOpen = vi.fn();
    const table = (symbols: string[]) =>
      withClient(
        <WatchlistTable symbols={symbols} label="Chart watchlist" onOpen={onOpen} onRemove={() => undefined} />,
      );
    const view = render(table(CHART_LIST));
    await screen.findByText('202.50');
    bodyRows()[0]!.focus();
    fireEvent.keyDown(bodyRows()[0]!, { key: 'ArrowDown' });
    expect(document.activeElement?.getAttribute('data-symbol')).toBe('NASDAQ:TSLA');

    // Ascending % Change puts TSLA first: the tab stop and the focus follow it there.
    fireEvent.click(within(screen.getByRole('columnheader', { name: /% Change/ })).getByRole('button'));
    expect(rowSymbols()[0]).toBe('NASDAQ:TSLA');
    expect(bodyRows().map((row) => row.tabIndex)).toEqual([0, -1, -1, -1, -1]);
    bodyRows()[0]!.focus();
    fireEvent.keyDown(bodyRows()[0]!, { key: 'ArrowDown' });
    expect(document.activeElement?.getAttribute('data-symbol')).toBe('BINANCE:BTCUSDT');
    fireEvent.keyDown(document.activeElement!, { key: 'Enter' });
    expect(onOpen).toHaveBeenLastCalledWith('BINANCE:BTCUSDT', 'BTC-USD');

    // The focused symbol removed: the first row takes the tab stop, so Tab still reaches the table.
    view.rerender(table(CHART_LIST.filter((symbol) => symbol !== 'BINANCE:BTCUSDT')));
    expect(bodyRows().map((row) => row.tabIndex)).toEqual([0, -1, -1, -1]);
  });
});

describe('the Table / Chips switch', () => {
  it('shows the chart watchlist as a table first and remembers the chips, and a row makes the main chart', async () => {
    const onOpen = vi.fn();
    const first = render(
      withClient(
        <ChartWatchlist
          symbols={CHART_LIST}
          onAdd={() => ({ added: true })}
          onRemove={() => undefined}
          onOpen={onOpen}
        />,
      ),
    );
    await screen.findByText('202.50');
    expect(bodyRows()[0]!.getAttribute('aria-current')).toBe('true');
    fireEvent.keyDown(bodyRows()[0]!, { key: 'ArrowDown' });
    fireEvent.keyDown(bodyRows()[1]!, { key: 'Enter' });
    expect(onOpen).toHaveBeenCalledWith('NASDAQ:TSLA');
    expect(screen.queryByRole('list', { name: 'Chart watchlist' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Chips' }));
    expect(localStorage.getItem(watchlistViewKey('chart'))).toBe('chips');
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByRole('list', { name: 'Chart watchlist' }).textContent).toContain('NASDAQ:TSLA');
    first.unmount();

    render(
      withClient(<ChartWatchlist symbols={CHART_LIST} onAdd={() => ({ added: true })} onRemove={() => undefined} />),
    );
    expect(screen.getByRole('button', { name: 'Chips' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getAllByRole('listitem')).toHaveLength(CHART_LIST.length);
    fireEvent.click(screen.getByRole('button', { name: 'Table' }));
    expect(localStorage.getItem(watchlistViewKey('chart'))).toBe('table');
    expect(await screen.findByRole('table')).toBeTruthy();
  });

  it('opens the alerts panel’s own chart of a row by its canonical id, and keeps its view apart', async () => {
    localStorage.setItem(watchlistViewKey('chart'), 'chips');
    const onOpenChart = vi.fn();
    render(withClient(<WatchlistAlerts onOpenChart={onOpenChart} />));
    await waitFor(() => expect(rowSymbols()).toEqual(['AAPL', 'BTC']));
    await screen.findByText('90,000.00');
    fireEvent.click(bodyRows()[1]!);
    expect(onOpenChart).toHaveBeenCalledWith('BTC-USD');
    expect(screen.getByRole('button', { name: 'Add symbol' })).toBeTruthy();
  });
});

describe('shortTime (the latest alert column)', () => {
  it("writes today's time, this week's weekday and time, and the day of anything older, in local time", () => {
    const now = new Date(2026, 10, 27, 16, 0);
    expect(shortTime(new Date(2026, 10, 27, 9, 5).toISOString(), now)).toBe('09:05 AM');
    expect(shortTime(new Date(2026, 10, 27, 0, 0).toISOString(), now)).toBe('12:00 AM');
    expect(shortTime(new Date(2026, 10, 23, 14, 35).toISOString(), now)).toBe('Mon 02:35 PM');
    expect(shortTime(new Date(2026, 10, 20, 23, 59).toISOString(), now)).toBe('Nov 20, 2026');
  });
});
