// @vitest-environment jsdom
// "My rules" in the Track record view (issue 36, item 3), over a stubbed fetch: the trader's own
// rules' record scored with the product's parts (counts, Brier skill in words, reliability
// diagram), one line per rule with its figures, and the publish switch: it posts the rule's id
// and state, moves at once, and goes back with the server's reason when refused.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { MyRulesRecord } from './MyRulesRecord.tsx';
import { myTrackRecordResponse, type MyTrackRecord } from './myRulesApi.ts';

const MINE: MyTrackRecord = {
  source: 'real',
  counts: { resolved: 40, pending: 3, unresolvable: 1 },
  brier: 0.21,
  baseBrier: 0.25,
  brierSkill: 0.16,
  reliability: [
    { from: 0.5, to: 0.6, count: 25, stated: 0.55, realised: 0.6, interval: [0.41, 0.77] },
    { from: 0.6, to: 0.7, count: 15, stated: 0.65, realised: 0.67, interval: [0.42, 0.85] },
  ],
  signals: [],
  flagMinResolved: 100,
  rules: [
    {
      ruleId: 7,
      name: 'AAPL RSI below 30',
      symbol: 'AAPL',
      published: false,
      resolved: 30,
      pending: 2,
      hitRate: 0.6,
      brierSkill: 0.2,
    },
    { ruleId: 9, name: 'BTC breakout', symbol: 'BTC-USD', published: true, resolved: 10, pending: 1 },
  ],
};

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** A fetch keeping the record as the server would (a publish it accepts is in the next read); returns the publish bodies. */
function stubServer(initial: MyTrackRecord, publishStatus = 200) {
  let mine = initial;
  const published: Array<{ ruleId: number; published: boolean }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = requestedUrl(input);
      if (url.pathname === '/api/track-record/mine') return json(myTrackRecordResponse.parse(mine));
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
        return json({ ok: true });
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
    await waitFor(() => expect(published).toEqual([{ ruleId: 7, published: true }]));
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

  it('says so when none of the rules has fired', async () => {
    stubServer({ ...MINE, counts: { resolved: 0, pending: 0, unresolvable: 0 }, reliability: [], rules: [] });
    render(withClient(<MyRulesRecord />));
    expect((await screen.findByTestId('my-rules-empty')).textContent).toContain(
      'None of your alert rules has fired yet',
    );
    expect(screen.queryByTestId('reliability-diagram')).toBeNull();
  });
});
