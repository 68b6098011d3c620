// A WATOS-odds alert states an edge, so the rules runtime hands the symbol and timeframe of
// each such firing on (recordStatedOdds records the card behind it from market analysis in the
// track record, origin 'alert'); firings of other rule kinds state no odds and are not handed
// on. The evaluator is scripted here: what is under test is what the runtime does with the
// firings it records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import type { AlertRule, RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import { createMarketAnalysis } from '../analysis/service.ts';
import { createRulesRuntime, recordStatedOdds, type RuleEvaluatorLike } from './runtime.ts';
import type { ActiveRule, FiringDraft } from './types.ts';

const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
let test: TestApp;

beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});

/** Fires every loaded rule of the updated symbol once on the given bar. */
function scriptedEvaluator(): RuleEvaluatorLike {
  let rules: readonly ActiveRule[] = [];
  return {
    setRules: (loaded) => {
      rules = loaded;
    },
    symbols: () => new Set(rules.map((rule) => rule.symbol)),
    retire: () => undefined,
    evaluate: async (update) =>
      rules
        .filter((rule) => rule.symbol === update.productId)
        .map((rule): FiringDraft => ({
          ruleId: rule.id,
          userId: rule.userId,
          symbol: rule.symbol,
          triggerKey: update.minutes[0]!.time,
          barTime: update.minutes[0]!.time,
          price: update.minutes[0]!.close,
          message: rule.name,
          source: 'demo',
        })),
    // Bar updates only: nothing here is evaluated on ticks.
    evaluateTick: () => [],
    tickSymbols: () => new Set(),
    prepareTicks: () => Promise.resolve(),
  };
}

describe('WATOS-odds firings in the track record', () => {
  it('hands each WATOS-odds firing (once per symbol and timeframe) to the track record, and nothing else', async () => {
    const trader = await subscribedUser(test, 'stated-odds@example.com');
    const create = async (rule: object) => jsonBody<AlertRule>(await trader.browser.post('/api/alert-rules', rule));
    const base = { trigger: 'every_time', channels: ['in_app'] };
    await create({
      ...base,
      symbol: 'BTC-USD',
      timeframe: '1h',
      condition: { kind: 'watos_odds', outcome: 'rise', threshold: 55 },
    });
    await create({
      ...base,
      symbol: 'BTC-USD',
      timeframe: '1h',
      condition: { kind: 'watos_odds', outcome: 'fall', threshold: 55 },
    });
    await create({
      ...base,
      symbol: 'ETH-USD',
      timeframe: '1m',
      condition: { kind: 'price_cross', direction: 'above', level: 10 },
    });

    const stated: Array<[string, RuleTimeframe]> = [];
    const runtime = createRulesRuntime({
      db: test.database.db,
      bus: test.app.services.alertBus,
      evaluator: scriptedEvaluator(),
      enqueue: async () => undefined,
      log: quietLog,
      onStatedOdds: async (symbol, timeframe) => {
        stated.push([symbol, timeframe]);
      },
    });
    await runtime.sync();
    const time = Date.UTC(2026, 10, 25, 12, 0);
    const bar = { time, open: 100, high: 100, low: 100, close: 100, volume: 1 };
    const recorded = await runtime.onPass([
      { productId: 'BTC-USD', source: 'demo', minutes: [bar], hours: [], alerts: [] },
      { productId: 'ETH-USD', source: 'demo', minutes: [bar], hours: [], alerts: [] },
    ]);
    expect(recorded.firings).toHaveLength(3);
    expect(stated).toEqual([['BTC-USD', '1h']]);

    // A failing recorder never fails the pass.
    const failing = createRulesRuntime({
      db: test.database.db,
      bus: test.app.services.alertBus,
      evaluator: scriptedEvaluator(),
      enqueue: async () => undefined,
      log: quietLog,
      onStatedOdds: async () => {
        throw new Error('track record down');
      },
    });
    await failing.sync();
    const later = { ...bar, time: time + 60_000 };
    const again = await failing.onPass([
      { productId: 'BTC-USD', source: 'demo', minutes: [later], hours: [], alerts: [] },
    ]);
    expect(again.firings).toHaveLength(2);
  });
});

describe('recordStatedOdds', () => {
  it("records the rule's WATOS card from market analysis as origin 'alert', a 1D rule on the D card", async () => {
    const analysis = createMarketAnalysis({ market: test.app.services.market });
    const recorded: Array<[string, string, string, string]> = [];
    const record = recordStatedOdds(analysis, {
      record: (card, origin) => recorded.push([card.productId, card.timeframe, card.lastBarTime, origin]),
    });
    await record('BTC-USD', '1D');
    await record('ETH-USD', '1h');
    const daily = await analysis.watos('BTC-USD', 'D');
    const hourly = await analysis.watos('ETH-USD', '1h');
    expect(recorded).toEqual([
      ['BTC-USD', 'D', daily.lastBarTime, 'alert'],
      ['ETH-USD', '1h', hourly.lastBarTime, 'alert'],
    ]);
  });

  it('records nothing when market analysis has no card', async () => {
    const recorded: unknown[] = [];
    const record = recordStatedOdds(createMarketAnalysis({ market: test.app.services.market }), {
      record: (card) => recorded.push(card),
    });
    await expect(record('LSE:VOD', '1h')).rejects.toThrow(/No market data for LSE:VOD/);
    expect(recorded).toEqual([]);
  });
});
