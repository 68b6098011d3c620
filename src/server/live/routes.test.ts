// The one live connection over a real socket against the real app: the dashboard gate, hello
// first, ticks of the subscribed symbols only (the last known one at once), subscriptions
// changed without reconnecting (and refused for another user's connection, a foreign site or
// an unknown symbol), alerts and this user's rule firings with the composite stream id, and
// the replay after Last-Event-ID in both its forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { unknownSymbolMessage } from '../../shared/symbols.ts';
import type { LiveAlert } from '../alerts/service.ts';
import { saveAlerts } from '../alerts/service.ts';
import { alertRules, ruleFirings } from '../db/schema.ts';
import { CSRF_REFUSAL } from '../http/csrf.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import type { Browser } from '../testing/http.ts';
import { jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { UNKNOWN_CONNECTION } from './routes.ts';

let test: TestApp;
let base: string;
let trader: { browser: Browser; userId: string };
let other: { browser: Browser; userId: string };
const open: Stream[] = [];

beforeAll(async () => {
  test = await createTestApp();
  trader = await subscribedUser(test, 'live@example.com');
  other = await subscribedUser(test, 'live-other@example.com');
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  const address = test.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const stream of open) stream.stop();
  await test?.close();
});

interface StreamEvent {
  event: string;
  id: string | null;
  data: unknown;
}

interface Stream {
  status: number;
  events: StreamEvent[];
  /** Waits until an event matches (polling what was read), and returns it. */
  next(match: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  stop(): void;
}

/** Opens GET /api/live and reads its events in the background. */
async function connect(path: string, headers: Record<string, string>): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(`${base}${path}`, { headers, signal: controller.signal });
  const events: StreamEvent[] = [];
  if (response.ok && response.body) {
    void (async () => {
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, id: /^id: (.+)$/m.exec(block)?.[1] ?? null, data: JSON.parse(data) });
        }
      }
    })().catch(() => undefined);
  }
  const stream: Stream = {
    status: response.status,
    events,
    async next(match, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such event; got ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    stop: () => controller.abort(),
  };
  if (response.ok) open.push(stream);
  else await response.body?.cancel();
  return stream;
}

const T0 = Date.UTC(2026, 0, 5, 15, 0);
function tick(symbol: string, price: number): LiveTick {
  return { symbol, price, time: T0 + price, source: 'demo', delayMinutes: 0, bar: [T0, price, price, price, price, 1] };
}
const ticksOf = (events: StreamEvent[]) => events.filter((event) => event.event === 'ticks').map((e) => e.data);
const helloOf = async (stream: Stream) =>
  (await stream.next((event) => event.event === 'hello')).data as { connection: string; symbols: string[] };

describe('GET /api/live', () => {
  it('refuses visitors, and unknown symbols with the symbol table message', async () => {
    expect((await connect('/api/live', {})).status).toBe(401);
    const response = await fetch(`${base}/api/live?symbols=BTC,LSE:VOD`, {
      headers: { cookie: trader.browser.cookieHeader },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: unknownSymbolMessage('LSE:VOD') });
  });

  it('says hello first, then carries the ticks of its symbols only, the last known one at once', async () => {
    await test.app.services.alertBus.publishTicks([tick('BTC-USD', 100_000)]);
    const stream = await connect('/api/live?symbols=btc,NASDAQ:AAPL,bitcoin', { cookie: trader.browser.cookieHeader });
    expect(stream.status).toBe(200);
    const hello = await helloOf(stream);
    expect(hello.symbols).toEqual(['BTC-USD', 'AAPL']);
    expect(stream.events[0]!.event).toBe('hello');
    await stream.next((event) => event.event === 'ticks');
    expect(ticksOf(stream.events)).toEqual([[tick('BTC-USD', 100_000)]]);

    await test.app.services.alertBus.publishTicks([tick('ETH-USD', 3_000), tick('AAPL', 230)]);
    await stream.next((event) => event.event === 'ticks' && (event.data as LiveTick[])[0]?.symbol === 'AAPL');
    expect(ticksOf(stream.events)).toEqual([[tick('BTC-USD', 100_000)], [tick('AAPL', 230)]]);
    stream.stop();
  });

  it('changes its symbols without reconnecting, for its own user only', async () => {
    const stream = await connect('/api/live?symbols=AAPL', { cookie: trader.browser.cookieHeader });
    const { connection } = await helloOf(stream);
    await test.app.services.alertBus.publishTicks([tick('SOL-USD', 150)]);

    const changed = await trader.browser.put('/api/live/subscriptions', { connection, symbols: ['sol', 'ETH'] });
    expect(changed.statusCode).toBe(200);
    expect(jsonBody(changed)).toEqual({ symbols: ['SOL-USD', 'ETH-USD'] });
    // The new symbol's last tick at once, then its live ones; the dropped symbol no more.
    await stream.next((event) => event.event === 'ticks' && (event.data as LiveTick[])[0]?.symbol === 'SOL-USD');
    await test.app.services.alertBus.publishTicks([tick('AAPL', 231), tick('ETH-USD', 3_001)]);
    await stream.next((event) => event.event === 'ticks' && (event.data as LiveTick[])[0]?.symbol === 'ETH-USD');
    expect(ticksOf(stream.events).flat()).not.toContainEqual(tick('AAPL', 231));

    const stranger = await other.browser.put('/api/live/subscriptions', { connection, symbols: ['AAPL'] });
    expect(stranger.statusCode).toBe(404);
    expect(jsonBody(stranger)).toEqual({ error: UNKNOWN_CONNECTION });
    const unknown = await trader.browser.put('/api/live/subscriptions', { connection: 'no-such-id', symbols: [] });
    expect(unknown.statusCode).toBe(404);
    const badSymbol = await trader.browser.put('/api/live/subscriptions', { connection, symbols: ['LSE:VOD'] });
    expect(badSymbol.statusCode).toBe(400);
    expect(jsonBody(badSymbol)).toEqual({ error: unknownSymbolMessage('LSE:VOD') });
    const foreign = await trader.browser.request(
      'PUT',
      '/api/live/subscriptions',
      { connection, symbols: ['AAPL'] },
      { origin: 'https://elsewhere.example' },
    );
    expect(foreign.statusCode).toBe(403);
    expect(jsonBody(foreign)).toEqual({ error: CSRF_REFUSAL });
    // None of the refused changes took: still SOL and ETH.
    const again = await trader.browser.put('/api/live/subscriptions', { connection, symbols: ['SOL-USD', 'ETH-USD'] });
    expect(jsonBody(again)).toEqual({ symbols: ['SOL-USD', 'ETH-USD'] });

    stream.stop();
    await expect
      .poll(async () => (await trader.browser.put('/api/live/subscriptions', { connection, symbols: [] })).statusCode)
      .toBe(404);
  });

  it("carries every alert and this user's firings with the composite stream id", async () => {
    const stream = await connect('/api/live', { cookie: trader.browser.cookieHeader });
    await helloOf(stream);
    const alert: LiveAlert = {
      id: 9_001,
      source: 'demo',
      ticker: 'ETH',
      alert_type: 'BreakoutAlertGenerator',
      message: 'ETH breakout',
      timestamp: '2026-01-05 15:00:00',
    };
    await test.app.services.alertBus.publish([alert]);
    const firing: RuleFiring = {
      id: 77,
      ruleId: 5,
      ruleName: 'AAPL above 230',
      symbol: 'AAPL',
      ticker: 'AAPL',
      timeframe: '1h',
      price: 230.5,
      message: 'AAPL crossed above 230',
      barTime: '2026-01-05T15:00:00.000Z',
      firedAt: '2026-01-05T15:00:01.000Z',
      source: 'demo',
    };
    await test.app.services.alertBus.publishFirings([
      { userId: other.userId, firing: { ...firing, id: 76 } },
      { userId: trader.userId, firing },
    ]);
    const rule = await stream.next((event) => event.event === 'rule');
    expect(rule).toEqual({ event: 'rule', id: '9001-77', data: firing });
    expect(stream.events.filter((event) => event.event === 'alert' || event.event === 'rule')).toEqual([
      { event: 'alert', id: '9001-0', data: alert },
      { event: 'rule', id: '9001-77', data: firing },
    ]);
    stream.stop();
  });

  it('replays the alerts and firings missed after Last-Event-ID, or the alerts after a plain id', async () => {
    const db = test.database.db;
    const saved = await saveAlerts(
      db,
      ['first', 'second', 'third'].map((message, index) => ({
        ticker: 'SOL',
        alertType: 'BreakoutAlertGenerator',
        message: `SOL ${message}`,
        timestamp: new Date(T0 + index * 60_000),
        source: 'demo',
      })),
    );
    const [rule] = await db
      .insert(alertRules)
      .values({
        userId: trader.userId,
        name: 'AAPL breakout',
        symbol: 'AAPL',
        timeframe: '1h',
        condition: { kind: 'price_cross', direction: 'above', level: 190 },
        trigger: 'every_time',
        channels: ['email'],
      })
      .returning({ id: alertRules.id });
    const firingIds: number[] = [];
    for (let key = 1; key <= 3; key += 1) {
      const [row] = await db
        .insert(ruleFirings)
        .values({
          ruleId: rule!.id,
          userId: trader.userId,
          symbol: 'AAPL',
          triggerKey: key,
          barTime: new Date(T0),
          price: 190 + key,
          message: `AAPL crossed above 190 (${key})`,
          source: 'demo',
        })
        .returning({ id: ruleFirings.id });
      firingIds.push(row!.id);
    }
    const [a1, a2, a3] = saved.map((row) => row.id);
    const [f1, f2, f3] = firingIds;

    const stream = await connect('/api/live', { cookie: trader.browser.cookieHeader, 'last-event-id': `${a1}-${f1}` });
    await stream.next((event) => event.event === 'rule' && event.id === `${a3}-${f3}`);
    expect(stream.events.filter((event) => event.id !== null).map((event) => [event.event, event.id])).toEqual([
      ['alert', `${a2}-${f1}`],
      ['alert', `${a3}-${f1}`],
      ['rule', `${a3}-${f2}`],
      ['rule', `${a3}-${f3}`],
    ]);
    expect((stream.events.find((event) => event.event === 'rule')!.data as { message: string }).message).toBe(
      'AAPL crossed above 190 (2)',
    );
    stream.stop();

    const old = await connect('/api/live', { cookie: trader.browser.cookieHeader, 'last-event-id': String(a2) });
    await old.next((event) => event.event === 'alert');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(old.events.filter((event) => event.id !== null).map((event) => [event.event, event.id])).toEqual([
      ['alert', `${a3}-0`],
    ]);
    old.stop();
  });
});
