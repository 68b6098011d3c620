// @vitest-environment jsdom
// The chart watchlist chips' "Chart" action (issue 17): a chip of a symbol the table knows opens
// the own chart with its canonical id (NASDAQ:AAPL gives AAPL); one the table does not know has none.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withClient } from '../../ui/testProviders.tsx';
import { ChartWatchlist } from './ChartWatchlist.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

describe('the chart watchlist chips', () => {
  it('open the own chart of a known symbol by its canonical id', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{"symbols":[]}', { status: 200 })),
    );
    const onOpenChart = vi.fn();
    render(
      withClient(
        <ChartWatchlist
          symbols={['NASDAQ:AAPL', 'CME_MINI:MES1!', 'LSE:VOD']}
          onAdd={() => ({ added: true })}
          onRemove={() => undefined}
          onOpenChart={onOpenChart}
        />,
      ),
    );
    // In the table (the default view), each known symbol's row has the action.
    const table = screen.getByRole('table', { name: /Chart watchlist/ });
    fireEvent.click(within(table).getByRole('button', { name: 'Open the CME_MINI:MES1! chart' }));
    expect(onOpenChart).toHaveBeenLastCalledWith('MES1!');
    expect(within(table).queryByRole('button', { name: 'Open the LSE:VOD chart' })).toBeNull();
    // The chips are the compact view behind the Table / Chips switch.
    fireEvent.click(screen.getByRole('button', { name: 'Chips' }));
    fireEvent.click(screen.getByRole('button', { name: 'Open the NASDAQ:AAPL chart' }));
    expect(onOpenChart).toHaveBeenLastCalledWith('AAPL');
    fireEvent.click(screen.getByRole('button', { name: 'Open the CME_MINI:MES1! chart' }));
    expect(onOpenChart).toHaveBeenLastCalledWith('MES1!');
    expect(screen.queryByRole('button', { name: 'Open the LSE:VOD chart' })).toBeNull();
  });
});
