// @vitest-environment jsdom
// The watchlists' type-ahead in the browser, over a stubbed fetch that answers from the real
// symbol table: the combobox's ARIA state and keyboard flow (Up/Down/Enter/Escape, click),
// Enter without a chosen option left to the input's own rules, and the alerts panel refusing
// a symbol the table does not know with the server's message.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { marketSymbolView } from '../../shared/schemas/symbols.ts';
import { resolveSymbol, searchSymbols, toTradingView, unknownSymbolMessage } from '../../shared/symbols.ts';
import { WatchlistAlerts } from '../dashboard/alerts/WatchlistAlerts.tsx';
import { SymbolSearch, type SymbolForm } from './SymbolSearch.tsx';
import { requestedUrl } from '../api/testFetch.ts';
import { withClient } from './testProviders.tsx';

type Call = { method: string; url: URL; body: unknown };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** A fetch that plays the symbols and watchlist endpoints from the shared table. */
function stubServer(savedAlerts: string[] = ['AAPL', 'TSLA', 'BTC', 'ETH']) {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = requestedUrl(input);
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method, url, body });
    const view = (s: NonNullable<ReturnType<typeof resolveSymbol>>) =>
      marketSymbolView.parse({ ...s, tradingView: toTradingView(s) });
    if (url.pathname === '/api/symbols/search') {
      const q = url.searchParams.get('q') ?? '';
      return json(200, { symbols: searchSymbols(q, Number(url.searchParams.get('limit') ?? 10)).map(view) });
    }
    if (url.pathname === '/api/symbols/resolve') {
      const symbol = url.searchParams.get('symbol') ?? '';
      const found = resolveSymbol(symbol);
      return found ? json(200, { symbol: view(found) }) : json(404, { error: unknownSymbolMessage(symbol) });
    }
    if (url.pathname === '/api/watchlists/alerts') {
      if (method === 'PUT') savedAlerts = (body as { symbols: string[] }).symbols;
      return json(200, { symbols: savedAlerts });
    }
    if (url.pathname.startsWith('/api/alerts')) return json(200, []);
    return json(404, { error: 'not stubbed' });
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}

function Harness({ form, onPick, onEnter }: { form: SymbolForm; onPick: (s: string) => void; onEnter: () => void }) {
  const [value, setValue] = useState('');
  return (
    <SymbolSearch
      form={form}
      label="Add symbol to the chart watchlist"
      value={value}
      onChange={setValue}
      onPick={(symbol) => {
        onPick(symbol);
        setValue('');
      }}
      onEnter={onEnter}
    />
  );
}

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('SymbolSearch', () => {
  it('suggests markets by name and walks them with the keyboard', async () => {
    const calls = stubServer();
    const onPick = vi.fn();
    const onEnter = vi.fn();
    render(withClient(<Harness form="tradingView" onPick={onPick} onEnter={onEnter} />));
    const input = screen.getByRole('combobox', { name: 'Add symbol to the chart watchlist' });
    expect(input.getAttribute('aria-expanded')).toBe('false');

    // Debounced: one search for the whole typed text, not one per keystroke.
    fireEvent.change(input, { target: { value: 'M' } });
    fireEvent.change(input, { target: { value: 'Micro E-mini' } });
    const listbox = await screen.findByRole('listbox');
    expect(input.getAttribute('aria-controls')).toBe(listbox.id);
    expect(input.getAttribute('aria-expanded')).toBe('true');
    const searches = calls.filter((call) => call.url.pathname === '/api/symbols/search');
    expect(searches.map((call) => call.url.searchParams.get('q'))).toEqual(['Micro E-mini']);

    const options = within(listbox).getAllByRole('option');
    expect(options[0]?.textContent).toContain('CME_MINI:MES1!');
    expect(options[0]?.textContent).toContain('Micro E-mini S&P 500');
    expect(options[0]?.textContent).toContain('Micro future');
    expect(input.getAttribute('aria-activedescendant')).toBeNull();

    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(input.getAttribute('aria-activedescendant')).toBe(options[0]?.id);
    expect(options[0]?.getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(input.getAttribute('aria-activedescendant')).toBe(options[1]?.id);
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(input.getAttribute('aria-activedescendant')).toBe(options[0]?.id);

    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onPick).toHaveBeenCalledWith('CME_MINI:MES1!');
    expect(onEnter).not.toHaveBeenCalled();
    expect(input.getAttribute('aria-expanded')).toBe('false');
  });

  it('leaves Enter without a chosen option to the input, and Escape closes the list', async () => {
    stubServer();
    const onPick = vi.fn();
    const onEnter = vi.fn();
    render(withClient(<Harness form="ticker" onPick={onPick} onEnter={onEnter} />));
    const input = screen.getByRole('combobox');

    fireEvent.change(input, { target: { value: 'micro gold' } });
    const listbox = await screen.findByRole('listbox');
    expect(within(listbox).getAllByRole('option')[0]?.textContent).toMatch(/^MGC/);
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(input.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('listbox')).toBeNull();

    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onEnter).toHaveBeenCalledTimes(1);
    expect(onPick).not.toHaveBeenCalled();

    // A click picks the plain ticker in the alerts panel's form.
    fireEvent.change(input, { target: { value: 'micro gol' } });
    const option = await screen.findByRole('option', { name: /MGC/ });
    fireEvent.mouseDown(option);
    fireEvent.click(option);
    expect(onPick).toHaveBeenCalledWith('MGC');
  });
});

describe('SymbolSearch while new suggestions load', () => {
  it('leaves Enter to the typed text even when the pointer rests on an earlier suggestion', async () => {
    stubServer();
    const onPick = vi.fn();
    const onEnter = vi.fn();
    render(withClient(<Harness form="tradingView" onPick={onPick} onEnter={onEnter} />));
    const input = screen.getByRole('combobox');

    fireEvent.change(input, { target: { value: 'Micro E-mini' } });
    const first = (await screen.findAllByRole('option'))[0]!;
    // The trader types a new symbol while the pointer rests on the earlier list's first option.
    fireEvent.change(input, { target: { value: 'nasdaq:aapl' } });
    fireEvent.mouseEnter(first);
    expect(first.textContent).toContain('CME_MINI:MES1!');
    expect(input.getAttribute('aria-activedescendant')).toBeNull();
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onPick).not.toHaveBeenCalled();
    expect(onEnter).toHaveBeenCalledTimes(1);

    // Once the list is the typed text's own, pointing at an option chooses it as before.
    fireEvent.change(input, { target: { value: 'apple' } });
    await waitFor(() => expect(screen.getAllByRole('option')[0]?.textContent).toContain('NASDAQ:AAPL'));
    fireEvent.mouseEnter(screen.getAllByRole('option')[0]!);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onPick).toHaveBeenCalledWith('NASDAQ:AAPL');
  });
});

describe('the alerts panel add', () => {
  it('explains an unknown symbol and does not add it; adds a known one', async () => {
    const calls = stubServer();
    render(withClient(<WatchlistAlerts />));
    // The compact view: the add journey is the same in the table view.
    fireEvent.click(screen.getByRole('button', { name: 'Chips' }));
    const chips = screen.getByRole('list', { name: 'Alert watchlist' });
    await waitFor(() => expect(chips.textContent).toContain('ETH'));

    fireEvent.click(screen.getByRole('button', { name: 'Add symbol' }));
    const input = screen.getByRole('combobox', { name: 'Symbol to add' });
    fireEvent.change(input, { target: { value: 'zzqx' } });
    fireEvent.submit(input.closest('form')!);
    const message = await screen.findByRole('alert');
    expect(message.textContent).toBe(unknownSymbolMessage('ZZQX'));
    expect(input.getAttribute('aria-describedby')).toBe(message.id);
    expect(calls.some((call) => call.method === 'PUT')).toBe(false);
    expect(chips.textContent).not.toContain('ZZQX');

    fireEvent.change(input, { target: { value: 'sol' } });
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.submit(input.closest('form')!);
    await waitFor(() => expect(chips.textContent).toContain('SOL'));
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({
      symbols: ['AAPL', 'TSLA', 'BTC', 'ETH', 'SOL'],
    });
    expect(screen.queryByRole('combobox', { name: 'Symbol to add' })).toBeNull();
  });
});
