// @vitest-environment jsdom
// The chart area asks for the spreadsheet and demo trading addresses only when one of those two
// panels is first opened (the first paint does not wait on them), once, and says 'Loading...'
// rather than "not linked" while the answer is on its way.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { ChartArea } from './ChartArea.tsx';

const MISSING = 'No spreadsheet is linked to this dashboard yet. Ask your administrator to set one up.';
let requested: string[] = [];
let answer: (() => void) | null = null;

beforeEach(() => {
  requested = [];
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const path = requestedUrl(input).pathname;
      requested.push(path);
      if (path !== '/api/embeds') return new Response('{}', { status: 404 });
      await new Promise<void>((resolve) => (answer = resolve));
      return new Response(JSON.stringify({ spreadsheetUrl: null, demoTradingUrl: null }), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('ChartArea', () => {
  it('asks for the embedded platforms only when one is first opened, once', async () => {
    render(withClient(<ChartArea symbols={['NASDAQ:AAPL']} watchlistControls={null} exchangeView={() => null} />));
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    expect(requested).not.toContain('/api/embeds');

    fireEvent.click(screen.getByRole('tab', { name: 'Spreadsheet' }));
    expect(screen.getByTestId('chart-panel-spreadsheet').textContent).toBe('Loading...');
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    act(() => answer?.());
    expect(await screen.findByText(MISSING)).toBeTruthy();

    fireEvent.click(screen.getByRole('tab', { name: 'Demo Trading' }));
    expect(screen.getByTestId('chart-panel-demo-trading').textContent).toContain('No demo trading platform is linked');
    expect(requested.filter((path) => path === '/api/embeds')).toHaveLength(1);
  });
});
