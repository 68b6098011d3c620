// @vitest-environment jsdom
// The dashboard's Track record view (issue 20) over a stubbed fetch answering schema-valid
// records: nothing is asked for until the panel is opened; then the counts, the Brier scores and
// their verdict, the reliability diagram (a point a decile, the diagonal) and its table of the
// same numbers, each signal's hit rate with flagged signals marked, and the "Demo data" label;
// the filters reach the query; with nothing resolved the view says so and runs a backtest,
// shown marked as one.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  trackRecordResponse,
  type BacktestTrackRecord,
  type LiveTrackRecord,
} from '../../../shared/schemas/trackRecord.ts';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { skillVerdict } from './RecordScores.tsx';
import { BACKTEST_TITLE } from './TrackRecordPanel.tsx';
import { TrackRecordSection } from './TrackRecordSection.tsx';

const LIVE: LiveTrackRecord = {
  kind: 'live',
  source: 'demo',
  filters: { signal: null, symbol: null, assetClass: null, timeframe: null, period: 'all' },
  counts: { resolved: 1_500, pending: 42, unresolvable: 3 },
  brier: 0.2466,
  baseBrier: 0.2508,
  brierSkill: 0.0167,
  reliability: [
    { from: 0.3, to: 0.4, count: 300, stated: 0.36, realised: 0.41, interval: [0.355, 0.467] },
    { from: 0.5, to: 0.6, count: 1_000, stated: 0.54, realised: 0.52, interval: [0.489, 0.551] },
    { from: 0.7, to: 0.8, count: 200, stated: 0.72, realised: 0.66, interval: [0.592, 0.722] },
  ],
  signals: [
    {
      signal: 'watos1',
      name: 'Volume Surge',
      count: 1_212,
      stated: 0.53,
      realised: 0.51,
      hitRate: 0.49,
      brierSkill: -0.012,
      flagged: true,
    },
    {
      signal: 'watos4',
      name: 'RSI Divergence',
      count: 288,
      stated: 0.55,
      realised: 0.57,
      hitRate: 0.57,
      brierSkill: 0.03,
      flagged: false,
    },
  ],
  flagMinResolved: 100,
};

const EMPTY: LiveTrackRecord = {
  ...LIVE,
  counts: { resolved: 0, pending: 7, unresolvable: 0 },
  brier: null,
  baseBrier: null,
  brierSkill: null,
  reliability: [],
  signals: [],
};

const BACKTEST: BacktestTrackRecord = {
  kind: 'backtest',
  source: 'demo',
  filters: { symbol: 'BTC-USD', signal: null, timeframe: '1h' },
  horizonBars: 24,
  bars: 1_500,
  from: '2026-01-01T00:00:00.000Z',
  to: '2026-03-04T11:00:00.000Z',
  counts: { resolved: 812, pending: 24, unresolvable: 0 },
  brier: 0.2491,
  baseBrier: 0.2487,
  brierSkill: -0.0016,
  reliability: [{ from: 0.4, to: 0.5, count: 812, stated: 0.47, realised: 0.5, interval: [0.466, 0.534] }],
  signals: [
    {
      signal: 'watos2',
      name: 'Price Momentum',
      count: 812,
      stated: 0.47,
      realised: 0.5,
      hitRate: 0.5,
      brierSkill: -0.0016,
      flagged: false,
    },
  ],
  flagMinResolved: 100,
};

const EMPTY_COUNTS = { resolved: 0, pending: 0, unresolvable: 0 };

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** A fetch answering the track record (`live` for every filter) and the backtest; returns what was asked. */
function stubServer(live: LiveTrackRecord, backtest: BacktestTrackRecord = BACKTEST) {
  const asked: URL[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = requestedUrl(input);
      asked.push(url);
      // Every answer is what the server's schema allows.
      if (url.pathname === '/api/track-record') return json(trackRecordResponse.parse(live));
      if (url.pathname === '/api/track-record/backtest') return json(trackRecordResponse.parse(backtest));
      // The trader's own rules (issue 36; myRules.test.tsx): none has fired.
      if (url.pathname === '/api/track-record/mine') return json({ ...EMPTY, counts: EMPTY_COUNTS, rules: [] });
      // The traders' published rules: none yet.
      if (url.pathname === '/api/track-record/rules') return json({ ...EMPTY, counts: EMPTY_COUNTS });
      return json({ error: 'not stubbed' }, 404);
    }),
  );
  return asked;
}

async function openPanel() {
  render(withClient(<TrackRecordSection />));
  const section = screen.getByRole('region', { name: 'Track record' });
  fireEvent.click(within(section).getByRole('button', { name: 'Show track record' }));
  return section;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the Track record view', () => {
  it('asks for nothing until opened', () => {
    const asked = stubServer(LIVE);
    render(withClient(<TrackRecordSection />));
    const toggle = screen.getByRole('button', { name: 'Show track record' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByTestId('track-record-panel')).toBeNull();
    expect(asked).toEqual([]);
  });

  it('shows the counts, the scores in words, the reliability diagram with its table, hit rates and flags, labelled demo', async () => {
    const asked = stubServer(LIVE);
    const section = await openPanel();
    const live = await within(section).findByTestId('track-record-live', {}, { timeout: 5_000 });
    // The product's record (the trader's own rules' and the published rules' are asked for beside it: myRules.test.tsx).
    expect(
      asked
        .filter((url) => url.pathname !== '/api/track-record/mine' && url.pathname !== '/api/track-record/rules')
        .map((url) => url.pathname + url.search),
    ).toEqual(['/api/track-record?period=all']);

    expect(within(live).getByTestId('track-record-demo').textContent).toBe('Demo data');
    expect(within(live).queryByTestId('track-record-real')).toBeNull();
    expect(within(live).getByTestId('track-record-counts').textContent).toBe(
      '1,545 forecasts: 1,500 resolved, 42 pending, 3 unresolvable',
    );
    const scores = within(live).getByTestId('track-record-scores');
    expect(within(scores).getByText('Brier score').nextElementSibling?.textContent).toBe('0.2466');
    expect(within(scores).getByText('Base-rate Brier').nextElementSibling?.textContent).toBe('0.2508');
    expect(within(scores).getByText('Brier skill').nextElementSibling?.textContent).toBe('+0.017');
    expect(within(live).getByTestId('track-record-verdict').textContent).toBe(
      'The stated odds beat the base rate over 1,500 resolved forecasts (their Brier score is lower).',
    );

    // The diagram: one point a decile, sized by and labelled with its count, the diagonal, and
    // an image named for screen readers; the table holds the same numbers.
    const diagram = within(live).getByTestId('reliability-diagram');
    expect(within(diagram).getByRole('img', { name: /^Reliability diagram: live record/ })).toBeTruthy();
    expect(within(diagram).getByTestId('reliability-diagonal')).toBeTruthy();
    const points = within(diagram).getAllByTestId('reliability-point');
    expect(points.map((point) => point.getAttribute('data-count'))).toEqual(['300', '1000', '200']);
    expect(points.map((point) => point.textContent)).toEqual(['n=300', 'n=1,000', 'n=200']);
    const radii = points.map((point) => Number(point.querySelector('circle')!.getAttribute('r')));
    expect(radii[1]).toBeGreaterThan(radii[0]!);
    expect(radii[0]).toBeGreaterThan(radii[2]!);
    const rows = within(within(diagram).getByRole('table')).getAllByRole('row');
    expect(rows.map((row) => [...row.children].map((cell) => cell.textContent))).toEqual([
      ['Decile', 'Forecasts', 'Stated', 'Realised', '95% interval'],
      ['30–40%', '300', '36.0%', '41.0%', '35.5%–46.7%'],
      ['50–60%', '1,000', '54.0%', '52.0%', '48.9%–55.1%'],
      ['70–80%', '200', '72.0%', '66.0%', '59.2%–72.2%'],
    ]);

    const signals = within(live).getAllByTestId('track-record-signal');
    expect(signals.map((signal) => signal.getAttribute('data-signal'))).toEqual(['watos1', 'watos4']);
    expect(signals[0]!.textContent).toContain('Hit rate 49.0% of 1,212 forecasts');
    expect(within(signals[0]!).getByTestId('track-record-flag').textContent).toContain('Below base rate');
    expect(within(signals[1]!).queryByTestId('track-record-flag')).toBeNull();
    expect(signals[1]!.textContent).toContain('Hit rate 57.0% of 288 forecasts');
  });

  it('sends the filters and labels real-data records as such', async () => {
    const asked = stubServer({ ...LIVE, source: 'real' });
    const section = await openPanel();
    await within(section).findByTestId('track-record-live', {}, { timeout: 5_000 });
    expect(within(section).getByTestId('track-record-real').textContent).toBe('Real data');
    expect(within(section).queryByText('Demo data', { selector: 'span' })).toBeNull();

    fireEvent.change(within(section).getByLabelText('Signal'), { target: { value: 'watos4' } });
    fireEvent.change(within(section).getByLabelText('Timeframe'), { target: { value: '4h' } });
    fireEvent.change(within(section).getByLabelText('Asset class'), { target: { value: 'stock' } });
    fireEvent.change(within(section).getByLabelText('Period'), { target: { value: '30d' } });
    fireEvent.change(within(section).getByLabelText('Source'), { target: { value: 'real' } });
    const symbol = within(section).getByRole('combobox', { name: 'Symbol' });
    fireEvent.change(symbol, { target: { value: 'bitcoin' } });
    fireEvent.keyDown(symbol, { key: 'Enter' });
    await waitFor(() =>
      expect(asked.at(-1)?.search).toBe(
        '?signal=watos4&symbol=BTC-USD&assetClass=stock&timeframe=4h&period=30d&source=real',
      ),
    );
    // An unknown symbol is refused in the symbol table's words, and not sent.
    const before = asked.length;
    fireEvent.change(symbol, { target: { value: 'NOPE9' } });
    fireEvent.keyDown(symbol, { key: 'Enter' });
    expect((await within(section).findByRole('alert')).textContent).toContain('NOPE9');
    expect(asked.slice(before).filter((url) => url.pathname === '/api/track-record')).toEqual([]);
  });

  it('says when nothing is resolved yet and runs a backtest, marked as one', async () => {
    const asked = stubServer(EMPTY);
    const section = await openPanel();
    const empty = await within(section).findByTestId('track-record-empty', {}, { timeout: 5_000 });
    expect(empty.textContent).toContain('No forecast has been resolved yet for these filters (7 pending');
    expect(within(section).queryByTestId('reliability-diagram')).toBeNull();
    expect(within(section).queryByTestId('track-record-backtest')).toBeNull();

    fireEvent.change(within(section).getByLabelText('Signal'), { target: { value: 'watos2' } });
    fireEvent.change(within(section).getByLabelText('Timeframe'), { target: { value: '4h' } });
    fireEvent.click(await within(section).findByRole('button', { name: 'Run backtest' }));
    const backtest = await within(section).findByTestId('track-record-backtest');
    expect(within(backtest).getByRole('heading', { name: BACKTEST_TITLE })).toBeTruthy();
    expect(BACKTEST_TITLE).toBe('Backtest (walk-forward over stored history, not live forecasts)');
    const backtestUrl = asked.find((url) => url.pathname === '/api/track-record/backtest');
    expect(backtestUrl?.search).toBe('?symbol=BTC-USD&signal=watos2&timeframe=4h');
    await within(backtest).findByTestId('reliability-diagram');
    expect(within(backtest).getByTestId('track-record-demo')).toBeTruthy();
    expect(within(backtest).getByTestId('track-record-counts').textContent).toBe(
      '836 forecasts: 812 resolved, 24 pending, 0 unresolvable',
    );
    expect(within(backtest).getByTestId('track-record-verdict').textContent).toBe(
      'The stated odds did worse than the base rate over 812 resolved forecasts (their Brier score is higher).',
    );
    expect(within(backtest).getAllByTestId('reliability-point')).toHaveLength(1);
    fireEvent.click(within(backtest).getByRole('button', { name: 'Close backtest' }));
    expect(within(section).queryByTestId('track-record-backtest')).toBeNull();
  });
});

describe('skillVerdict', () => {
  it('says whether the odds beat the base rate, and nothing without a score', () => {
    const counts = { resolved: 1, pending: 0, unresolvable: 0 };
    expect(skillVerdict({ brierSkill: 0.1, counts })).toBe(
      'The stated odds beat the base rate over 1 resolved forecast (their Brier score is lower).',
    );
    expect(skillVerdict({ brierSkill: 0, counts })).toBe(
      'The stated odds did exactly as well as the base rate over 1 resolved forecast.',
    );
    expect(skillVerdict({ brierSkill: null, counts })).toBeNull();
  });
});
