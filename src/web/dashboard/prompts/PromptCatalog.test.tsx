// @vitest-environment jsdom
// The Prompt Catalog's Symbol select on every market (issue 15): every symbol of the table,
// grouped by asset class, by canonical id; a chosen stock or future fills the prompt.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SYMBOL_TABLE } from '../../../shared/symbols.ts';
import { PromptCatalog } from './PromptCatalog.tsx';

const PROMPT = 'What are the odds for {symbol}? Give the WATOS grid on the {timeframe} timeframe.';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the Prompt Catalog symbols', () => {
  it('lists every table symbol grouped by asset class and fills the prompt with the chosen one', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({
              prompts: [{ id: 'p1', category: 'Probability & Odds', prompt: PROMPT, uses_market_context: true }],
            }),
            { status: 200, headers: { 'Content-Type': 'application/json' } },
          ),
      ),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <PromptCatalog runPrompt={async () => undefined} attachment={null} />
      </QueryClientProvider>,
    );
    const form = screen.getByRole('region', { name: 'Prompt Catalog' });
    const symbol = within(form).getByLabelText<HTMLSelectElement>('Symbol');
    const groups = [...symbol.querySelectorAll('optgroup')];
    expect(groups.map((group) => group.label)).toEqual([
      'Crypto',
      'Stocks',
      'ETFs',
      'Indices',
      'Futures',
      'Micro futures',
    ]);
    expect(symbol.querySelectorAll('option')).toHaveLength(SYMBOL_TABLE.length);
    for (const group of groups) {
      const values = [...group.querySelectorAll('option')].map((option) => option.value);
      expect(values.length).toBeGreaterThan(0);
      const classes = new Set(values.map((id) => SYMBOL_TABLE.find((row) => row.id === id)?.assetClass));
      expect(classes.size).toBe(1);
    }
    expect(within(groups[0]!).getAllByRole('option')).toHaveLength(28);
    expect(symbol.value).toBe('BTC-USD');
    expect(within(groups[5]!).getByRole('option', { name: 'MES1! · Micro E-mini S&P 500' })).toBeTruthy();

    await within(form).findByRole('option', { name: 'Probability & Odds' });
    fireEvent.change(within(form).getByLabelText('Category'), { target: { value: 'Probability & Odds' } });
    fireEvent.change(within(form).getByLabelText('Prompt'), { target: { value: 'p1' } });
    fireEvent.change(symbol, { target: { value: 'AAPL' } });
    expect(within(form).getByTestId('prompt-preview').textContent).toBe(
      'What are the odds for AAPL? Give the WATOS grid on the 1h timeframe.',
    );
    fireEvent.change(symbol, { target: { value: 'MES1!' } });
    expect(within(form).getByTestId('prompt-preview').textContent).toBe(
      'What are the odds for MES1!? Give the WATOS grid on the 1h timeframe.',
    );
  });
});

describe('the Prompt Catalog prompt options', () => {
  it('label each prompt filled with the selected symbol and timeframe, never raw placeholders', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({
              prompts: [
                { id: 'p1', category: 'Probability & Odds', prompt: `"${PROMPT}"`, uses_market_context: true },
                {
                  id: 'p2',
                  category: 'Probability & Odds',
                  prompt: 'Summarize {symbol} today',
                  uses_market_context: true,
                },
              ],
            }),
            { status: 200, headers: { 'Content-Type': 'application/json' } },
          ),
      ),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <PromptCatalog runPrompt={async () => undefined} attachment={null} />
      </QueryClientProvider>,
    );
    const form = screen.getByRole('region', { name: 'Prompt Catalog' });
    await within(form).findByRole('option', { name: 'Probability & Odds' });
    fireEvent.change(within(form).getByLabelText('Category'), { target: { value: 'Probability & Odds' } });
    const labels = () =>
      within(within(form).getByLabelText('Prompt'))
        .getAllByRole('option')
        .map((option) => option.textContent);
    expect(labels()).toEqual([
      'Select a prompt',
      'What are the odds for BTC-USD? Give the WATOS grid on the 1h timeframe.',
      'Summarize BTC-USD today',
    ]);
    fireEvent.change(within(form).getByLabelText('Symbol'), { target: { value: 'AAPL' } });
    fireEvent.change(within(form).getByLabelText('Timeframe'), { target: { value: '4h' } });
    expect(labels()).toEqual([
      'Select a prompt',
      'What are the odds for AAPL? Give the WATOS grid on the 4h timeframe.',
      'Summarize AAPL today',
    ]);
    for (const label of labels()) expect(label).not.toMatch(/[{}[\]]/);
  });
});
