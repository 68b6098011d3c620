// Server-sent alerts over a real socket: per-connection filters, and Last-Event-ID replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { subscribedUser } from '../testing/users.ts';
import { saveAlerts } from './service.ts';

let test: TestApp;
let base: string;
let cookie: string;

beforeAll(async () => {
  test = await createTestApp();
  const { browser } = await subscribedUser(test, 'stream@example.com');
  cookie = browser.cookieHeader;
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  const address = test.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await test?.close();
});

/** Reads events from a stream until `count` arrived or the time is up. */
async function readEvents(
  response: Response,
  count: number,
  timeoutMs = 3000,
): Promise<Array<{ id: string; data: { ticker: string; message: string } }>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id: string; data: { ticker: string; message: string } }> = [];
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  while (events.length < count && Date.now() < deadline) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), deadline - Date.now())),
    ]);
    if (!chunk || chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const id = /^id: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (id && data) events.push({ id, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /api/alerts/stream', () => {
  it('refuses visitors', async () => {
    const response = await fetch(`${base}/api/alerts/stream`);
    expect(response.status).toBe(401);
  });

  it('delivers new alerts live, filtered by symbol', async () => {
    const response = await fetch(`${base}/api/alerts/stream?symbol=eth-usd`, { headers: { cookie } });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reading = readEvents(response, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await test.app.services.alertBus.publish([
      {
        id: 1,
        source: 'demo',
        ticker: 'BTC',
        alert_type: 'BreakoutAlertGenerator',
        message: 'BTC breakout',
        timestamp: '2026-01-01 00:00:00',
      },
      {
        id: 2,
        source: 'demo',
        ticker: 'ETH',
        alert_type: 'BreakoutAlertGenerator',
        message: 'ETH breakout',
        timestamp: '2026-01-01 00:00:00',
      },
    ]);
    const events = await reading;
    expect(events.map((event) => event.data.message)).toEqual(['ETH breakout']);
    expect(events[0]!.id).toBe('2');
  });

  it('replays what a reconnecting browser missed after Last-Event-ID', async () => {
    const saved = await saveAlerts(test.database.db, [
      {
        ticker: 'SOL',
        alertType: 'TrendChangeAlertGenerator',
        message: 'SOL bearish trend change',
        timestamp: new Date('2026-02-01T00:00:00Z'),
        source: 'demo',
      },
      {
        ticker: 'SOL',
        alertType: 'BreakoutAlertGenerator',
        message: 'SOL breakout',
        timestamp: new Date('2026-02-01T00:01:00Z'),
        source: 'demo',
      },
    ]);
    const response = await fetch(`${base}/api/alerts/stream`, {
      headers: { cookie, 'last-event-id': String(saved[0]!.id) },
    });
    const events = await readEvents(response, 1);
    expect(events.map((event) => event.data.message)).toEqual(['SOL breakout']);
  });
});
