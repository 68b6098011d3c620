// The rules runtime on ticks against the app's database: tick firings recorded in a batch
// (flushTicks awaits it), a fresh runtime replaying the same ticks after a restart records
// nothing twice, a failing database is tried again without the feed noticing, and the
// priceUpdate test hook reaches both the tick rules and the close-only ones.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.ts';
import { alertRules, ruleFirings } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { waitFor } from '../testing/waitFor.ts';
import type { AlertRule } from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { createRuleEvaluator, type RuleEvaluator } from './evaluator.ts';
import { createRulesRuntime } from './runtime.ts';
import { latestCandles } from '../market/service.ts';

const SECOND = 1000;
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 4, 20, 12);
let test: TestApp;
let trader: Awaited<ReturnType<typeof subscribedUser>>;
const logged: Array<[string, string]> = [];
const log = {
  warn: (_: object, message: string) => logged.push(['warn', message]),
  error: (_: object, message: string) => logged.push(['error', message]),
};

function runtime(
  options: {
    db?: Database;
    evaluator?: RuleEvaluator;
    tickRetryMs?: number;
    enqueue?: (ids: number[]) => Promise<void>;
  } = {},
) {
  const { database, alertBus, deliveries } = test.app.services;
  return createRulesRuntime({
    db: options.db ?? database.db,
    bus: alertBus,
    evaluator:
      options.evaluator ??
      createRuleEvaluator({ history: (id, granularity, limit) => latestCandles(database.db, id, granularity, limit) }),
    enqueue: options.enqueue ?? ((ids) => deliveries.enqueue(ids)),
    log,
    tickSyncMs: 0,
    tickRetryMs: options.tickRetryMs ?? 1000,
  });
}

/** The test database, except that a transaction fails with `message` whenever `refuse()` says so. */
function refusingTransactions(message: string, refuse: () => boolean): Database {
  return new Proxy(test.database.db, {
    get(target, property, receiver) {
      if (property === 'transaction' && refuse()) return () => Promise.reject(new Error(message));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const tick = (price: number, time: number): LiveTick => ({
  symbol: 'ETH-USD',
  price,
  time,
  source: 'coinbase',
  delayMinutes: 0,
  bar: null,
});

/** A walk through the levels 3000 and 3010 and back, twice a minute for three minutes. */
const STREAM: LiveTick[] = [0, 1, 2].flatMap((minute) =>
  [2995, 3001, 2999, 3012, 3004, 2998].map((price, index) =>
    tick(price + minute, T0 + minute * MINUTE + (index + 1) * 5 * SECOND),
  ),
);

async function create(rule: object): Promise<AlertRule> {
  const response = await trader.browser.post('/api/alert-rules', { symbol: 'ETH-USD', channels: ['in_app'], ...rule });
  expect(response.statusCode).toBe(201);
  return jsonBody<AlertRule>(response);
}

beforeAll(async () => {
  test = await createTestApp();
  trader = await subscribedUser(test, 'tick-rules@example.com');
});
afterAll(async () => {
  await test?.close();
});
beforeEach(async () => {
  await test.database.db.delete(ruleFirings);
  await test.database.db.delete(alertRules);
  logged.length = 0;
});

describe('rules on ticks in the runtime', () => {
  it('publishes a tick firing on the bus without waiting for its deliveries to be queued', async () => {
    const rule = await create({
      timeframe: '1m',
      trigger: 'every_time',
      channels: ['in_app', 'email'],
      condition: { kind: 'price_cross', direction: 'above', level: 3000 },
    });
    // The queue's insert hangs until released: the toast must not wait for it.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const queued: number[] = [];
    const live = runtime({
      enqueue: async (ids) => {
        queued.push(...ids);
        await held;
      },
    });
    const published: number[] = [];
    const stop = test.app.services.alertBus.subscribeFirings((event) => published.push(event.firing.ruleId));
    try {
      await live.sync();
      live.onTick(tick(2995, T0 + 5 * SECOND));
      live.onTick(tick(3001, T0 + 10 * SECOND));
      await waitFor(() => published.length === 1 && queued.length === 1, 'the firing published while queueing');
      expect(published).toEqual([rule.id]);
      release();
      const recorded = await live.flushTicks();
      expect(recorded.queued).toEqual(queued);
    } finally {
      release();
      stop();
    }
  });

  it('records tick firings in a batch, and a restarted runtime replaying the ticks records none twice', async () => {
    const perBar = await create({
      timeframe: '1h',
      condition: { kind: 'price_cross', direction: 'above', level: 3000 },
    });
    expect(perBar.trigger).toBe('once_per_bar');
    const every = await create({
      timeframe: '1m',
      trigger: 'every_time',
      condition: { kind: 'price_cross', direction: 'above', level: 3010 },
    });
    const once = await create({
      timeframe: '1m',
      trigger: 'once',
      condition: { kind: 'channel', direction: 'exits', lower: 2996, upper: 3005 },
    });
    const first = runtime();
    await first.sync();
    expect(first.tickSymbols()).toEqual(new Set(['ETH-USD']));
    for (const entry of STREAM) first.onTick(entry);
    const recorded = await first.flushTicks();
    const summary = recorded.firings
      .map(({ firing }) => [firing.ruleId, Date.parse(firing.barTime), firing.price] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(summary).toEqual([
      // 2995 -> 3001: once per 1h bar, at the first crossing tick only.
      [perBar.id, T0, 3001],
      // 3004 -> 3014 each minute (the first minute 3012).
      [every.id, T0, 3012],
      [every.id, T0 + MINUTE, 3013],
      [every.id, T0 + 2 * MINUTE, 3014],
      // The first tick inside 2996-3005 is 3001; leaving it, 3001 -> 2999 stays in; 2999 -> 3012 leaves.
      [once.id, T0, 3012],
    ]);
    expect(recorded.retired).toEqual([once.id]);
    expect(await first.flushTicks()).toEqual({ firings: [], retired: [], queued: [] });

    // A restarted instance (or the next owner of the symbol) replays the same ticks.
    const second = runtime();
    await second.sync();
    for (const entry of STREAM) second.onTick(entry);
    expect((await second.flushTicks()).firings).toEqual([]);
    const rows = await test.database.db.select().from(ruleFirings);
    expect(rows).toHaveLength(5);
    const [stored] = await test.database.db.select().from(alertRules).where(eq(alertRules.id, once.id));
    expect(stored).toMatchObject({ status: 'triggered', triggerCount: 1 });
    // Each rule's count moved by its own firings (the batch's updates are grouped by count).
    const counts = await test.database.db
      .select({ id: alertRules.id, status: alertRules.status, triggerCount: alertRules.triggerCount })
      .from(alertRules);
    expect(new Map(counts.map((row) => [row.id, [row.status, row.triggerCount]]))).toEqual(
      new Map([
        [perBar.id, ['active', 1]],
        [every.id, ['active', 3]],
        [once.id, ['triggered', 1]],
      ]),
    );
  });

  it('a database failing while ticks fire: logged, tried again, recorded once; the feed never sees an error', async () => {
    await create({
      timeframe: '1m',
      trigger: 'every_time',
      condition: { kind: 'price_cross', direction: 'above', level: 3000 },
    });
    let failures = 2;
    // The database refuses the first two transactions (a failover in progress).
    const flaky = refusingTransactions('connection terminated', () => {
      if (failures === 0) return false;
      failures -= 1;
      return true;
    });
    const live = runtime({ db: flaky, tickRetryMs: 1 });
    await live.sync();
    expect(() => {
      live.onTick(tick(2990, T0 + SECOND));
      live.onTick(tick(3005, T0 + 2 * SECOND));
    }).not.toThrow();
    const recorded = await live.flushTicks();
    expect(recorded.firings.map(({ firing }) => firing.price)).toEqual([3005]);
    expect(logged.filter(([level]) => level === 'warn').map(([, message]) => message)).toEqual([
      'alert rules: tick firings not recorded, trying again',
      'alert rules: tick firings not recorded, trying again',
    ]);
    expect(await test.database.db.select().from(ruleFirings)).toHaveLength(1);
  });

  it('a database that stays away: five attempts, then the batch is dropped with an error, not thrown', async () => {
    await create({
      timeframe: '1m',
      trigger: 'every_time',
      condition: { kind: 'price_cross', direction: 'above', level: 3000 },
    });
    let attempts = 0;
    const down = refusingTransactions('connection refused', () => {
      attempts += 1;
      return true;
    });
    const live = runtime({ db: down, tickRetryMs: 1 });
    await live.sync();
    expect(() => {
      live.onTick(tick(2990, T0 + SECOND));
      live.onTick(tick(3005, T0 + 2 * SECOND));
    }).not.toThrow();
    expect((await live.flushTicks()).firings).toEqual([]);
    expect(attempts).toBe(5);
    expect(logged.map(([level, message]) => `${level}: ${message}`)).toEqual([
      ...Array.from({ length: 4 }, () => 'warn: alert rules: tick firings not recorded, trying again'),
      'error: alert rules: tick firings not recorded, dropped',
    ]);
    expect(await test.database.db.select().from(ruleFirings)).toHaveLength(0);
  });

  it('an evaluator error on a tick is logged, not thrown into the feed', async () => {
    await create({ timeframe: '1m', condition: { kind: 'price_cross', direction: 'above', level: 3000 } });
    const evaluator = createRuleEvaluator({ history: () => Promise.resolve([]) });
    const live = runtime({
      evaluator: {
        ...evaluator,
        evaluateTick: () => {
          throw new Error('broken index');
        },
      },
    });
    await live.sync();
    expect(() => live.onTick(tick(3005, T0))).not.toThrow();
    expect(logged).toEqual([['error', 'alert rules: tick evaluation failed for this symbol']]);
    expect((await live.flushTicks()).firings).toEqual([]);
  });

  it('priceUpdate moves the price by a tick (tick rules) and closes its minute there (close-only rules)', async () => {
    const onTick = await create({
      timeframe: '5m',
      condition: { kind: 'price_cross', direction: 'above', level: 3000 },
    });
    const onClose = await create({
      timeframe: '5m',
      trigger: 'once_per_bar_close',
      condition: { kind: 'price_cross', direction: 'above', level: 3000 },
    });
    const hook = runtime();
    expect((await hook.priceUpdate('ETH-USD', 2990)).firings).toEqual([]);
    const fired = await hook.priceUpdate('ETH-USD', 3010);
    expect(fired.firings.map(({ firing }) => firing.ruleId).sort((a, b) => a - b)).toEqual([onTick.id, onClose.id]);
  });
});
