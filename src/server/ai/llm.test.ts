// Contract test of the LLM provider against a local fake OpenAI-compatible server: the model
// streams, calls our tools, the tool results go back to the model and reach the answer, and
// endpoint failures become one clear error for the chat.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { readTables } from '../files/service.ts';
import { createDemoFeed, DEMO_EPOCH } from '../market/demoFeed.ts';
import { createMarketRouter } from '../market/router.ts';
import { startFakeOpenAI, type FakeChatRequest, type FakeOpenAI } from '../testing/fakeOpenAI.ts';
import { analyseFile, type FileAnalysis } from '../files/service.ts';
import { createLlmAssistant } from './llm.ts';
import { createMarketAnalysis } from '../analysis/service.ts';
import { createAssistantTools } from './tools.ts';
import { unknownSymbolMessage } from '../../shared/symbols.ts';

const NOW = DEMO_EPOCH + 75 * 86_400_000 + 15 * 3_600_000;
const feed = createDemoFeed({ now: () => NOW });
let database: TestDatabase;
let fake: FakeOpenAI;
let tools: ReturnType<typeof createAssistantTools>;

beforeAll(async () => {
  database = await openTestDatabase('pglite');
  fake = await startFakeOpenAI();
  tools = createAssistantTools({
    analysis: createMarketAnalysis({
      market: createMarketRouter({ mode: 'demo', coinbase: feed, yahoo: feed, demo: feed, now: () => NOW }),
      now: () => NOW,
    }),
    db: database.db,
    fileLimits: { maxBytes: 1024 * 1024, maxRows: 1000 },
    now: () => NOW,
  });
});
afterAll(async () => {
  await fake?.close();
  await database?.close();
});

async function run(baseURL: string, content: string, file: FileAnalysis | null = null) {
  const assistant = createLlmAssistant({ baseURL, apiKey: 'test-key', model: 'fake-analyst-1', tools, now: () => NOW });
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of assistant.respond({
    messages: [{ role: 'user', content }],
    file,
    userId: 'user-1',
    signal: new AbortController().signal,
  }))
    chunks.push(chunk);
  const text = chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');
  return { chunks, text };
}

function toolResult(request: FakeChatRequest): Record<string, unknown> | null {
  const message = request.body.messages.find((entry) => entry.role === 'tool');
  return message ? (JSON.parse(message.content as string) as Record<string, unknown>) : null;
}

describe('LLM provider (OpenAI-compatible, through the AI SDK)', () => {
  it('streams, calls a tool, and the tool result reaches the answer', async () => {
    fake.requests.length = 0;
    fake.reply((request) => {
      const result = toolResult(request) as {
        productId: string;
        baseRate: { probability: number; samples: number };
      } | null;
      if (!result) return { toolCalls: [{ name: 'getWatosOdds', arguments: { symbol: 'ETH' } }] };
      return {
        text: `${result.productId}: the WATOS base rate is ${(result.baseRate.probability * 100).toFixed(1)}% over ${result.baseRate.samples} bars. Nothing here is financial advice.`,
      };
    });
    const { chunks, text } = await run(fake.baseURL, 'What are the odds for ETH?');

    const expected = await tools.watos('ETH', '1h');
    expect(text).toBe(
      `ETH-USD: the WATOS base rate is ${(expected.baseRate.probability! * 100).toFixed(1)}% over ${expected.baseRate.samples} bars. Nothing here is financial advice.`,
    );
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(3);
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-input-available', toolName: 'getWatosOdds', input: { symbol: 'ETH' } }),
    );
    const output = chunks.find((chunk) => chunk.type === 'tool-output-available') as {
      output: { signals: unknown[]; source: string };
    };
    expect(output.output.signals).toHaveLength(6);
    expect(output.output.source).toBe('demo');
    expect(chunks.at(-1)?.type).toBe('finish');

    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(first!.authorization).toBe('Bearer test-key');
    expect(first!.body.model).toBe('fake-analyst-1');
    expect(first!.body.stream).toBe(true);
    expect(first!.body.messages[0]!.role).toBe('system');
    expect(first!.body.messages[0]!.content).toContain('Never invent or estimate a price');
    expect(first!.body.messages[0]!.content).toContain('Nothing here is financial advice.');
    expect(first!.body.tools!.map((entry) => entry.function.name).sort()).toEqual([
      'findSymbol',
      'getAlerts',
      'getCandleSummary',
      'getQuote',
      'getWatchlist',
      'getWatosOdds',
      'listMyFiles',
      'readStoredFile',
      'runSetupStudy',
    ]);
    // The second call carries the assistant's tool call and our tool's real output.
    const call = second!.body.messages.find((entry) => entry.role === 'assistant')!.tool_calls![0]!;
    expect(call.function.name).toBe('getWatosOdds');
    expect(toolResult(second!)).toMatchObject({
      productId: 'ETH-USD',
      lastClose: expected.lastClose,
      bars: expected.bars,
    });
  });

  it('hands a tool error (no market data) to the model instead of a number', async () => {
    fake.reply((request) => {
      const result = toolResult(request);
      if (!result) return { toolCalls: [{ name: 'getQuote', arguments: { symbol: 'LSE:VOD' } }] };
      return { text: `VOD: ${String(result.error)}` };
    });
    const { text } = await run(fake.baseURL, 'Price of LSE:VOD?');
    expect(text).toBe(`VOD: ${unknownSymbolMessage('LSE:VOD')} I will not guess a price.`);
  });

  it('offers the attached file as a tool and answers from its analytics', async () => {
    const csv = readFileSync(join(import.meta.dirname, 'fixtures', 'option-chain.csv'));
    const file = analyseFile('option-chain.csv', await readTables(csv, 'csv', { maxRows: 1000 }));
    fake.requests.length = 0;
    fake.reply((request) => {
      const result = toolResult(request) as FileAnalysis | null;
      if (!result) return { toolCalls: [{ name: 'readAttachedFile', arguments: {} }] };
      const chain = result.tables[0]!.optionChain!.expiries[0]!;
      return {
        text: `Max pain is ${chain.maxPain!.strike}; put/call by open interest ${chain.putCallOpenInterest!.toFixed(2)}.`,
      };
    });
    const { text } = await run(fake.baseURL, 'Max pain of this chain? [option-chain.csv]', file);
    expect(text).toBe('Max pain is 100; put/call by open interest 0.85.');
    expect(fake.requests[0]!.body.messages[0]!.content).toContain('The trader attached the file "option-chain.csv"');
    expect(fake.requests[0]!.body.tools!.map((entry) => entry.function.name)).toContain('readAttachedFile');
  });

  it('turns an unreachable endpoint into one clear error', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const { chunks, text } = await run(`http://127.0.0.1:${port}/v1`, 'What are the odds for ETH?');
    expect(text).toBe('');
    expect(chunks).toContainEqual({
      type: 'error',
      errorText: `The AI service at 127.0.0.1:${port} could not be reached. Please try again later; your message is kept.`,
    });
  });

  it('names a refused API key and an unknown model', async () => {
    fake.reply(() => ({ status: 401, error: 'Incorrect API key provided' }));
    const refused = await run(fake.baseURL, 'hello');
    expect(refused.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringContaining('refused the API key (LLM_API_KEY)'),
    });
    fake.reply(() => ({ status: 404, error: 'model not found' }));
    const unknown = await run(fake.baseURL, 'hello');
    expect(unknown.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringContaining("does not know the model 'fake-analyst-1' (LLM_MODEL)"),
    });
  });

  it('reports a stream cut off mid-answer as an error', async () => {
    fake.reply(() => ({ hangUpAfter: 'ETH-USD: the first words' }));
    const { chunks } = await run(fake.baseURL, 'What are the odds for ETH?');
    expect(chunks.some((chunk) => chunk.type === 'error')).toBe(true);
  });
});
