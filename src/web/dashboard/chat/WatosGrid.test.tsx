// @vitest-environment jsdom
// The WATOS grid on every market (issue 15), over a stubbed fetch: any symbol form reaches the
// endpoint (CME_MINI:MES1! encoded), the card names its market and class, prices futures in
// points and stocks in dollars, and says "Demo data" or "Delayed" as the response tells it.
// With the card, one request reads the track record of its timeframe and source; a signal the
// record flags (negative Brier skill over enough forecasts) says so on its tile. On the tab's live
// connection, the last close becomes the ticked last price with its state.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ComponentProps } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WatosCard } from '../../../shared/schemas/chat.ts';
import { trackRecordResponse, type LiveTrackRecord } from '../../../shared/schemas/trackRecord.ts';
import { FLAG_TEXT, WatosGrid } from './WatosGrid.tsx';
import { watosCardOf } from './watosCardFixture.ts';
import { FakeEventSource, tickOf, withLive } from '../../live/testLive.tsx';

const cardOf = watosCardOf;

/** A live record with no resolved forecast (nothing flagged). */
const EMPTY_RECORD: LiveTrackRecord = {
  kind: 'live',
  source: 'real',
  filters: { signal: null, symbol: null, assetClass: null, timeframe: '1h', period: 'all' },
  counts: { resolved: 0, pending: 0, unresolvable: 0 },
  brier: null,
  baseBrier: null,
  brierSkill: null,
  reliability: [],
  signals: [],
  flagMinResolved: 100,
};

function renderGrid(
  symbol: string,
  card: WatosCard,
  props: Partial<ComponentProps<typeof WatosGrid>> = {},
  record: LiveTrackRecord = EMPTY_RECORD,
  { live = false } = {},
) {
  const asked: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string) => {
      asked.push(input);
      const body = input.startsWith('/api/track-record?') ? trackRecordResponse.parse(record) : card;
      return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      {live ? withLive(<WatosGrid symbol={symbol} {...props} />) : <WatosGrid symbol={symbol} {...props} />}
    </QueryClientProvider>,
  );
  return asked;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the WATOS grid on the live connection', () => {
  it('turns its last close into the ticked last price, with the price’s state beside it', async () => {
    FakeEventSource.reset();
    vi.stubGlobal('EventSource', FakeEventSource);
    renderGrid('AAPL', cardOf({}), {}, EMPTY_RECORD, { live: true });
    const market = await screen.findByTestId('watos-market');
    expect(market.textContent).toMatch(/· 1h bars · last close \$231\.50 · base rate/);
    // (AAPL is on the first URL or in a PUT after it, whichever the card's answer came before.)
    await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
    act(() => FakeEventSource.latest().emit('ticks', [tickOf('AAPL', 232.75, { source: 'yahoo', delayMinutes: 15 })]));
    expect(market.textContent).toMatch(/· 1h bars · last price \$232\.75 Delayed 15 min · base rate 52\.0% higher/);
    expect(within(market).getByTestId('live-state').getAttribute('data-live-state')).toBe('delayed');
  });
});

describe('the WATOS grid on every market', () => {
  it('labels delayed Yahoo Finance figures and names a stock in dollars', async () => {
    const asked = renderGrid('AAPL', cardOf({}));
    const grid = screen.getByTestId('watos-grid');
    expect(within(grid).getByRole('heading', { name: 'WATOS Grid: AAPL' })).toBeTruthy();
    expect(await within(grid).findByText('Delayed')).toBeTruthy();
    expect(within(grid).queryByText('Demo data')).toBeNull();
    expect(within(grid).getAllByTestId('watos-tile')).toHaveLength(6);
    expect(within(grid).getByTestId('watos-market').textContent).toMatch(
      /^AAPL · Apple · Stock · 1h bars · last close \$231\.50 · base rate 52\.0% higher/,
    );
    // The card, then the track record of its timeframe and source (Yahoo Finance: real records).
    await waitFor(() =>
      expect(asked).toEqual(['/api/watos/AAPL?timeframe=1h', '/api/track-record?timeframe=1h&period=all&source=real']),
    );
  });

  it('takes a chart symbol, labels demo figures, and prices a future in points', async () => {
    const asked = renderGrid(
      'CME_MINI:MES1!',
      cardOf({
        symbol: 'MES',
        productId: 'MES1!',
        assetClass: 'micro-future',
        source: 'demo',
        delayed: false,
        lastClose: 6012.25,
      }),
    );
    const grid = screen.getByTestId('watos-grid');
    expect(within(grid).getByRole('heading', { name: 'WATOS Grid: CME_MINI:MES1!' })).toBeTruthy();
    expect(await within(grid).findByText('Demo data')).toBeTruthy();
    expect(within(grid).queryByText('Delayed')).toBeNull();
    expect(within(grid).getByTestId('watos-market').textContent).toMatch(
      /^MES1! · Micro E-mini S&P 500 · Micro future · 1h bars · last close 6,012\.25 · /,
    );
    await waitFor(() =>
      expect(asked).toEqual([
        `/api/watos/${encodeURIComponent('CME_MINI:MES1!')}?timeframe=1h`,
        '/api/track-record?timeframe=1h&period=all&source=demo',
      ]),
    );
  });

  it('measures on the timeframe the answer is about', async () => {
    const asked = renderGrid('ETH', cardOf({ symbol: 'ETH', productId: 'ETH-USD', timeframe: '4h' }), {
      timeframe: '4h',
    });
    const grid = screen.getByTestId('watos-grid');
    expect((await within(grid).findByTestId('watos-market')).textContent).toContain('4h bars');
    await waitFor(() =>
      expect(asked).toEqual(['/api/watos/ETH?timeframe=4h', '/api/track-record?timeframe=4h&period=all&source=real']),
    );
  });

  it('starts folded when asked, loads nothing until opened, and folds again', async () => {
    const asked = renderGrid('AAPL', cardOf({}), { collapsed: true });
    const grid = screen.getByTestId('watos-grid');
    const toggle = within(grid).getByRole('button', { name: 'Show signals' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(within(grid).queryAllByTestId('watos-tile')).toHaveLength(0);
    expect(asked).toEqual([]);
    fireEvent.click(toggle);
    expect(await within(grid).findAllByTestId('watos-tile')).toHaveLength(6);
    await waitFor(() =>
      expect(asked).toEqual(['/api/watos/AAPL?timeframe=1h', '/api/track-record?timeframe=1h&period=all&source=real']),
    );
    const hide = within(grid).getByRole('button', { name: 'Hide signals' });
    expect(hide.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(hide);
    expect(within(grid).queryAllByTestId('watos-tile')).toHaveLength(0);
  });

  it('shows each probability with its sample size, the measured share and interval, and says when there is no measurable edge', async () => {
    const odds = {
      probability: 0.52,
      raw: 0.64,
      samples: 1234,
      effectiveSamples: 35,
      interval: [0.41, 0.63] as [number, number],
      noEdge: true,
      reason: null,
    };
    renderGrid('AAPL', cardOf({}, { index: 1, odds }));
    const grid = screen.getByTestId('watos-grid');
    const tiles = await within(grid).findAllByTestId('watos-tile');
    const momentum = tiles[1]!;
    expect(within(momentum).getByTestId('watos-odds').textContent).toBe(
      '52.0% chance of a higher close 24 bars later (n=1,234) no measurable edge',
    );
    expect(within(momentum).getByTestId('watos-no-edge').textContent).toBe('no measurable edge');
    expect(within(momentum).getByTestId('watos-measured').textContent).toBe(
      'measured 64.0% of 1,234 bars · 95% 41.0%–63.0%',
    );
    // Only the tile whose interval includes the base rate carries the label.
    expect(within(grid).getAllByTestId('watos-no-edge')).toHaveLength(1);
    expect(within(tiles[0]!).getByText('Not active on the latest bar')).toBeTruthy();
  });

  it('shows a measurable edge without the label, and no number below 30 samples', async () => {
    const edge = {
      probability: 0.71,
      raw: 0.8,
      samples: 300,
      effectiveSamples: 60,
      interval: [0.6, 0.81] as [number, number],
      noEdge: false,
      reason: null,
    };
    renderGrid('AAPL', cardOf({}, { index: 2, odds: edge }));
    const grid = screen.getByTestId('watos-grid');
    const tile = (await within(grid).findAllByTestId('watos-tile'))[2]!;
    expect(within(tile).getByTestId('watos-odds').textContent).toBe(
      '71.0% chance of a higher close 24 bars later (n=300)',
    );
    expect(within(grid).queryByTestId('watos-no-edge')).toBeNull();
    cleanup();

    const thin = {
      probability: null,
      raw: null,
      samples: 12,
      effectiveSamples: 4,
      interval: null,
      noEdge: null,
      reason: 'not enough history',
    };
    renderGrid('AAPL', cardOf({}, { index: 0, odds: thin }));
    const thinTile = (await within(screen.getByTestId('watos-grid')).findAllByTestId('watos-tile'))[0]!;
    expect(within(thinTile).getByText('Not enough history (12 past bars)')).toBeTruthy();
    expect(within(thinTile).queryByTestId('watos-odds')).toBeNull();
    expect(within(thinTile).queryByTestId('watos-no-edge')).toBeNull();
  });

  it('gives real-time figures neither label', async () => {
    renderGrid(
      'BTC',
      cardOf({ symbol: 'BTC', productId: 'BTC-USD', assetClass: 'crypto', source: 'coinbase', delayed: false }),
    );
    const grid = screen.getByTestId('watos-grid');
    expect(await within(grid).findByTestId('watos-market')).toBeTruthy();
    expect(within(grid).queryByText('Delayed')).toBeNull();
    expect(within(grid).queryByText('Demo data')).toBeNull();
  });

  it('flags a signal the track record scores below the base rate, beside its odds and n, and no other', async () => {
    const odds = {
      probability: 0.58,
      raw: 0.61,
      samples: 800,
      effectiveSamples: 90,
      interval: [0.47, 0.56] as [number, number],
      noEdge: true,
      reason: null,
    };
    const signal = (id: string, name: string, count: number, brierSkill: number, flagged: boolean) => ({
      signal: id,
      name,
      count,
      stated: 0.55,
      realised: 0.5,
      hitRate: 0.5,
      brierSkill,
      flagged,
    });
    const record: LiveTrackRecord = {
      ...EMPTY_RECORD,
      source: 'demo',
      counts: { resolved: 1_540, pending: 12, unresolvable: 3 },
      brier: 0.251,
      baseBrier: 0.249,
      brierSkill: -0.008,
      signals: [
        signal('watos1', 'Volume Surge', 1_212, -0.021, true),
        // Negative skill but too few forecasts: the server does not flag it, nor does the grid.
        signal('watos2', 'Price Momentum', 40, -0.05, false),
        signal('watos4', 'RSI Divergence', 288, 0.012, false),
      ],
    };
    const asked = renderGrid(
      'BTC',
      cardOf(
        { symbol: 'BTC', productId: 'BTC-USD', assetClass: 'crypto', source: 'demo', delayed: false },
        {
          index: 0,
          odds,
        },
      ),
      {},
      record,
    );
    const grid = screen.getByTestId('watos-grid');
    const flag = await within(grid).findByTestId('watos-flag');
    expect(within(grid).getAllByTestId('watos-flag')).toHaveLength(1);
    const tiles = within(grid).getAllByTestId('watos-tile');
    expect(tiles[0]!.contains(flag)).toBe(true);
    expect(flag.textContent).toContain(FLAG_TEXT);
    expect(flag.getAttribute('title')).toBe(
      "Over 1,212 resolved 1h forecasts on demo data, this signal's stated odds scored worse than quoting the base rate (Brier skill -0.021): treat its probability with caution.",
    );
    expect(tiles[0]!.getAttribute('aria-label')).toBe(`Volume Surge: bullish, medium strength, ${FLAG_TEXT}`);
    expect(tiles[1]!.getAttribute('aria-label')).toBe('Price Momentum: inactive, low strength');
    // The odds keep their sample size and the "no measurable edge" label beside the flag.
    expect(within(tiles[0]!).getByTestId('watos-odds').textContent).toBe(
      '58.0% chance of a higher close 24 bars later (n=800) no measurable edge',
    );
    expect(asked).toEqual(['/api/watos/BTC?timeframe=1h', '/api/track-record?timeframe=1h&period=all&source=demo']);
  });

  it('asks for the track record once for grids of the same source and timeframe', async () => {
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: string) => {
        asked.push(input);
        const body = input.startsWith('/api/track-record?') ? EMPTY_RECORD : cardOf({});
        return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <WatosGrid symbol="AAPL" />
        <WatosGrid symbol="MSFT" />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getAllByTestId('watos-tile')).toHaveLength(12));
    await waitFor(() => expect(asked.filter((url) => url.startsWith('/api/track-record'))).toHaveLength(1));
    // Give a second request the chance to appear: there is none.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked.filter((url) => url.startsWith('/api/track-record'))).toEqual([
      '/api/track-record?timeframe=1h&period=all&source=real',
    ]);
    expect(asked.filter((url) => url.startsWith('/api/watos'))).toHaveLength(2);
  });
});
