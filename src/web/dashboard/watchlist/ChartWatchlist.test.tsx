// @vitest-environment jsdom
// The chart watchlist's format error (issue 17): shown beside the input with docs/SPEC.md's
// text, and gone once the input changes or a later add succeeds.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WATCHLIST_FORMAT_ALERT } from '../../../shared/schemas/watchlists.ts';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { ChartWatchlist } from './ChartWatchlist.tsx';

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(
      async (input: RequestInfo | URL) =>
        new Response(
          JSON.stringify(
            // The watchlist table's figures: none stored for this test's symbols.
            requestedUrl(input).pathname === '/api/market/watchlist'
              ? { entries: [], asOf: new Date().toISOString() }
              : { symbols: [] },
          ),
          { status: 200, headers: { 'Content-Type': 'application/json' } },
        ),
    ),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const formatError = () => screen.queryByText(WATCHLIST_FORMAT_ALERT);

describe('the chart watchlist format error', () => {
  it('clears when the input changes and after a successful add', () => {
    const onAdd = vi.fn((input: string) =>
      input.includes(':') ? { added: true } : { added: false, alert: WATCHLIST_FORMAT_ALERT },
    );
    render(withClient(<ChartWatchlist symbols={['NASDAQ:TSLA']} onAdd={onAdd} onRemove={() => undefined} />));
    const input = screen.getByLabelText('Add symbol to the chart watchlist');
    const add = screen.getByRole('button', { name: 'Add' });

    fireEvent.change(input, { target: { value: 'AAPL' } });
    fireEvent.click(add);
    expect(formatError()).not.toBeNull();
    expect(formatError()?.closest('[role="alert"]')).not.toBeNull();
    // Editing the input clears it.
    fireEvent.change(input, { target: { value: 'NASDAQ:AA' } });
    expect(formatError()).toBeNull();

    fireEvent.change(input, { target: { value: 'AAPL' } });
    fireEvent.click(add);
    expect(formatError()).not.toBeNull();
    // A later successful add (the same text, now accepted) clears it too.
    onAdd.mockReturnValueOnce({ added: true });
    fireEvent.click(add);
    expect(onAdd).toHaveBeenCalledTimes(3);
    expect(formatError()).toBeNull();
  });
});
