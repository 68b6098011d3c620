// The built-in analyst on the demo feed at a fixed time: its answers must carry the numbers
// the signals engine computes for the same candles (checked against an independent
// computation here), the file analytics of the fixture chain, the stored alerts, and plain
// statements where there is no data.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractTicker, mentionsWatos } from '../../shared/chatSignals.ts';
import { formatPrice } from '../../shared/format.ts';
import { candleSeries } from '../../signals/candles.ts';
import { watosOdds } from '../../signals/watosOdds.ts';
import { saveAlerts } from '../alerts/service.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { readTables } from '../files/service.ts';
import { createDemoFeed, DEMO_EPOCH } from '../market/demoFeed.ts';
import { createMarketRouter } from '../market/router.ts';
import { OPTIONS_CATEGORY, PROMPT_CATALOGUE } from '../prompts/catalogue.ts';
import { createBuiltinAnalyst } from './builtinAnalyst.ts';
import { analyseFile, type FileAnalysis } from '../files/service.ts';
import { createMarketAnalysis } from '../analysis/service.ts';
import { createAssistantTools } from './tools.ts';

const NOW = DEMO_EPOCH + 75 * 86_400_000 + 15 * 3_600_000 + 17 * 60_000;
const feed = createDemoFeed({ now: () => NOW });
let database: TestDatabase;
let tools: ReturnType<typeof createAssistantTools>;
let analyst: ReturnType<typeof createBuiltinAnalyst>;

beforeAll(async () => {
  database = await openTestDatabase('pglite');
  tools = createAssistantTools({
    analysis: createMarketAnalysis({
      market: createMarketRouter({ mode: 'demo', coinbase: feed, yahoo: feed, demo: feed, now: () => NOW }),
      now: () => NOW,
    }),
    db: database.db,
    fileLimits: { maxBytes: 1024 * 1024, maxRows: 1000 },
    now: () => NOW,
  });
  analyst = createBuiltinAnalyst({ tools, now: () => NOW });
});
afterAll(async () => {
  await database?.close();
});

async function ask(
  content: string,
  file: FileAnalysis | null = null,
  history: Array<{ role: 'user' | 'assistant'; content: string }> = [],
) {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of analyst.respond({
    messages: [...history, { role: 'user', content }],
    file,
    userId: 'user-1',
    signal: new AbortController().signal,
  }))
    chunks.push(chunk);
  const deltas = chunks.filter(
    (chunk): chunk is Extract<UIMessageChunk, { type: 'text-delta' }> => chunk.type === 'text-delta',
  );
  return { chunks, deltas, text: deltas.map((chunk) => chunk.delta).join('') };
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

describe('built-in analyst', () => {
  it("answers 'What are the odds for ETH?' with the computed signals of ETH on the demo feed", async () => {
    const { chunks, deltas, text } = await ask('What are the odds for ETH?');

    const rows = await feed.candles('ETH-USD', 3600, new Date(NOW - 60 * 86_400_000), new Date(NOW));
    const series = candleSeries(rows);
    const expected = watosOdds(series, 24);

    expect(text.startsWith('## ETH-USD: What Are The Odds? (WATOS, 1h)')).toBe(true);
    expect(text).toContain('**Demo data:**');
    expect(text).toContain(`Last close **$${formatPrice(series.close[series.length - 1]!)}**`);
    expect(text).toContain(`measured over **${series.length.toLocaleString('en-US')}** 1h bars`);
    expect(text).toContain(
      `on **${pct(expected.baseRate.raw!)}** of ${expected.baseRate.samples.toLocaleString('en-US')} bars`,
    );
    expect(text).toContain(`calibrated **${pct(expected.baseRate.probability!)}** (95% CI `);
    for (const signal of expected.signals) {
      const state = signal.active ? `**${signal.direction}**, ${signal.strength}` : 'inactive';
      expect(text).toContain(`| ${signal.name} | ${state} |`);
      if (signal.active)
        expect(text).toContain(
          `- **${signal.name}** (${signal.direction}, ${signal.strength}): ${signal.description}.`,
        );
      if (signal.odds?.probability != null) {
        // The stated odds, the measured share behind them and the sample size, side by side.
        expect(text).toContain(
          `**${pct(signal.odds.probability)}**, measured ${pct(signal.odds.raw!)} of ${signal.odds.samples.toLocaleString('en-US')} bars`,
        );
        if (signal.odds.noEdge)
          expect(text).toContain(
            `no measurable edge, so the odds stated are the base rate, ${pct(signal.odds.probability)} (n=${signal.odds.samples.toLocaleString('en-US')})`,
          );
      }
      if (signal.odds && signal.odds.probability === null)
        expect(text).toContain(`not enough history (${signal.odds.samples} bars)`);
    }
    expect(text).toContain('Nothing here is financial advice.');
    // The chat shows the WATOS grid for ETH under this answer (docs/SPEC.md rule).
    expect(mentionsWatos(text)).toBe(true);
    expect(extractTicker(text)).toBe('ETH');
    // Streamed: the heading first, then many small pieces, between start and finish.
    expect(chunks[0]!.type).toBe('start');
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(deltas[0]!.delta).toBe('## ETH-USD: What Are The Odds? (WATOS, 1h)\n\n');
    expect(deltas.length).toBeGreaterThan(20);
  });

  it('analyses the attached option chain: max pain and put/call from the fixture', async () => {
    const csv = readFileSync(join(import.meta.dirname, 'fixtures', 'option-chain.csv'));
    const file = analyseFile('option-chain.csv', await readTables(csv, 'csv', { maxRows: 1000 }));
    const { text } = await ask('What is the max pain and put/call ratio of this chain? [option-chain.csv]', file);
    expect(text).toContain('## File analysis: option-chain.csv');
    expect(text).toContain('- Put/call ratio by open interest: **0.85** (1,100 puts / 1,300 calls)');
    expect(text).toContain('- Put/call ratio by volume: **0.92** (240 puts / 260 calls)');
    expect(text).toContain(
      '- Max pain: **strike 100**, where holders would collect least at expiry (3,000 = intrinsic value × open interest',
    );
    expect(text).toContain('| 100 | 50.0 | 51.0 |');
    expect(text).toContain('**Expiry 2026-12-26**');
    expect(text).toContain('call/put ‘Type’, open interest ‘Open Interest’');
    // The chain's analytics come before the column statistics.
    expect(text.indexOf('Max pain')).toBeLessThan(text.indexOf('| Column | Type | Filled | Statistics |'));
    expect(text).toContain('| Strike | number | 10/10 | min 90 · max 110 · mean 100 · median 100 ·');
    expect(text).not.toContain('Demo data');
  });

  it('answers the odds for a stock and a micro future from their own series, prices in their units', async () => {
    const apple = await ask('What are the odds for AAPL?');
    const appleCard = await tools.watos('AAPL', '1h');
    expect(apple.text).toContain('## AAPL: What Are The Odds? (WATOS, 1h)');
    expect(apple.text).toContain('**Demo data:**');
    expect(apple.text).toContain(`Last close **$${formatPrice(appleCard.lastClose)}**`);
    expect(extractTicker(apple.text)).toBe('AAPL');

    const micro = await ask('What are the odds for CME_MINI:MES1!?');
    const microCard = await tools.watos('MES1!', '1h');
    expect(microCard.assetClass).toBe('micro-future');
    expect(micro.text).toContain('## MES1!: What Are The Odds? (WATOS, 1h)');
    // Index points, not dollars; MES trades in quarter points.
    expect(micro.text).toContain(`Last close **${formatPrice(microCard.lastClose)}**`);
    expect(Math.round(microCard.lastClose * 4)).toBeCloseTo(microCard.lastClose * 4, 6);
    expect(extractTicker(micro.text)).toBe('MES');
  });

  it('gives a futures stop in dollars a contract', async () => {
    const { text } = await ask('Where should my stop be on MES?');
    const summary = await tools.candleSummary('MES', '1h');
    const stop = summary.atr14! * 1.5;
    expect(text).toContain('## MES1!: price and trend (1h)');
    expect(text).toContain(`one contract risks **$${formatPrice(stop * 5)}** on that stop`);
  });

  it('says plainly that a market we do not cover has no data and shows no price', async () => {
    const { text } = await ask('What are the odds for LSE:VOD?');
    expect(text).toContain('## LSE:VOD: What Are The Odds? (WATOS)');
    expect(text).toContain('No market data for LSE:VOD: it is not a market we cover.');
    expect(text).not.toMatch(/\$\d/);
  });

  it('gives price and trend figures from the candles, with a risk line when asked', async () => {
    const { text } = await ask('Where should my stop be on SOL? Show the trend on the 4h chart');
    const summary = await tools.candleSummary('SOL', '4h');
    expect(text).toContain('## SOL-USD: price and trend (4h)');
    expect(text).toContain(`| Last close | $${formatPrice(summary.lastClose)} (4h bar closing`);
    expect(text).toContain(`RSI(14) ${summary.rsi14!.toFixed(1)}`);
    expect(text).toContain(`**Stop distance at 1.5 × ATR(14):** $${formatPrice(summary.atr14! * 1.5)}`);
  });

  it('summarises the stored alerts of today', async () => {
    const today = new Date(Math.floor(NOW / 86_400_000) * 86_400_000);
    const at = (minutes: number) => new Date(today.getTime() + minutes * 60_000);
    await saveAlerts(database.db, [
      {
        ticker: 'BTC',
        alertType: 'BreakoutAlertGenerator',
        message: 'BTC broke above 95,000',
        timestamp: at(60),
        source: 'demo',
      },
      {
        ticker: 'ETH',
        alertType: 'TrendChangeAlertGenerator',
        message: 'ETH bearish trend change',
        timestamp: at(90),
        source: 'demo',
      },
      {
        ticker: 'BTC',
        alertType: 'VolatilitySpikeAlertGenerator',
        message: 'BTC volatility spike',
        timestamp: at(120),
        source: 'demo',
      },
      {
        ticker: 'SOL',
        alertType: 'BreakoutAlertGenerator',
        message: 'SOL breakout yesterday',
        timestamp: new Date(today.getTime() - 3_600_000),
        source: 'demo',
      },
    ]);
    const { text } = await ask("Summarize today's alerts");
    expect(text).toContain('## Alerts: all symbols, today (since 00:00 UTC)');
    expect(text).toContain('**3 alerts** from');
    expect(text).toContain('- By signal: bullish 1 · bearish 1 · caution 1');
    expect(text).toContain('- Most active: BTC 2 · ETH 1');
    expect(text).toContain('| ETH | TrendChange | ETH bearish trend change |');
    expect(text).not.toContain('SOL breakout yesterday');
    expect(text).toContain('**Demo data:** 3 of these alerts');

    const btc = await ask('Any breakout alerts for BTC today?');
    expect(btc.text).toContain('**1 alert** for BTC of type Breakout');
  });

  it('lists the watchlist with prices for tracked symbols and says which have no data', async () => {
    const { text } = await ask('Show my watchlist');
    expect(text).toContain('Alerts panel: AAPL, TSLA, BTC, ETH.');
    expect(text).toMatch(/\| BTC-USD \| \$[\d,]+\.\d{2} \|/);
    // Every market of the table is tracked: the stocks get their own rows, delayed or demo labelled.
    expect(text).toMatch(/\| AAPL \| \$[\d,]+\.\d{2} \|/);
    expect(text).toMatch(/\| TSLA \| \$[\d,]+\.\d{2} \|/);
    expect(text).not.toContain('No market data');
  });

  it('follows the thread: a follow-up without a symbol uses the previous one', async () => {
    const { text } = await ask('and the odds?', null, [
      { role: 'user', content: 'How is XRP doing?' },
      { role: 'assistant', content: '## XRP-USD: price and trend (1h)' },
    ]);
    expect(text.startsWith('## XRP-USD: What Are The Odds?')).toBe(true);
  });

  it('says what it can and cannot do when nothing matches', async () => {
    const { text } = await ask('Tell me a joke');
    expect(text).toContain("I couldn't match that to something I can measure.");
    expect(text).toContain('What I cannot do: news, fundamentals, markets outside that table');
    expect(text).toContain('US stocks, ETFs, indices and CME futures and micro futures');
    expect((await ask('Hello there')).text.startsWith('Hello!\n\n')).toBe(true);
  });

  it('answers every catalogue prompt with measured content, never the fallback', async () => {
    const csv = readFileSync(join(import.meta.dirname, 'fixtures', 'option-chain.csv'));
    const file = analyseFile('option-chain.csv', await readTables(csv, 'csv', { maxRows: 1000 }));
    for (const entry of PROMPT_CATALOGUE) {
      const prompt = entry.prompt.replaceAll('{symbol}', 'BTC-USD').replaceAll('{timeframe}', '1h');
      const { text } = await ask(prompt, entry.category === OPTIONS_CATEGORY ? file : null);
      expect(text, prompt).not.toContain("I couldn't match");
      expect(text, prompt).not.toContain('No market data');
      if (entry.category === OPTIONS_CATEGORY) expect(text, prompt).toContain('## File analysis: option-chain.csv');
      else expect(text, prompt).toMatch(/BTC-USD|Alerts: all symbols|Alerts: BTC/);
    }
  }, 120_000);
});
