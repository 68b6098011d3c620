// @vitest-environment jsdom
// The Scanner panel (issue 36) over a stubbed fetch answering schema-valid bodies (the chart
// library is replaced at its boundary: jsdom has no canvas): the form's errors are the shared
// schema's, beside the field they name; a preset fills the form and runs; the results sort by
// any column (aria-sort) and each row opens its chart, joins the chart watchlist, makes an alert
// rule from the scan's conditions and studies the setup; the study shows its verdict, the
// "No measurable edge" badge, its statistics and the equity curve; a study already running
// (429) says how long to wait; a name already used is said beside the name.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  savedScan,
  scanResponse,
  studyResponse,
  type ScanPreset,
  type ScanResponse,
  type StudyResponse,
} from '../../../shared/schemas/scans.ts';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { AlertRulesProvider } from '../rules/AlertRulesProvider.tsx';
import { ScannerPanel } from './ScannerPanel.tsx';
import { retryAfterSeconds } from './scanApi.ts';
import { ruleFromScan } from './scanRule.ts';

const chartMock = vi.hoisted(() => ({ created: 0, removed: 0, data: [] as unknown[] }));

vi.mock('lightweight-charts', () => ({
  AreaSeries: {},
  ColorType: { Solid: 'solid' },
  createChart: () => {
    chartMock.created += 1;
    return {
      addSeries: () => ({ setData: (data: unknown[]) => chartMock.data.push(...data) }),
      timeScale: () => ({ fitContent: vi.fn() }),
      remove: () => {
        chartMock.removed += 1;
      },
    };
  },
}));

const PRESETS: ScanPreset[] = [
  {
    id: 'oversold-large-caps',
    name: 'Oversold large caps',
    description: 'Stocks with RSI(14) below 30',
    timeframe: '1D',
    conditions: [
      { kind: 'rsi', side: 'below', level: 30, period: 14 },
      { kind: 'asset_class', classes: ['stock'] },
    ],
  },
];

const row = (id: string, ticker: string, last: number, rsi: number, changePercent: number) => ({
  id,
  ticker,
  name: `${ticker} Inc.`,
  assetClass: 'stock',
  last,
  barTime: '2026-11-27T00:00:00.000Z',
  change: (last * changePercent) / 100,
  changePercent,
  values: [rsi, null],
  source: 'demo',
});

const RESULT: ScanResponse = {
  timeframe: '1D',
  evaluated: 2000,
  skipped: 12,
  matched: 3,
  rows: [row('AAPL', 'AAPL', 180.5, 21.4, -1.2), row('MSFT', 'MSFT', 402, 28.9, 0.5), row('TSLA', 'TSLA', 240, 25, -3)],
  asOf: '2026-11-28T00:00:00.000Z',
};

const STUDY: StudyResponse = {
  symbols: ['AAPL'],
  timeframe: '1D',
  horizon: 24,
  from: '2024-11-01T00:00:00.000Z',
  to: '2026-11-27T00:00:00.000Z',
  signals: 41,
  effectiveSamples: 33.5,
  rose: { share: 0.54, low: 0.39, high: 0.68 },
  baseRate: 0.52,
  edge: false,
  verdict:
    'When AAPL had RSI(14) below 30 on 1D, it closed higher 24 bars later 54% of the time (n=41, 95% 39-68%); base rate 52%: no measurable edge',
  outcomes: {
    hitRate: 0.54,
    averageMovePercent: 1.25,
    medianMovePercent: 0.8,
    adverseExcursionPercent: -3.1,
    favourableExcursionPercent: 4.2,
  },
  equity: [
    { time: '2025-01-02T00:00:00.000Z', equity: 1.01 },
    { time: '2025-01-02T00:00:00.000Z', equity: 1.02 },
    { time: '2025-02-03T00:00:00.000Z', equity: 0.99 },
  ],
  trades: 41,
  perSymbol: [{ symbol: 'AAPL', signals: 41, source: 'yahoo' }],
};

const SAVED = savedScan.parse({
  id: 5,
  name: 'Futures above EMA 50',
  timeframe: '4h',
  conditions: [
    { kind: 'price_vs_ema', side: 'above', period: 50 },
    { kind: 'asset_class', classes: ['future'] },
  ],
  createdAt: '2026-11-20T10:00:00.000Z',
  alertRuleId: null,
});

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

interface Asked {
  path: string;
  method: string;
  body: unknown;
}

/** The server: every answer is what its schema allows; `study` decides POST /api/studies. */
function stubServer(study: () => Response = () => json(studyResponse.parse(STUDY))) {
  const asked: Asked[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = requestedUrl(input);
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      asked.push({ path: url.pathname, method, body });
      if (url.pathname === '/api/scans/presets') return json(PRESETS);
      if (url.pathname === '/api/scans' && method === 'GET') return json({ scans: [SAVED] });
      if (url.pathname === '/api/scans/5/alert' && method === 'POST') return json({ ...SAVED, alertRuleId: 77 });
      if (url.pathname === '/api/scans' && method === 'POST')
        return json({ error: 'A scan named Oversold already exists' }, 409);
      if (url.pathname === '/api/scans/run') return json(scanResponse.parse(RESULT));
      if (url.pathname === '/api/studies') return study();
      if (url.pathname === '/api/watchlists/chart' && method === 'GET') return json({ symbols: ['NASDAQ:MSFT'] });
      if (url.pathname === '/api/watchlists/chart' && method === 'PUT') return json(body);
      return json({ error: 'not stubbed' }, 404);
    }),
  );
  return asked;
}

function renderPanel(onOpenChart = vi.fn()) {
  render(
    withClient(
      <AlertRulesProvider>
        <ScannerPanel onOpenChart={onOpenChart} />
      </AlertRulesProvider>,
    ),
  );
  return onOpenChart;
}

const field = (name: string) => screen.getByLabelText<HTMLInputElement>(name);

async function runPreset() {
  fireEvent.click(await screen.findByRole('button', { name: 'Oversold large caps' }));
  return screen.findByTestId('scan-table');
}

beforeEach(() => {
  chartMock.created = 0;
  chartMock.removed = 0;
  chartMock.data = [];
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the scan form', () => {
  it("shows the shared schema's errors beside the field they name, and sends nothing", async () => {
    const asked = stubServer();
    renderPanel();
    fireEvent.change(field('RSI level'), { target: { value: '150' } });
    fireEvent.click(screen.getByRole('button', { name: 'Run scan' }));
    const level = field('RSI level');
    await waitFor(() => expect(level.getAttribute('aria-invalid')).toBe('true'));
    const error = document.getElementById(level.getAttribute('aria-describedby')!);
    expect(error?.textContent).toBe('level must be between 0 and 100');

    // A second condition's error is its own: the first one's field stays clean once it is fixed.
    fireEvent.change(level, { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    fireEvent.change(field('Change (%)'), { target: { value: '-2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Run scan' }));
    const percent = field('Change (%)');
    await waitFor(() => expect(percent.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(percent.getAttribute('aria-describedby')!)?.textContent).toBe(
      'percent must be above 0',
    );
    expect(field('RSI level').getAttribute('aria-invalid')).toBeNull();

    // No condition at all: the list says so.
    fireEvent.click(screen.getByRole('button', { name: 'Remove condition 2' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove condition 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Run scan' }));
    expect(await screen.findByText('add at least one condition')).toBeTruthy();
    expect(asked.filter((entry) => entry.path === '/api/scans/run')).toEqual([]);
  });

  it('sends the conditions as numbers, with the kind chosen and its fields', async () => {
    const asked = stubServer();
    renderPanel();
    fireEvent.change(screen.getByLabelText('Condition 1'), { target: { value: 'price_vs_ema' } });
    fireEvent.change(field('EMA period'), { target: { value: '200' } });
    fireEvent.change(screen.getByLabelText('Timeframe'), { target: { value: '4h' } });
    fireEvent.click(screen.getByRole('button', { name: 'Run scan' }));
    await screen.findByTestId('scan-table');
    expect(asked.find((entry) => entry.path === '/api/scans/run')?.body).toEqual({
      timeframe: '4h',
      conditions: [{ kind: 'price_vs_ema', side: 'above', period: 200 }],
      limit: 100,
    });
  });

  it('a preset fills the form with its conditions and runs it', async () => {
    const asked = stubServer();
    renderPanel();
    await runPreset();
    expect(asked.find((entry) => entry.path === '/api/scans/run')?.body).toEqual({
      timeframe: '1D',
      conditions: PRESETS[0]!.conditions,
      limit: 100,
    });
    expect(screen.getByLabelText<HTMLSelectElement>('Timeframe').value).toBe('1D');
    expect(screen.getByLabelText<HTMLSelectElement>('Condition 1').value).toBe('rsi');
    expect(screen.getByLabelText<HTMLSelectElement>('RSI is').value).toBe('below');
    expect(field('RSI level').value).toBe('30');
    expect(screen.getByLabelText<HTMLSelectElement>('Condition 2').value).toBe('asset_class');
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Stocks' }).checked).toBe(true);
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Crypto' }).checked).toBe(false);
  });

  it('says beside the name when the server refuses it (409), and an empty name before asking', async () => {
    const asked = stubServer();
    renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Save scan' }));
    const name = field('Save this scan as');
    await waitFor(() =>
      expect(document.getElementById(name.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
        'name is required',
      ),
    );
    expect(asked.filter((entry) => entry.path === '/api/scans' && entry.method === 'POST')).toEqual([]);
    fireEvent.change(name, { target: { value: 'Oversold' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save scan' }));
    await waitFor(() =>
      expect(document.getElementById(name.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
        'A scan named Oversold already exists',
      ),
    );
    expect(asked.find((entry) => entry.path === '/api/scans' && entry.method === 'POST')?.body).toEqual(
      savedScan.omit({ id: true, createdAt: true, alertRuleId: true }).parse({
        name: 'Oversold',
        timeframe: '1h',
        conditions: [{ kind: 'rsi', side: 'below', level: 30, period: 14 }],
      }),
    );
  });
});

describe('saved scans', () => {
  it('load into the form, and alert when a symbol enters them through the chosen channels', async () => {
    const asked = stubServer();
    renderPanel();
    const item = await screen.findByTestId('saved-scan');
    fireEvent.click(within(item).getByRole('button', { name: 'Load the scan Futures above EMA 50' }));
    expect(screen.getByLabelText<HTMLSelectElement>('Timeframe').value).toBe('4h');
    expect(screen.getByLabelText<HTMLSelectElement>('Condition 1').value).toBe('price_vs_ema');
    expect(field('EMA period').value).toBe('50');
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Futures' }).checked).toBe(true);

    fireEvent.click(within(item).getByRole('checkbox', { name: 'E-mail' }));
    const alert = within(item).getByRole<HTMLInputElement>('checkbox', {
      name: 'Alert me when a symbol enters this scan',
    });
    fireEvent.click(alert);
    await waitFor(() => expect(alert.checked).toBe(true));
    expect(asked.find((entry) => entry.path === '/api/scans/5/alert')?.body).toEqual({ channels: ['in_app', 'email'] });
  });
});

describe('the results', () => {
  it('sort by a column, ascending then descending then as answered, with aria-sort', async () => {
    stubServer();
    renderPanel();
    const table = await runPreset();
    const order = () =>
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((tr) => tr.dataset.symbol);
    expect(order()).toEqual(['AAPL', 'MSFT', 'TSLA']);
    const rsi = within(table).getByRole('columnheader', { name: /RSI\(14\)/ });
    fireEvent.click(within(rsi).getByRole('button'));
    expect(rsi.getAttribute('aria-sort')).toBe('ascending');
    expect(order()).toEqual(['AAPL', 'TSLA', 'MSFT']);
    fireEvent.click(within(rsi).getByRole('button'));
    expect(rsi.getAttribute('aria-sort')).toBe('descending');
    expect(order()).toEqual(['MSFT', 'TSLA', 'AAPL']);
    fireEvent.click(within(rsi).getByRole('button'));
    expect(rsi.getAttribute('aria-sort')).toBe('none');
    expect(order()).toEqual(['AAPL', 'MSFT', 'TSLA']);

    const percent = within(table).getByRole('columnheader', { name: /% Change/ });
    fireEvent.click(within(percent).getByRole('button'));
    expect(order()).toEqual(['TSLA', 'AAPL', 'MSFT']);
    // The watchlist table's figures: the price, the signed change in colour.
    const aapl = within(table).getAllByRole('row')[2]!;
    expect(within(aapl).getByTestId('scan-last').textContent).toBe('180.50');
    expect(aapl.textContent).toContain('−1.20%');
    expect(aapl.textContent).toContain('21.4');
  });

  it('opens a row’s chart, adds it to the chart watchlist and makes an alert rule from the scan', async () => {
    const asked = stubServer();
    const onOpenChart = renderPanel();
    await runPreset();
    fireEvent.click(screen.getByRole('button', { name: 'Open the TSLA chart' }));
    expect(onOpenChart).toHaveBeenCalledWith('TSLA');

    fireEvent.click(screen.getByRole('button', { name: 'Add TSLA to the watchlist' }));
    await waitFor(() =>
      expect(asked.find((entry) => entry.path === '/api/watchlists/chart' && entry.method === 'PUT')?.body).toEqual({
        symbols: ['NASDAQ:MSFT', 'NASDAQ:TSLA'],
      }),
    );

    fireEvent.click(screen.getByRole('button', { name: 'Make an alert rule for TSLA from this scan' }));
    const dialog = await screen.findByRole('dialog', { name: 'New alert rule' }, { timeout: 5_000 });
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Condition').value).toBe('rsi');
    expect(within(dialog).getByLabelText<HTMLInputElement>('RSI level').value).toBe('30');
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Direction').value).toBe('below');
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Timeframe').value).toBe('1D');
  });
});

describe('the setup study', () => {
  it('runs for a row and shows the verdict, the no-edge badge, the statistics and the equity curve', async () => {
    const asked = stubServer();
    renderPanel();
    await runPreset();
    fireEvent.click(screen.getByRole('button', { name: 'Study this setup on AAPL' }));
    const result = await screen.findByTestId('study-result');
    expect(asked.find((entry) => entry.path === '/api/studies')?.body).toEqual({
      symbols: ['AAPL'],
      timeframe: '1D',
      conditions: PRESETS[0]!.conditions,
      horizon: 24,
      feePercent: 0.1,
    });
    expect(within(result).getByTestId('study-verdict').textContent).toBe(STUDY.verdict);
    expect(within(result).getByTestId('study-no-edge').textContent).toBe('No measurable edge');
    // Yahoo's bars: no demo label.
    expect(within(result).queryByTestId('study-demo')).toBeNull();
    const estimate = within(result).getByTestId('study-estimate').textContent;
    expect(estimate).toContain('Signals (n)41');
    expect(estimate).toContain('Effective samples33.5');
    expect(estimate).toContain('Closed higher54%95% 39%–68%');
    expect(estimate).toContain('Base rate52%');
    const outcomes = within(result).getByTestId('study-outcomes').textContent;
    expect(outcomes).toContain('Hit rate54%');
    expect(outcomes).toContain('Average move+1.25%');
    expect(outcomes).toContain('Median move+0.80%');
    expect(outcomes).toContain('Adverse excursion−3.10%');
    expect(outcomes).toContain('Favourable excursion+4.20%');
    // One chart, a named figure (the library's attribution link inside it is no image's part),
    // the curve in seconds, one point a second (the later equity of the same second).
    expect(within(result).getByRole('figure', { name: /^Equity curve of AAPL: equity from 1 to 0\.990/ })).toBeTruthy();
    await waitFor(() => expect(chartMock.created).toBe(1));
    expect(chartMock.data).toEqual([
      { time: Date.parse('2025-01-02T00:00:00.000Z') / 1000, value: 1.02 },
      { time: Date.parse('2025-02-03T00:00:00.000Z') / 1000, value: 0.99 },
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Close study' }));
    expect(chartMock.removed).toBe(1);
  });

  it('with an edge, shows no badge; the study form checks the horizon before asking', async () => {
    const asked = stubServer(() =>
      json(
        studyResponse.parse({
          ...STUDY,
          edge: true,
          perSymbol: [
            { symbol: 'AAPL', signals: 20, source: 'yahoo' },
            { symbol: 'BTC-USD', signals: 21, source: 'demo' },
          ],
        }),
      ),
    );
    renderPanel();
    await runPreset();
    fireEvent.click(screen.getByRole('button', { name: 'Study this setup on the matches' }));
    fireEvent.change(field('Horizon (bars)'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Run study' }));
    expect(field('Horizon (bars)').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('horizon must be at least 1')).toBeTruthy();
    expect(asked.filter((entry) => entry.path === '/api/studies')).toEqual([]);
    fireEvent.change(field('Horizon (bars)'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: 'Run study' }));
    await screen.findByTestId('study-result');
    expect(screen.queryByTestId('study-no-edge')).toBeNull();
    // A symbol on the demo feed: the verdict is labelled, naming it.
    const demo = screen.getByTestId('study-demo');
    expect(demo.textContent).toBe('Demo data');
    expect(demo.getAttribute('title')).toBe("Simulated bars of the demo feed, not a market's: BTC-USD");
    expect(asked.find((entry) => entry.path === '/api/studies')?.body).toMatchObject({
      symbols: ['AAPL', 'MSFT', 'TSLA'],
      horizon: 12,
    });
  });

  it('a study already running (429) says how many seconds to wait, from Retry-After', async () => {
    stubServer(() => json({ error: 'busy' }, 429, { 'Retry-After': '12' }));
    renderPanel();
    await runPreset();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Study this setup on MSFT' }));
    });
    expect((await screen.findByTestId('study-error')).textContent).toBe(
      'A study is already running; try again in 12 s',
    );
  });
});

describe('the scanner’s rules', () => {
  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds('30')).toBe(30);
    expect(retryAfterSeconds('Sat, 28 Nov 2026 10:00:05 GMT', Date.parse('2026-11-28T10:00:00Z'))).toBe(5);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
  });

  it('a rule carries the first scan condition with a rule counterpart, and names the others', () => {
    expect(
      ruleFromScan(
        [
          { kind: 'asset_class', classes: ['future'] },
          { kind: 'change', side: 'below', percent: 2, bars: 4 },
          { kind: 'rsi', side: 'above', level: 70, period: 14 },
        ],
        '15m',
      ),
    ).toEqual({
      condition: { kind: 'percent_move', percent: -2, windowMinutes: 60 },
      leftOut: ['Asset class', 'RSI above / below'],
    });
    expect(ruleFromScan([{ kind: 'change', side: 'above', percent: 2, bars: 48 }], '1h').condition).toBeNull();
  });
});
