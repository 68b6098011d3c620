// The assistant's scan: the built-in analyst maps "oversold stocks with volume today" to a scan,
// runs it on the scan engine over demo bars, and cites each matched symbol with its figures.
import { describe, expect, it } from 'vitest';
import type { ScanRequest } from '../../shared/schemas/scans.ts';
import { collectAnswer } from './assistant.ts';
import { createBuiltinAnalyst } from './builtinAnalyst.ts';
import { describeScan, scanFromText } from './scanTool.ts';
import type { AssistantTools } from './tools.ts';
import { createScanEngine } from '../scans/service.ts';
import { createDemoFeed, DEMO_EPOCH } from '../market/service.ts';

const DAY = 86_400_000;
const CLOCK = DEMO_EPOCH + 40 * DAY + 19 * 3_600_000 + 5 * 60_000;

describe('scanFromText', () => {
  it("maps a trader's words to conditions", () => {
    expect(scanFromText('oversold stocks with volume today')?.request).toEqual({
      timeframe: '1h',
      limit: 100,
      conditions: [
        { kind: 'rsi', side: 'below', level: 30, period: 14 },
        { kind: 'volume_z', threshold: 1.5, period: 20 },
        { kind: 'asset_class', classes: ['stock'] },
      ],
    });
    expect(scanFromText('futures trending above ema 200 on 4h')?.request.conditions).toEqual([
      { kind: 'price_vs_ema', side: 'above', period: 200 },
      { kind: 'asset_class', classes: ['future', 'micro-future'] },
    ]);
    expect(scanFromText('scan for nothing in particular')).toBeNull();
  });
});

describe('the built-in analyst runs a scan', () => {
  it('answers "oversold stocks with volume today" with the scan\'s matches and their values', async () => {
    const feed = createDemoFeed({ now: () => CLOCK });
    const engine = createScanEngine({
      now: () => CLOCK,
      source: {
        async newestTimes() {
          return new Map();
        },
        async latest(id, granularity, limit) {
          const rows = await feed.candles(id, granularity, new Date(CLOCK - 60 * DAY), new Date(CLOCK));
          return rows.slice(-limit).map((row) => ({ ...row, source: 'demo' }));
        },
      },
    });
    const asked: ScanRequest[] = [];
    // RSI below 40 instead of 30, so that the demo clock has matches to cite (the mapping itself is tested above).
    const runScan = async (request: ScanRequest) => {
      asked.push(request);
      return engine.run({
        ...request,
        conditions: request.conditions.map((condition) =>
          condition.kind === 'rsi'
            ? { ...condition, level: 45 }
            : condition.kind === 'volume_z'
              ? { ...condition, threshold: 0.5 }
              : condition,
        ),
      });
    };
    const tools = { runScan } as unknown as AssistantTools;
    const analyst = createBuiltinAnalyst({ tools, now: () => CLOCK });
    const { text, error } = await collectAnswer(
      analyst.respond({
        messages: [{ role: 'user', content: 'oversold stocks with volume today' }],
        file: null,
        userId: 'u',
        signal: new AbortController().signal,
      }),
    );
    expect(error).toBeNull();
    expect(asked).toHaveLength(1);
    const request = asked[0]!;
    const answer = await runScan(request);
    expect(answer.matched).toBeGreaterThan(0);
    expect(text).toContain('## Scan');
    expect(text).toContain(`${answer.matched} of ${answer.evaluated} symbols match`);
    for (const row of answer.rows.slice(0, 15)) {
      expect(text).toContain(`| ${row.ticker} |`);
      expect(text).toContain(row.values[0]!.toFixed(2));
      expect(row.assetClass).toBe('stock');
    }
    expect(text).toBe(
      `## Scan\n\n${describeScan(scanFromText('oversold stocks with volume today')!.words, request, answer)}`,
    );
  });
});
