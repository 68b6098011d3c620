// @vitest-environment jsdom
// The WATOS grid on every market (issue 15), over a stubbed fetch: any symbol form reaches the
// endpoint (CME_MINI:MES1! encoded), the card names its market and class, prices futures in
// points and stocks in dollars, and says "Demo data" or "Delayed" as the response tells it.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { ComponentProps } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WatosCard } from '../../../shared/schemas/chat.ts';
import { WatosGrid } from './WatosGrid.tsx';
import { watosCardOf } from './watosCardFixture.ts';

const cardOf = watosCardOf;

function renderGrid(symbol: string, card: WatosCard, props: Partial<ComponentProps<typeof WatosGrid>> = {}) {
  const asked: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string) => {
      asked.push(input);
      return new Response(JSON.stringify(card), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <WatosGrid symbol={symbol} {...props} />
    </QueryClientProvider>,
  );
  return asked;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
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
    expect(asked).toEqual(['/api/watos/AAPL?timeframe=1h']);
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
    expect(asked).toEqual([`/api/watos/${encodeURIComponent('CME_MINI:MES1!')}?timeframe=1h`]);
  });

  it('measures on the timeframe the answer is about', async () => {
    const asked = renderGrid('ETH', cardOf({ symbol: 'ETH', productId: 'ETH-USD', timeframe: '4h' }), {
      timeframe: '4h',
    });
    const grid = screen.getByTestId('watos-grid');
    expect((await within(grid).findByTestId('watos-market')).textContent).toContain('4h bars');
    expect(asked).toEqual(['/api/watos/ETH?timeframe=4h']);
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
    expect(asked).toEqual(['/api/watos/AAPL?timeframe=1h']);
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
    const momentum = tiles[1];
    expect(within(momentum).getByTestId('watos-odds').textContent).toBe(
      '52.0% chance of a higher close 24 bars later (n=1,234) no measurable edge',
    );
    expect(within(momentum).getByTestId('watos-no-edge').textContent).toBe('no measurable edge');
    expect(within(momentum).getByTestId('watos-measured').textContent).toBe(
      'measured 64.0% of 1,234 bars · 95% 41.0%–63.0%',
    );
    // Only the tile whose interval includes the base rate carries the label.
    expect(within(grid).getAllByTestId('watos-no-edge')).toHaveLength(1);
    expect(within(tiles[0]).getByText('Not active on the latest bar')).toBeTruthy();
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
    const tile = (await within(grid).findAllByTestId('watos-tile'))[2];
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
    const thinTile = (await within(screen.getByTestId('watos-grid')).findAllByTestId('watos-tile'))[0];
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
});
