// Alert rules inside the real alert engine on the demo feed: a rule fires on the bar where the
// feed crosses its level, its e-mail reaches the outbox through the delivery queue, a pass
// cut short after the firing was recorded (a crash before the bars were stored) is re-run by
// a restarted engine without firing twice, and a user without a subscription gets nothing.
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertEngine } from '../alerts/routes.ts';
import type { UserFiring } from '../alerts/service.ts';
import { alertRules, candles, ruleDeliveries, ruleFirings } from '../db/schema.ts';
import { latestOutboxMessages } from '../mail/service.ts';
import { createDemoFeed } from '../market/demoFeed.ts';
import { latestCandles } from '../market/service.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { signedInUser, subscribedUser } from '../testing/users.ts';
import { formatPrice } from '../../shared/format.ts';
import type { AlertRule, RuleCondition, RuleDelivery, RuleFiring } from '../../shared/schemas/alertRules.ts';
import { createRuleEvaluator } from './evaluator.ts';
import { createRulesRuntime, type RulesRuntime } from './runtime.ts';
import { createAllShards } from '../live/shards.ts';

const MINUTE = 60_000;
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
let test: TestApp;
let clock = Date.UTC(2026, 4, 20, 12, 0, 30);
const feed = createDemoFeed({ now: () => clock });

function engine(rules: Pick<RulesRuntime, 'sync' | 'onPass'>) {
  return createAlertEngine({
    database: test.database,
    shards: createAllShards(),
    provider: feed,
    source: 'demo',
    bus: test.app.services.alertBus,
    log: quietLog,
    products: ['BTC-USD'],
    now: () => clock,
    backfillHourDays: 3,
    backfillMinuteDays: 1,
    rules,
  });
}

/** A fresh runtime and evaluator on the app's database, bus and delivery queue: a restarted leader. */
function restartedRuntime(): RulesRuntime {
  const { database, alertBus, deliveries } = test.app.services;
  return createRulesRuntime({
    db: database.db,
    bus: alertBus,
    evaluator: createRuleEvaluator({
      history: (id, granularity, limit) => latestCandles(database.db, id, granularity, limit),
    }),
    enqueue: (ids) => deliveries.enqueue(ids),
    log: quietLog,
  });
}

async function minuteBars() {
  const [row] = await test.database.db
    .select({ n: count() })
    .from(candles)
    .where(and(eq(candles.productId, 'BTC-USD'), eq(candles.granularity, 60)));
  return row!.n;
}

beforeAll(async () => {
  test = await createTestApp({ DELIVERY_RETRY_BASE_SECONDS: '1' });
});
afterAll(async () => {
  await test?.close();
});

describe('alert rules in the alert engine', () => {
  it('fires once on the crossing bar, delivers by e-mail, and neither misses nor repeats across a crash', async () => {
    const trader = await subscribedUser(test, 'engine-rules@example.com');
    const lapsed = await signedInUser(test, 'engine-rules-unpaid@example.com');
    expect(await engine(restartedRuntime()).tick()).toBeGreaterThanOrEqual(0);
    const stored = await minuteBars();
    expect(stored).toBe(1440);

    // The level: half-way between the last stored close and the highest close of the next
    // half hour, so the feed crosses it; the expected bar is the first close at or above it.
    const [last] = await latestCandles(test.database.db, 'BTC-USD', 60, 1);
    const ahead = createDemoFeed({ now: () => clock + 31 * MINUTE });
    const next = await ahead.candles('BTC-USD', 60, new Date(last!.time + MINUTE), new Date(last!.time + 31 * MINUTE));
    const highest = Math.max(...next.map((bar) => bar.close));
    expect(highest).toBeGreaterThan(last!.close);
    const level = Math.round(((last!.close + highest) / 2) * 100) / 100;
    const crossing = next.find(
      (bar, index) => (index === 0 ? last!.close : next[index - 1]!.close) < level && bar.close >= level,
    )!;
    expect(crossing).toBeDefined();

    const rule = {
      symbol: 'COINBASE:BTCUSD',
      timeframe: '1m',
      condition: { kind: 'price_cross', direction: 'above', level } satisfies RuleCondition,
      trigger: 'once',
      channels: ['in_app', 'email'],
      message: '{{ticker}} through {{close}} at {{time}}',
    };
    const created = jsonBody<AlertRule>(await trader.browser.post('/api/alert-rules', rule));
    // The same rule for a user whose plan is not active: stored directly, it must never fire.
    await test.database.db.insert(alertRules).values({
      userId: lapsed.userId,
      name: 'lapsed',
      symbol: 'BTC-USD',
      timeframe: '1m',
      condition: rule.condition,
      trigger: 'every_time',
      channels: ['in_app'],
    });

    const heard: UserFiring[] = [];
    const stop = test.app.services.alertBus.subscribeFirings((event) => heard.push(event));

    // A leader that records the firings and dies before storing the bars.
    clock += 30 * MINUTE;
    const dying = restartedRuntime();
    const crashing = engine({
      sync: () => dying.sync(),
      onPass: async (updates) => {
        await dying.onPass(updates);
        throw new Error('instance died');
      },
    });
    await expect(crashing.tick()).rejects.toThrow('instance died');
    expect(await minuteBars()).toBe(stored);
    expect(heard).toHaveLength(1);

    // The next leader re-runs the same bars: they are stored now, and nothing fires twice.
    await engine(restartedRuntime()).tick();
    expect(await minuteBars()).toBe(stored + 30);
    const firings = await test.database.db.select().from(ruleFirings);
    expect(firings).toHaveLength(1);
    expect(firings[0]).toMatchObject({ ruleId: created.id, userId: trader.userId, barTime: new Date(crossing.time) });
    const time = new Date(crossing.time + MINUTE).toISOString().slice(0, 16).replace('T', ' ');
    expect(firings[0]!.message).toBe(`BTC through ${formatPrice(crossing.close)} at ${time} UTC`);
    expect(firings[0]!.price).toBe(crossing.close);
    expect(heard).toHaveLength(1);
    expect(heard[0]!.userId).toBe(trader.userId);
    stop();

    // The e-mail goes out once through the queue; the in-app row was delivered at once.
    await expect
      .poll(
        async () => {
          const rows = await test.database.db.select().from(ruleDeliveries).where(eq(ruleDeliveries.channel, 'email'));
          return rows.map((row) => row.status);
        },
        { timeout: 15_000, interval: 200 },
      )
      .toEqual(['delivered']);
    const mails = (await latestOutboxMessages(test.database.db, 'engine-rules@example.com')).filter((mail) =>
      mail.subject.startsWith('Alert:'),
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(firings[0]!.message);

    const triggered = jsonBody<{ firings: RuleFiring[] }>(await trader.browser.get('/api/alert-rules/triggered'));
    expect(triggered.firings.map((firing) => firing.price)).toEqual([crossing.close]);
    const log = jsonBody<{ deliveries: RuleDelivery[] }>(await trader.browser.get('/api/alert-rules/deliveries'));
    expect(log.deliveries.map((row) => [row.channel, row.status, row.attempts]).sort()).toEqual([
      ['email', 'delivered', 1],
      ['in_app', 'delivered', 1],
    ]);
    const [after] = jsonBody<{ rules: AlertRule[] }>(await trader.browser.get('/api/alert-rules')).rules;
    expect(after).toMatchObject({ status: 'triggered', triggerCount: 1 });

    // Later passes: the "once" rule stays silent, the unsubscribed user's rule never fires.
    clock += 30 * MINUTE;
    await engine(restartedRuntime()).tick();
    expect(await test.database.db.select().from(ruleFirings)).toHaveLength(1);
  });
});
