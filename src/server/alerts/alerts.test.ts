// The alert store and GET /external-api/alert: duplicates skipped, filters return exactly
// the matching rows newest first, defaults and caps of docs/SPEC.md, clear 400s for bad input.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAlertTimestamp } from '../../shared/alertDisplay.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { queryAlerts, saveAlerts, type NewAlert } from './service.ts';

let test: TestApp;
let browser: Browser;
const now = Date.now();
const minutesAgo = (minutes: number) => new Date(Math.floor((now - minutes * 60_000) / 1000) * 1000);

const fixtures: NewAlert[] = [
  {
    ticker: 'BTC',
    alertType: 'BreakoutAlertGenerator',
    message: 'BTC broke resistance',
    timestamp: minutesAgo(5),
    source: 'demo',
  },
  {
    ticker: 'ETH',
    alertType: 'TrendChangeAlertGenerator',
    message: 'Bearish trend change on ETH',
    timestamp: minutesAgo(10),
    source: 'demo',
  },
  {
    ticker: 'BTC',
    alertType: 'VolatilitySpikeAlertGenerator',
    message: 'BTC volatility spike',
    timestamp: minutesAgo(20),
    source: 'demo',
  },
  {
    ticker: 'SOL',
    alertType: 'MomentumShiftAlertGenerator',
    message: 'SOL momentum slowdown',
    timestamp: minutesAgo(90),
    source: 'demo',
  },
  {
    ticker: 'AAPL',
    alertType: 'BreakoutAlertGenerator',
    message: 'AAPL broke resistance',
    timestamp: minutesAgo(7),
    source: 'yahoo',
  },
  {
    ticker: 'MES',
    alertType: 'VolatilitySpikeAlertGenerator',
    message: 'MES volatility spike',
    timestamp: minutesAgo(8),
    source: 'demo',
  },
  {
    ticker: 'SPY',
    alertType: 'MomentumShiftAlertGenerator',
    message: 'SPY momentum shift',
    timestamp: minutesAgo(9),
    source: 'demo',
  },
  ...Array.from({ length: 120 }, (_, index) => ({
    ticker: 'XRP',
    alertType: 'BreakoutAlertGenerator',
    message: `XRP breakout ${index}`,
    timestamp: minutesAgo(30 + index / 10),
    source: 'demo',
  })),
];

beforeAll(async () => {
  test = await createTestApp();
  ({ browser } = await subscribedUser(test, 'alerts@example.com'));
  const saved = await saveAlerts(test.database.db, fixtures);
  expect(saved).toHaveLength(fixtures.length);
});
afterAll(async () => {
  await test?.close();
});

async function get(query: string) {
  return browser.get(`/external-api/alert${query}`);
}

describe('saveAlerts', () => {
  it('skips alerts already stored for the same ticker, generator and bar', async () => {
    const again = await saveAlerts(test.database.db, fixtures.slice(0, 3));
    expect(again).toEqual([]);
  });
});

type ExternalAlerts = { alerts: Array<{ ticker: string; alert_type: string; message: string; timestamp: string }> };

describe('GET /external-api/alert', () => {
  it('defaults to the 10 newest alerts of the last hour, newest first, in docs/SPEC.md shape', async () => {
    const { alerts } = jsonBody<ExternalAlerts>(await get(''));
    expect(alerts).toHaveLength(10);
    expect(alerts[0]).toEqual({
      ticker: 'BTC',
      alert_type: 'BreakoutAlertGenerator',
      message: 'BTC broke resistance',
      timestamp: formatAlertTimestamp(minutesAgo(5)),
    });
    const times = alerts.map((alert: { timestamp: string }) => alert.timestamp);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by type and symbol (plain or -USD) exactly', async () => {
    const byType = jsonBody<ExternalAlerts>(await get('?alert_type=TrendChangeAlertGenerator')).alerts;
    expect(byType.map((alert: { ticker: string }) => alert.ticker)).toEqual(['ETH']);
    const bySymbol = jsonBody<ExternalAlerts>(await get('?symbol=btc-usd&max_count=50')).alerts;
    expect(bySymbol.map((alert: { alert_type: string }) => alert.alert_type)).toEqual([
      'BreakoutAlertGenerator',
      'VolatilitySpikeAlertGenerator',
    ]);
    const both = jsonBody<ExternalAlerts>(await get('?symbol=BTC&alert_type=VolatilitySpikeAlertGenerator')).alerts;
    expect(both).toHaveLength(1);
  });

  it('honours the time window and caps max_count at 100', async () => {
    const start = formatAlertTimestamp(minutesAgo(120));
    const end = formatAlertTimestamp(minutesAgo(60));
    const old = jsonBody<ExternalAlerts>(
      await get(`?start_time=${encodeURIComponent(start)}&end_time=${encodeURIComponent(end)}`),
    ).alerts;
    expect(old.map((alert: { message: string }) => alert.message)).toEqual(['SOL momentum slowdown']);
    const capped = jsonBody<ExternalAlerts>(await get('?max_count=500&symbol=XRP')).alerts;
    expect(capped).toHaveLength(100);
  });

  it.each([
    ['?max_count=ten', 'max_count: max_count must be a positive whole number'],
    ['?max_count=0', 'max_count: max_count must be a positive whole number'],
    ['?start_time=yesterday', "start_time: start_time must be UTC 'YYYY-MM-DD HH:MM:SS'"],
    ['?end_time=2026-02-30%2010:00:00', 'end_time: end_time is not a real date and time'],
    [
      '?alert_type=Rumour',
      'alert_type: alert_type must be one of VolatilitySpikeAlertGenerator, MomentumShiftAlertGenerator, BreakoutAlertGenerator, TrendChangeAlertGenerator',
    ],
    ['?start_time=2026-05-02%2000:00:00&end_time=2026-05-01%2000:00:00', 'start_time must not be after end_time'],
  ])('answers %s with 400 and a clear message', async (query, message) => {
    const response = await get(query);
    expect(response.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(response).error).toBe(message);
  });
});

describe('market (asset class) filter', () => {
  const tickersOf = async (query: string) => {
    const response = await get(query);
    expect(response.statusCode).toBe(200);
    return jsonBody<ExternalAlerts>(response).alerts.map((alert) => alert.ticker);
  };

  it('returns only the alerts of one asset class, newest first', async () => {
    expect(await tickersOf('?market=stock')).toEqual(['AAPL']);
    expect(await tickersOf('?market=micro-future')).toEqual(['MES']);
    expect(await tickersOf('?market=etf')).toEqual(['SPY']);
    expect(await tickersOf('?market=future')).toEqual([]);
    expect(await tickersOf('?market=crypto&max_count=3')).toEqual(['BTC', 'ETH', 'BTC']);
    expect(await tickersOf('?market=')).toHaveLength(10);
  });

  it('combines with the symbol filter, which takes any form the symbol table resolves', async () => {
    expect(await tickersOf('?symbol=MES1!')).toEqual(['MES']);
    expect(await tickersOf('?symbol=CME_MINI:MES1!')).toEqual(['MES']);
    expect(await tickersOf('?symbol=NASDAQ:AAPL&market=stock')).toEqual(['AAPL']);
    expect(await tickersOf('?symbol=AAPL&market=crypto')).toEqual([]);
  });

  it('refuses an unknown market with a clear message', async () => {
    const response = await get('?market=bonds');
    expect(response.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(response).error).toContain(
      'market must be one of crypto, stock, etf, index, future, micro-future',
    );
  });
});

describe('the recent window and the database answer alike', () => {
  it('sends the table’s rows, order and JSON from memory, compressed once for gzip clients', async () => {
    const start_time = formatAlertTimestamp(minutesAgo(60));
    const end_time = formatAlertTimestamp(minutesAgo(0));
    const query = `?max_count=100&start_time=${encodeURIComponent(start_time)}&end_time=${encodeURIComponent(end_time)}`;
    const fromTable = JSON.stringify({
      alerts: await queryAlerts(test.database.db, { max_count: 100, start_time, end_time }),
    });
    const plain = await get(query);
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(fromTable);
    const gzipped = await browser.request('GET', `/external-api/alert${query}`, undefined, {
      'accept-encoding': 'gzip',
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(fromTable);
  });

  it('answers a range older than the window from the database, newest first', async () => {
    await saveAlerts(test.database.db, [
      {
        ticker: 'ADA',
        alertType: 'BreakoutAlertGenerator',
        message: 'ADA old',
        timestamp: minutesAgo(200),
        source: 'demo',
      },
    ]);
    const start_time = formatAlertTimestamp(minutesAgo(240));
    const end_time = formatAlertTimestamp(minutesAgo(80));
    const response = await get(
      `?max_count=100&start_time=${encodeURIComponent(start_time)}&end_time=${encodeURIComponent(end_time)}`,
    );
    expect(jsonBody<ExternalAlerts>(response).alerts.map((alert) => alert.message)).toEqual([
      'SOL momentum slowdown',
      'ADA old',
    ]);
  });
});
