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
