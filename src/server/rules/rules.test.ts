// The alert rules API through the real app: create, validate, the caps on active and on all
// rules, edit, pause, resume, delete, the lists' pages, per-user isolation, and the dashboard gate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { signedInUser, subscribedUser } from '../testing/users.ts';
import { alertRules, ruleDeliveries, ruleFirings } from '../db/schema.ts';
import type { AlertRule, AlertRuleList, RuleDelivery, RuleFiring } from '../../shared/schemas/alertRules.ts';

let test: TestApp;
beforeAll(async () => {
  test = await createTestApp({ ALERT_RULES_MAX_ACTIVE: '3', ALERT_RULES_MAX_TOTAL: '5' });
});
afterAll(async () => {
  await test?.close();
});

const priceRule = (level: number, extra: Record<string, unknown> = {}) => ({
  symbol: 'nasdaq:aapl',
  timeframe: '1h',
  condition: { kind: 'price_cross', direction: 'above', level },
  ...extra,
});

describe('alert rules API', () => {
  it('creates a rule on any symbol form, stores the canonical symbol and describes it', async () => {
    const { browser } = await subscribedUser(test, 'rules-create@example.com');
    const created = await browser.post('/api/alert-rules', priceRule(200, { message: '{{ticker}} at {{close}}' }));
    expect(created.statusCode).toBe(201);
    const rule = jsonBody<AlertRule>(created);
    expect(rule).toMatchObject({
      symbol: 'AAPL',
      ticker: 'AAPL',
      name: 'AAPL crosses above 200',
      description: 'AAPL crosses above 200 (1h)',
      trigger: 'once_per_bar',
      channels: ['in_app'],
      status: 'active',
      triggerCount: 0,
      message: '{{ticker}} at {{close}}',
    });
    const future = await browser.post('/api/alert-rules', {
      symbol: 'CME_MINI:MES1!',
      timeframe: '15m',
      condition: { kind: 'rsi', direction: 'below', level: 30 },
      trigger: 'every_time',
      channels: ['email', 'in_app', 'email'],
    });
    expect(future.statusCode).toBe(201);
    expect(jsonBody<AlertRule>(future)).toMatchObject({
      symbol: 'MES1!',
      condition: { kind: 'rsi', direction: 'below', level: 30, period: 14 },
      channels: ['in_app', 'email'],
    });
    const list = jsonBody<AlertRuleList>(await browser.get('/api/alert-rules'));
    expect(list.maxActive).toBe(3);
    expect(list.rules.map((entry) => entry.symbol)).toEqual(['MES1!', 'AAPL']);
  });

  it('answers every bad rule with a clear error and stores nothing', async () => {
    const { browser } = await subscribedUser(test, 'rules-bad@example.com');
    const cases: Array<[unknown, string]> = [
      [priceRule(200, { symbol: 'LSE:VOD' }), 'symbol:'],
      [priceRule(-5), 'condition.level: level must be above 0'],
      [{ ...priceRule(1), condition: { kind: 'moon_phase' } }, 'condition kind must be one of'],
      [
        { ...priceRule(1), condition: { kind: 'channel', direction: 'enters', lower: 10, upper: 5 } },
        'lower must be below upper',
      ],
      [
        { ...priceRule(1), condition: { kind: 'ema_cross', direction: 'above', fast: 9, slow: 9 } },
        'fast and slow must differ',
      ],
      [priceRule(1, { timeframe: '2h' }), 'timeframe must be one of 1m, 5m, 15m, 1h, 4h, 1D'],
      [priceRule(1, { message: 'at {{prize}}' }), 'Unknown placeholder {{prize}}'],
      [priceRule(1, { channels: [] }), 'Choose at least one channel'],
      [priceRule(1, { channels: ['webhook'] }), 'A webhook rule needs a webhook URL'],
      [priceRule(1, { expiresAt: '2001-01-01T00:00:00Z' }), 'expiresAt must be in the future'],
      // Issue 33: a name or message that would forge a line where it is printed or mailed.
      [
        priceRule(1, { name: 'n\r\nBcc: evil@x.test' }),
        'name: name may not contain control characters or line breaks (U+000D)',
      ],
      [
        priceRule(1, { name: 'n\u2028[outbox] http://evil.test' }),
        'name: name may not contain control characters or line breaks (U+2028)',
      ],
      [
        priceRule(1, { message: 'one\r\ntwo' }),
        'message: message may not contain control characters other than line breaks (U+000D)',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await browser.post('/api/alert-rules', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(jsonBody<{ error: string }>(response).error).toContain(message);
    }
    expect(jsonBody<AlertRuleList>(await browser.get('/api/alert-rules')).rules).toEqual([]);
    // A message of several lines split by LF is fine.
    const created = await browser.post(
      '/api/alert-rules',
      priceRule(1, { message: '{{ticker}} broke out\nat {{close}}' }),
    );
    expect(created.statusCode).toBe(201);
    expect(jsonBody<AlertRule>(created).message).toBe('{{ticker}} broke out\nat {{close}}');
  });

  it('caps active rules per user, counts paused ones out, and pauses, resumes, edits and deletes', async () => {
    const { browser } = await subscribedUser(test, 'rules-cap@example.com');
    const ids: number[] = [];
    for (const level of [1, 2, 3])
      ids.push(jsonBody<AlertRule>(await browser.post('/api/alert-rules', priceRule(level))).id);
    const fourth = await browser.post('/api/alert-rules', priceRule(4));
    expect(fourth.statusCode).toBe(409);
    expect(jsonBody<{ error: string }>(fourth).error).toBe(
      'You have 3 active alert rules, the most allowed: pause or delete one before adding another',
    );

    const paused = await browser.patch(`/api/alert-rules/${ids[0]}`, { status: 'paused' });
    expect(jsonBody<AlertRule>(paused).status).toBe('paused');
    expect((await browser.post('/api/alert-rules', priceRule(4))).statusCode).toBe(201);
    expect((await browser.patch(`/api/alert-rules/${ids[0]}`, { status: 'active' })).statusCode).toBe(409);

    const edited = await browser.put(
      `/api/alert-rules/${ids[0]}`,
      priceRule(150, { name: 'Take profit', trigger: 'once' }),
    );
    expect(jsonBody<AlertRule>(edited)).toMatchObject({ name: 'Take profit', status: 'paused', trigger: 'once' });

    expect((await browser.delete(`/api/alert-rules/${ids[1]}`)).statusCode).toBe(204);
    expect((await browser.delete(`/api/alert-rules/${ids[1]}`)).statusCode).toBe(404);
    const resumed = await browser.patch(`/api/alert-rules/${ids[0]}`, { status: 'active' });
    expect(jsonBody<AlertRule>(resumed).status).toBe('active');
    expect(jsonBody<AlertRuleList>(await browser.get('/api/alert-rules')).rules).toHaveLength(3);

    // Another user sees none of them and cannot touch them.
    const other = await subscribedUser(test, 'rules-other@example.com');
    expect(jsonBody<AlertRuleList>(await other.browser.get('/api/alert-rules')).rules).toEqual([]);
    expect((await other.browser.delete(`/api/alert-rules/${ids[0]}`)).statusCode).toBe(404);
    expect((await other.browser.patch(`/api/alert-rules/${ids[0]}`, { status: 'paused' })).statusCode).toBe(404);
  });

  it('caps all rules per user, paused ones included: pause-and-create stops at the total', async () => {
    const { browser } = await subscribedUser(test, 'rules-total@example.com');
    const create = (level: number) => browser.post('/api/alert-rules', priceRule(level));
    const ids: number[] = [];
    for (const level of [1, 2, 3]) ids.push(jsonBody<AlertRule>(await create(level)).id);
    for (const id of ids)
      expect((await browser.patch(`/api/alert-rules/${id}`, { status: 'paused' })).statusCode).toBe(200);
    for (const level of [4, 5]) ids.push(jsonBody<AlertRule>(await create(level)).id);

    const sixth = await create(6);
    expect(sixth.statusCode).toBe(409);
    expect(jsonBody<{ error: string }>(sixth).error).toBe(
      'You have 5 alert rules, the most allowed (paused ones count too): delete one before adding another',
    );
    expect((await browser.patch(`/api/alert-rules/${ids[4]}`, { status: 'paused' })).statusCode).toBe(200);
    expect((await create(6)).statusCode).toBe(409);
    const list = jsonBody<AlertRuleList>(await browser.get('/api/alert-rules'));
    expect(list).toMatchObject({ activeCount: 1, maxActive: 3, totalCount: 5, maxTotal: 5, nextCursor: null });
    expect(list.rules).toHaveLength(5);

    // Editing and resuming stay possible at the total; deleting one makes room.
    expect((await browser.put(`/api/alert-rules/${ids[0]}`, priceRule(10))).statusCode).toBe(200);
    expect((await browser.patch(`/api/alert-rules/${ids[0]}`, { status: 'active' })).statusCode).toBe(200);
    expect((await browser.delete(`/api/alert-rules/${ids[1]}`)).statusCode).toBe(204);
    expect((await create(6)).statusCode).toBe(201);
  });

  it('pages the rules by cursor, newest first, of one status when asked', async () => {
    const { browser } = await subscribedUser(test, 'rules-pages@example.com');
    const ids: number[] = [];
    for (const level of [1, 2, 3])
      ids.push(jsonBody<AlertRule>(await browser.post('/api/alert-rules', priceRule(level))).id);
    await browser.patch(`/api/alert-rules/${ids[0]}`, { status: 'paused' });
    await browser.patch(`/api/alert-rules/${ids[1]}`, { status: 'paused' });
    ids.push(jsonBody<AlertRule>(await browser.post('/api/alert-rules', priceRule(4))).id);
    ids.push(jsonBody<AlertRule>(await browser.post('/api/alert-rules', priceRule(5))).id);
    const newestFirst = [...ids].reverse();

    const first = jsonBody<AlertRuleList>(await browser.get('/api/alert-rules?limit=2'));
    expect(first.rules.map((rule) => rule.id)).toEqual(newestFirst.slice(0, 2));
    expect(first).toMatchObject({ activeCount: 3, totalCount: 5 });
    expect(first.nextCursor).toEqual(expect.any(String));
    // A rule deleted between two pages moves nothing: the next page starts after the cursor.
    expect((await browser.delete(`/api/alert-rules/${newestFirst[0]}`)).statusCode).toBe(204);
    const second = jsonBody<AlertRuleList>(
      await browser.get(`/api/alert-rules?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`),
    );
    expect(second.rules.map((rule) => rule.id)).toEqual(newestFirst.slice(2, 4));
    const last = jsonBody<AlertRuleList>(await browser.get(`/api/alert-rules?limit=2&cursor=${second.nextCursor}`));
    expect(last.rules.map((rule) => rule.id)).toEqual(newestFirst.slice(4));
    expect(last.nextCursor).toBeNull();

    const paused = jsonBody<AlertRuleList>(await browser.get('/api/alert-rules?status=paused&limit=1'));
    expect(paused.rules.map((rule) => rule.id)).toEqual([ids[1]]);
    const olderPaused = jsonBody<AlertRuleList>(
      await browser.get(`/api/alert-rules?status=paused&limit=1&cursor=${paused.nextCursor}`),
    );
    expect(olderPaused.rules.map((rule) => rule.id)).toEqual([ids[0]]);
    expect(olderPaused.nextCursor).toBeNull();

    // Another user's cursor reads only that user's own rules.
    const other = await subscribedUser(test, 'rules-pages-other@example.com');
    expect(jsonBody<AlertRuleList>(await other.browser.get(`/api/alert-rules?cursor=${ids[4]! + 1}`)).rules).toEqual(
      [],
    );

    for (const [query, message] of [
      ['cursor=abc', 'cursor: cursor must be the nextCursor of an earlier page'],
      ['cursor=-1', 'cursor: cursor must be the nextCursor of an earlier page'],
      ['limit=0', 'limit: limit must be at least 1'],
      ['limit=201', 'limit: limit must be at most 200'],
      ['status=gone', 'status: status must be one of active, paused, triggered, expired'],
    ]) {
      const response = await browser.get(`/api/alert-rules?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(jsonBody<{ error: string }>(response).error, query).toBe(message);
    }
  });

  it('pages the Triggered list and the delivery log by cursor, newest first, one user only', async () => {
    const trader = await subscribedUser(test, 'rules-log-pages@example.com');
    const other = await subscribedUser(test, 'rules-log-other@example.com');
    const { db } = test.database;
    const ruleOf = async (userId: string) => {
      const [row] = await db
        .insert(alertRules)
        .values({
          userId,
          name: 'r',
          symbol: 'AAPL',
          timeframe: '1h',
          condition: { kind: 'price_cross', direction: 'above', level: 190 },
          trigger: 'every_time',
          channels: ['in_app'],
        })
        .returning({ id: alertRules.id });
      return row!.id;
    };
    const fire = async (userId: string, ruleId: number, triggerKey: number) => {
      const [firing] = await db
        .insert(ruleFirings)
        .values({
          ruleId,
          userId,
          symbol: 'AAPL',
          triggerKey,
          barTime: new Date(),
          price: 1,
          message: `m${triggerKey}`,
          source: 'demo',
        })
        .returning({ id: ruleFirings.id });
      const [delivery] = await db
        .insert(ruleDeliveries)
        .values({ firingId: firing!.id, userId, channel: 'in_app', target: 'Dashboard', status: 'delivered' })
        .returning({ id: ruleDeliveries.id });
      return { firing: firing!.id, delivery: delivery!.id };
    };
    const mine = await ruleOf(trader.userId);
    const theirs = await ruleOf(other.userId);
    const rows: Array<{ firing: number; delivery: number }> = [];
    for (const key of [1, 2, 3, 4, 5]) {
      rows.push(await fire(trader.userId, mine, key));
      await fire(other.userId, theirs, key);
    }
    rows.reverse();

    async function readAll<T extends { id: number }>(path: string, field: string): Promise<number[][]> {
      const pages: number[][] = [];
      let cursor: string | null = null;
      do {
        const response = await trader.browser.get(`${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(response.statusCode).toBe(200);
        const body = jsonBody<Record<string, T[]> & { nextCursor: string | null }>(response);
        pages.push(body[field]!.map((row) => row.id));
        cursor = body.nextCursor;
      } while (cursor !== null && pages.length < 10);
      return pages;
    }
    const firings = rows.map((row) => row.firing);
    const deliveries = rows.map((row) => row.delivery);
    expect(await readAll<RuleFiring>('/api/alert-rules/triggered', 'firings')).toEqual([
      firings.slice(0, 2),
      firings.slice(2, 4),
      firings.slice(4),
    ]);
    expect(await readAll<RuleDelivery>('/api/alert-rules/deliveries', 'deliveries')).toEqual([
      deliveries.slice(0, 2),
      deliveries.slice(2, 4),
      deliveries.slice(4),
    ]);
    const bad = await trader.browser.get('/api/alert-rules/deliveries?cursor=1.5');
    expect(bad.statusCode).toBe(400);
  });

  it('is behind the dashboard gate: 401 signed out, 403 without a subscription', async () => {
    const { browser } = await signedInUser(test, 'rules-unpaid@example.com');
    expect((await browser.get('/api/alert-rules')).statusCode).toBe(403);
    expect((await browser.post('/api/alert-rules', priceRule(1))).statusCode).toBe(403);
    browser.forget();
    expect((await browser.get('/api/alert-rules/triggered')).statusCode).toBe(401);
  });
});
