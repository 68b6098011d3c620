// The scanner API through the real app (saved scans per user, errors naming the field, the
// dashboard gate), and "alert me when a symbol enters this scan": a rule fired by the rules
// runtime on the engine's pass, once per symbol and bar, on entry only, kept out of the rules
// list and the rules API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRuleList } from '../../shared/schemas/alertRules.ts';
import type { z } from 'zod';
import type { SavedScan, savedScanList, ScanPreset, ScanResponse } from '../../shared/schemas/scans.ts';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { ruleFirings } from '../db/schema.ts';
import { storeCandleBatch } from '../market/service.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { signedInUser, subscribedUser } from '../testing/users.ts';
import { scanEntryKey } from './service.ts';

type SavedScanList = z.infer<typeof savedScanList>;
const HOUR = 3_600_000;
let test: TestApp;
beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});

const jump = {
  name: 'Jumpers',
  timeframe: '1h',
  conditions: [{ kind: 'change', side: 'above', percent: 1, bars: 1 }],
};

describe('scanner API', () => {
  it('lists presets, runs a scan and names the field of a bad condition', async () => {
    const { browser } = await subscribedUser(test, 'scan-run@example.com');
    const presets = jsonBody<ScanPreset[]>(await browser.get('/api/scans/presets'));
    expect(presets.map((preset) => preset.name)).toContain('Oversold large caps');
    const run = await browser.post('/api/scans/run', {
      timeframe: '1h',
      conditions: [{ kind: 'rsi', side: 'below', level: 30 }],
    });
    expect(run.statusCode).toBe(200);
    const answer = jsonBody<ScanResponse>(run);
    // Nothing stored yet in this database: every symbol is skipped, none is invented.
    expect(answer).toMatchObject({ timeframe: '1h', matched: 0, skipped: SYMBOL_TABLE.length, rows: [], asOf: null });
    const bad = await browser.post('/api/scans/run', {
      timeframe: '1h',
      conditions: [{ kind: 'rsi', side: 'below', level: 130 }],
    });
    expect(bad.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(bad).error).toContain('conditions.0.level: level must be between 0 and 100');
    const noKind = await browser.post('/api/scans/run', { timeframe: '2h', conditions: [] });
    expect(noKind.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(noKind).error).toMatch(/timeframe/);
  });

  it('saves scans per user: duplicate names refused, others cannot see, edit or delete them', async () => {
    const owner = await subscribedUser(test, 'scan-owner@example.com');
    const other = await subscribedUser(test, 'scan-other@example.com');
    const created = await owner.browser.post('/api/scans', jump);
    expect(created.statusCode).toBe(201);
    const scan = jsonBody<SavedScan>(created);
    expect(scan).toMatchObject({ name: 'Jumpers', timeframe: '1h', alertRuleId: null });
    const again = await owner.browser.post('/api/scans', jump);
    expect(again.statusCode).toBe(409);
    expect(jsonBody<{ error: string }>(again).error).toBe(
      "name: you already have a saved scan named 'Jumpers'; pick another name",
    );
    // The same name is fine for another user; the owner's scan is invisible to them.
    expect((await other.browser.post('/api/scans', jump)).statusCode).toBe(201);
    expect(jsonBody<SavedScanList>(await other.browser.get('/api/scans')).scans.map((entry) => entry.id)).not.toContain(
      scan.id,
    );
    expect((await other.browser.put(`/api/scans/${scan.id}`, { ...jump, name: 'Mine' })).statusCode).toBe(404);
    expect((await other.browser.delete(`/api/scans/${scan.id}`)).statusCode).toBe(404);
    expect((await other.browser.post(`/api/scans/${scan.id}/alert`, { channels: ['in_app'] })).statusCode).toBe(404);
    const renamed = await owner.browser.put(`/api/scans/${scan.id}`, { ...jump, name: 'Big movers' });
    expect(jsonBody<SavedScan>(renamed).name).toBe('Big movers');
    const blank = await owner.browser.put(`/api/scans/${scan.id}`, { ...jump, name: '  ' });
    expect(blank.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(blank).error).toContain('name: name is required');
    expect((await owner.browser.delete(`/api/scans/${scan.id}`)).statusCode).toBe(204);
    expect(jsonBody<SavedScanList>(await owner.browser.get('/api/scans')).scans).toEqual([]);
  });

  it('is behind the dashboard gate', async () => {
    const { browser } = await signedInUser(test, 'scan-unpaid@example.com');
    expect((await browser.get('/api/scans')).statusCode).toBe(403);
  });
});

describe('alert when a symbol enters a scan', () => {
  it('fires once per symbol and bar, on entry only, through the rules runtime; the rules API never sees the rule', async () => {
    const { browser, userId } = await subscribedUser(test, 'scan-alert@example.com');
    const scan = jsonBody<SavedScan>(await browser.post('/api/scans', { ...jump, name: 'Entry test' }));
    const withAlert = await browser.post(`/api/scans/${scan.id}/alert`, { channels: ['in_app'] });
    expect(withAlert.statusCode).toBe(200);
    const ruleId = jsonBody<SavedScan>(withAlert).alertRuleId;
    expect(ruleId).toBeGreaterThan(0);
    expect(jsonBody<SavedScanList>(await browser.get('/api/scans')).scans[0]!.alertRuleId).toBe(ruleId);

    // The rules list, edits and deletes of the rules API leave the scan's rule alone.
    const list = jsonBody<AlertRuleList>(await browser.get('/api/alert-rules'));
    expect(list.rules).toEqual([]);
    expect((await browser.patch(`/api/alert-rules/${ruleId}`, { status: 'paused' })).statusCode).toBe(404);
    expect((await browser.delete(`/api/alert-rules/${ruleId}`)).statusCode).toBe(404);
    const direct = await browser.post('/api/alert-rules', {
      symbol: '*',
      timeframe: '1h',
      condition: { kind: 'scan_entry', scanId: scan.id },
    });
    expect(direct.statusCode).toBe(400);

    // 30 flat hours of ETH stored, ten hours back: nothing in the scan.
    const start = Math.floor(Date.now() / HOUR) * HOUR - 40 * HOUR;
    const bar = (index: number, close: number) => ({
      time: start + index * HOUR,
      open: close,
      high: close,
      low: close,
      close,
      volume: 10,
    });
    await storeCandleBatch(test.database.db, [
      {
        productId: 'ETH-USD',
        granularity: 3600,
        source: 'demo',
        rows: Array.from({ length: 30 }, (_, index) => bar(index, 100)),
      },
    ]);
    const rules = test.app.services.rules;
    await rules.sync();
    const pass = (index: number, close: number) =>
      rules.onPass([{ productId: 'ETH-USD', source: 'demo', minutes: [], hours: [bar(index, close)], alerts: [] }]);

    // Hour 30 closes 2% up: ETH enters the scan and fires, at that bar.
    const entered = await pass(30, 102);
    expect(entered.firings.map(({ firing }) => [firing.ruleId, firing.symbol, firing.barTime])).toEqual([
      [ruleId, 'ETH-USD', new Date(start + 30 * HOUR).toISOString()],
    ]);
    expect(entered.firings[0]!.firing.message).toBe("ETH entered the scan 'Entry test' (1h) at 102.00");
    // The same pass again (a restart, a failover): nothing new.
    expect((await pass(30, 102)).firings).toEqual([]);
    // Still in the scan at the next bar (another 2% up): no second firing, it did not enter.
    expect((await pass(31, 104.04)).firings).toEqual([]);
    // Out (flat), then in again: fires again, for that bar.
    expect((await pass(32, 104.04)).firings).toEqual([]);
    const again = await pass(33, 107);
    expect(again.firings.map(({ firing }) => firing.barTime)).toEqual([new Date(start + 33 * HOUR).toISOString()]);

    const stored = await test.database.db.select().from(ruleFirings);
    const index = SYMBOL_TABLE.findIndex((symbol) => symbol.id === 'ETH-USD');
    expect(
      stored
        .filter((row) => row.ruleId === ruleId)
        .map((row) => row.triggerKey)
        .sort(),
    ).toEqual([scanEntryKey(start + 30 * HOUR, index), scanEntryKey(start + 33 * HOUR, index)].sort());
    expect(stored.every((row) => row.userId === userId)).toBe(true);

    // Removing the alert removes the rule: later entries fire nothing.
    expect(jsonBody<SavedScan>(await browser.delete(`/api/scans/${scan.id}/alert`)).alertRuleId).toBeNull();
    await rules.sync();
    await pass(34, 100);
    expect((await pass(35, 110)).firings).toEqual([]);
  });
});
