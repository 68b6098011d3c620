// @vitest-environment jsdom
// "My rules" in the Track record view (issue 36, item 3), over a stubbed fetch: the trader's own
// rules' record scored with the product's parts (counts, Brier skill in words, reliability
// diagram), one line per rule (its `rule:<id>` scores) with its figures, and the publish switch:
// it posts the rule's id and state, moves at once, and goes back with the server's reason when refused.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { MyRulesRecord } from './MyRulesRecord.tsx';
import { PublishedRulesRecord } from './PublishedRulesRecord.tsx';
import {
  myTrackRecordResponse,
  type MyTrackRecord as MyTrackRecordAnswer,
} from '../../../shared/schemas/trackRecord.ts';

const signal = (ruleId: number, name: string, count: number, hitRate: number, brierSkill: number | null) => ({
  signal: `rule:${ruleId}`,
  name,
  count,
  stated: 0.55,
  realised: hitRate,
  hitRate,
  brierSkill,
  flagged: false,
});

/** As GET /api/track-record/mine answers: the live record's shape, one "signal" a rule, and the rules' flags. */
const MINE: MyTrackRecordAnswer = {
  kind: 'live',
  filters: { signal: null, symbol: null, assetClass: null, timeframe: null, period: 'all' },
  source: 'real',
  counts: { resolved: 40, pending: 3, unresolvable: 1 },
  brier: 0.21,
  baseBrier: 0.25,
  brierSkill: 0.16,
  reliability: [
    { from: 0.5, to: 0.6, count: 25, stated: 0.55, realised: 0.6, interval: [0.41, 0.77] },
    { from: 0.6, to: 0.7, count: 15, stated: 0.65, realised: 0.67, interval: [0.42, 0.85] },
  ],
  signals: [signal(7, 'AAPL RSI below 30', 30, 0.6, 0.2), signal(9, 'BTC breakout', 10, 0.5, null)],
  flagMinResolved: 100,
  rules: [
    { ruleId: 7, name: 'AAPL RSI below 30', published: false, pending: 2, resolved: 30 },
    { ruleId: 9, name: 'BTC breakout', published: true, pending: 1, resolved: 10 },
  ],
};

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** A fetch keeping the record as the server would (a publish it accepts is in the next read); returns the publish bodies. */
function stubServer(initial: MyTrackRecordAnswer, publishStatus = 200) {
  let mine = initial;
  const published: Array<{ ruleId: number; published: boolean }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = requestedUrl(input);
      if (url.pathname === '/api/track-record/mine') {
        myTrackRecordResponse.parse(mine);
        return json(mine);
      }
      if (url.pathname === '/api/track-record/mine/publish' && init?.method === 'POST') {
        const body = JSON.parse(init.body as string) as { ruleId: number; published: boolean };
        published.push(body);
        if (publishStatus !== 200)
          return json({ error: 'Only rules with a resolved firing can be published' }, publishStatus);
        mine = {
          ...mine,
          rules: mine.rules.map((rule) =>
            rule.ruleId === body.ruleId ? { ...rule, published: body.published } : rule,
          ),
        };
        return json({ ...body, forecasts: 12 });
      }
      return json({ error: 'not stubbed' }, 404);
    }),
  );
  return published;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('My rules in the track record', () => {
  it("shows the rules' record with the product's scores and diagram, and one line per rule", async () => {
    stubServer(MINE);
    render(withClient(<MyRulesRecord />));
    const section = await screen.findByTestId('my-rules-record');
    await within(section).findByTestId('reliability-diagram');
    expect(
      within(section)
        .getAllByTestId('reliability-point')
        .map((point) => point.dataset.count),
    ).toEqual(['25', '15']);
    expect(within(section).getByTestId('track-record-verdict').textContent).toBe(
      'The stated odds beat the base rate over 40 resolved forecasts (their Brier score is lower).',
    );
    expect(within(section).getByTestId('track-record-scores').textContent).toContain('+0.160');
    const lines = within(section).getAllByTestId('my-rule');
    expect(lines.map((line) => line.dataset.rule)).toEqual(['7', '9']);
    expect(lines[0]!.textContent).toContain('30 resolved · 2 pending · hit rate 60.0% · skill +0.200');
    expect(lines[1]!.textContent).toContain('10 resolved · 1 pending · hit rate 50.0%');
    // Each rule's figures are on its line, not repeated as the product's "by signal" list.
    expect(within(section).queryByTestId('track-record-signals')).toBeNull();
    const first = within(lines[0]!).getByRole('switch', { name: 'Publish the record of AAPL RSI below 30' });
    const second = within(lines[1]!).getByRole('switch', { name: 'Publish the record of BTC breakout' });
    expect((first as HTMLInputElement).checked).toBe(false);
    expect((second as HTMLInputElement).checked).toBe(true);
  });

  it("publishes a rule's record: the switch moves and the server is told the rule and the state", async () => {
    const published = stubServer(MINE);
    render(withClient(<MyRulesRecord />));
    const toggle = await screen.findByRole('switch', { name: 'Publish the record of AAPL RSI below 30' });
    fireEvent.click(toggle);
    // Once the server has answered (the switch is usable again), it stays on.
    await waitFor(() => {
      expect(published).toEqual([{ ruleId: 7, published: true }]);
      expect((toggle as HTMLInputElement).disabled).toBe(false);
    });
    expect((toggle as HTMLInputElement).checked).toBe(true);
  });

  it('puts the switch back and says why when the server refuses', async () => {
    stubServer(MINE, 400);
    render(withClient(<MyRulesRecord />));
    const toggle = await screen.findByRole('switch', { name: 'Publish the record of AAPL RSI below 30' });
    fireEvent.click(toggle);
    expect((await screen.findByRole('alert')).textContent).toBe('Only rules with a resolved firing can be published');
    expect((toggle as HTMLInputElement).checked).toBe(false);
  });

  it("shows each rule's published flag as the server keeps it (a reload shows what was chosen)", async () => {
    stubServer(MINE);
    render(withClient(<MyRulesRecord />));
    const btc = await screen.findByRole<HTMLInputElement>('switch', { name: 'Publish the record of BTC breakout' });
    const aapl = screen.getByRole<HTMLInputElement>('switch', { name: 'Publish the record of AAPL RSI below 30' });
    expect([btc.checked, aapl.checked]).toEqual([true, false]);
  });

  it('lists a rule whose firings are all still pending, with its switch', async () => {
    stubServer({
      ...MINE,
      rules: [...MINE.rules, { ruleId: 11, name: 'ETH above 4000', published: false, pending: 1, resolved: 0 }],
    });
    render(withClient(<MyRulesRecord />));
    const line = (await screen.findAllByTestId('my-rule')).find((item) => item.dataset.rule === '11')!;
    expect(line.textContent).toContain('ETH above 4000');
    expect(line.textContent).toContain('0 resolved · 1 pending');
    expect(within(line).getByRole('switch', { name: 'Publish the record of ETH above 4000' })).toBeTruthy();
  });

  it('says so when none of the rules has fired', async () => {
    stubServer({
      ...MINE,
      counts: { resolved: 0, pending: 0, unresolvable: 0 },
      reliability: [],
      signals: [],
      rules: [],
    });
    render(withClient(<MyRulesRecord />));
    expect((await screen.findByTestId('my-rules-empty')).textContent).toContain(
      "No firing of your alert rules is a forecast yet: a firing becomes one here when its rule's setup has at least 30 past signals",
    );
    expect(screen.queryByTestId('reliability-diagram')).toBeNull();
  });
});

describe("the traders' published rules", () => {
  it('scores the published rules with the record parts, apart from the product', async () => {
    const { rules: _flags, ...record } = MINE;
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        const url = requestedUrl(input);
        asked.push(url.pathname);
        return url.pathname === '/api/track-record/rules' ? json(record) : json({ error: 'not stubbed' }, 404);
      }),
    );
    render(withClient(<PublishedRulesRecord />));
    const section = await screen.findByTestId('published-rules-record');
    await within(section).findByTestId('reliability-diagram');
    expect(section.textContent).toContain('AAPL RSI below 30');
    expect(asked).toEqual(['/api/track-record/rules']);
  });

  it('says so when no published rule has a resolved firing', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ ...MINE, counts: { resolved: 0, pending: 0, unresolvable: 0 }, signals: [] })),
    );
    render(withClient(<PublishedRulesRecord />));
    expect((await screen.findByTestId('published-rules-empty')).textContent).toBe(
      'No published rule has a resolved firing yet.',
    );
  });
});
