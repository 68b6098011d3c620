// The assistant's HTTP API through the real app: the chat stream (server-sent UI message
// chunks), saved conversations, the grid card, POST /external-api/prompt, input limits, the
// per-user rate limit, and an LLM that is down (through a local fake endpoint).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WATOS_SIGNALS } from '../../shared/constants.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { unknownSymbolMessage } from '../../shared/symbols.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../testing/fakeOpenAI.ts';
import { type Browser, jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import type { ConversationDetail, ConversationSummary, PromptResponse, WatosCard } from '../../shared/schemas/chat.ts';

const chainCsv = readFileSync(join(import.meta.dirname, 'fixtures', 'option-chain.csv'));

interface Part {
  name: string;
  value: string | { filename: string; data: Buffer | string; type?: string };
}

/** A multipart request as a browser's FormData would send it. */
async function multipart(parts: Part[]) {
  const form = new FormData();
  for (const part of parts) {
    if (typeof part.value === 'string') form.append(part.name, part.value);
    else {
      const { data } = part.value;
      form.append(
        part.name,
        new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type: part.value.type ?? 'text/csv' }),
        part.value.filename,
      );
    }
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

async function post(test: TestApp, browser: Browser, url: string, parts: Part[]): Promise<LightMyRequestResponse> {
  const { payload, contentType } = await multipart(parts);
  return test.app.inject({
    method: 'POST',
    url,
    payload,
    headers: { origin: test.config.publicUrl, cookie: browser.cookieHeader, 'content-type': contentType },
  });
}

type Chunk = { type: string; delta?: string; errorText?: string };
/** The part of GET /api/watos/{symbol} these tests read (an available card). */
type WatosCardBody = { signals: Array<{ name: string }>; baseRate: { raw: number; samples: number } };

function events(response: LightMyRequestResponse): Array<Chunk | '[DONE]'> {
  return response.body
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as Chunk)));
}

const textOf = (response: LightMyRequestResponse) =>
  events(response)
    .map((event) => (event !== '[DONE]' && event.type === 'text-delta' ? event.delta : ''))
    .join('');

const messagesField = (...contents: string[]) => ({
  name: 'messages',
  value: JSON.stringify(contents.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content }))),
});

describe('assistant API with the built-in analyst', () => {
  let test: TestApp;
  let trader: Browser;
  let other: Browser;

  beforeAll(async () => {
    test = await createTestApp({ AI_FILE_MAX_MB: '0.05', AI_FILE_MAX_ROWS: '20', AI_RATE_LIMIT_PER_MINUTE: '1000' });
    trader = (await subscribedUser(test, 'assistant@example.com')).browser;
    other = (await subscribedUser(test, 'other-trader@example.com')).browser;
  });
  afterAll(async () => {
    await test?.close();
  });

  it('is a dashboard API: 401 for a visitor on every route', async () => {
    const visitor = trader.constructor as new (app: TestApp['app'], origin: string) => Browser;
    const anonymous = new visitor(test.app, test.config.publicUrl);
    for (const url of ['/api/conversations', '/api/watos/ETH']) expect((await anonymous.get(url)).statusCode).toBe(401);
    expect((await post(test, anonymous, '/api/chat', [messagesField('hi')])).statusCode).toBe(401);
    expect((await post(test, anonymous, '/external-api/prompt', [{ name: 'prompt', value: 'hi' }])).statusCode).toBe(
      401,
    );
  });

  it('streams the answer as UI message chunks and saves the exchange', async () => {
    const response = await post(test, trader, '/api/chat', [messagesField('What are the odds for ETH?')]);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
    const conversationId = response.headers['x-conversation-id'] as string;
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);

    const all = events(response);
    expect(all[0]).toMatchObject({ type: 'start' });
    expect(all[1]).toMatchObject({ type: 'text-start' });
    expect(all.at(-2)).toMatchObject({ type: 'finish' });
    expect(all.at(-1)).toBe('[DONE]');
    const text = textOf(response);
    expect(text.startsWith('## ETH-USD: What Are The Odds? (WATOS, 1h)')).toBe(true);

    // The grid card has the same signals the answer states.
    const card = jsonBody<WatosCardBody>(await trader.get('/api/watos/ETH'));
    expect(card).toMatchObject({
      available: true,
      symbol: 'ETH',
      productId: 'ETH-USD',
      source: 'demo',
      timeframe: '1h',
      horizonBars: 24,
    });
    expect(card.signals.map((signal) => signal.name)).toEqual(WATOS_SIGNALS.map((signal) => signal.name));
    for (const signal of card.signals) expect(text).toContain(`| ${signal.name} |`);
    expect(text).toContain(
      `${(card.baseRate.raw * 100).toFixed(1)}%** of ${card.baseRate.samples.toLocaleString('en-US')} bars`,
    );

    const list = jsonBody<{ conversations: ConversationSummary[] }>(
      await trader.get('/api/conversations'),
    ).conversations;
    expect(list).toEqual([expect.objectContaining({ id: conversationId, title: 'What are the odds for ETH?' })]);
    const saved = jsonBody<{ conversation: ConversationDetail }>(
      await trader.get(`/api/conversations/${conversationId}`),
    ).conversation;
    expect(saved.messages.map((message: { role: string; content: string }) => [message.role, message.content])).toEqual(
      [
        ['user', 'What are the odds for ETH?'],
        ['assistant', text],
      ],
    );

    // A follow-up in the same conversation is appended to it.
    const followUp = await post(test, trader, '/api/chat', [
      messagesField('What are the odds for ETH?', text, 'How is BTC doing?'),
      { name: 'conversation_id', value: conversationId },
    ]);
    expect(followUp.headers['x-conversation-id']).toBe(conversationId);
    expect(textOf(followUp)).toContain('## BTC-USD: price and trend (1h)');
    expect(
      jsonBody<{ conversation: ConversationDetail }>(await trader.get(`/api/conversations/${conversationId}`))
        .conversation.messages,
    ).toHaveLength(4);

    // Nobody else can read or write it.
    expect((await other.get(`/api/conversations/${conversationId}`)).statusCode).toBe(404);
    const intrusion = await post(test, other, '/api/chat', [
      messagesField('hello'),
      { name: 'conversation_id', value: conversationId },
    ]);
    expect(intrusion.statusCode).toBe(404);
    expect(intrusion.json()).toEqual({ error: 'Conversation not found' });
    expect(
      jsonBody<{ conversations: ConversationSummary[] }>(await other.get('/api/conversations')).conversations,
    ).toEqual([]);
  });

  it('starts a new conversation and deletes one', async () => {
    const created = jsonBody<{ conversation: ConversationDetail }>(
      await trader.post('/api/conversations'),
    ).conversation;
    expect(created).toMatchObject({ title: 'New conversation', messages: [] });
    expect((await trader.request('DELETE', `/api/conversations/${created.id}`)).json()).toEqual({ success: true });
    expect((await trader.get(`/api/conversations/${created.id}`)).statusCode).toBe(404);
    expect((await trader.request('DELETE', `/api/conversations/${created.id}`)).statusCode).toBe(404);
  });

  it('analyses an attached option chain and keeps the file name with the message', async () => {
    const response = await post(test, trader, '/api/chat', [
      messagesField('Max pain please [option-chain.csv]'),
      { name: 'file', value: { filename: 'option-chain.csv', data: chainCsv } },
    ]);
    expect(response.statusCode).toBe(200);
    expect(textOf(response)).toContain('- Max pain: **strike 100**');
    const saved = jsonBody<{ conversation: ConversationDetail }>(
      await trader.get(`/api/conversations/${String(response.headers['x-conversation-id'])}`),
    ).conversation;
    expect(saved.messages[0]).toMatchObject({
      role: 'user',
      content: 'Max pain please [option-chain.csv]',
      attachment_name: 'option-chain.csv',
    });
  });

  it('refuses bad input with clear messages and saves nothing', async () => {
    const before = jsonBody<{ conversations: ConversationSummary[] }>(await trader.get('/api/conversations'))
      .conversations.length;
    const cases: Array<[Part[], number, RegExp]> = [
      [[messagesField('   ')], 400, /^The message is empty$/],
      [[messagesField('x'.repeat(8001))], 400, /at most 8,000 characters/],
      [[{ name: 'messages', value: 'not json' }], 400, /JSON list/],
      [[], 400, /messages is required/],
      [
        [messagesField('hi'), { name: 'file', value: { filename: 'notes.txt', data: 'hello' } }],
        400,
        /not a CSV or Excel file/,
      ],
      [
        [messagesField('hi'), { name: 'file', value: { filename: 'big.csv', data: 'a,b\n'.repeat(20_000) } }],
        413,
        /^The file is larger than 0\.05 MB, the largest the assistant analyses\.$/,
      ],
      [
        [messagesField('hi'), { name: 'file', value: { filename: 'long.csv', data: `a,b\n${'1,2\n'.repeat(21)}` } }],
        400,
        /has 21 rows; the assistant analyses files of up to 20 rows/,
      ],
      [[messagesField('hi'), { name: 'conversation_id', value: '../etc' }], 400, /not a valid conversation id/],
    ];
    for (const [parts, status, message] of cases) {
      const response = await post(test, trader, '/api/chat', parts);
      expect(response.statusCode, JSON.stringify(parts).slice(0, 80)).toBe(status);
      expect(jsonBody<{ error: string }>(response).error).toMatch(message);
    }
    const noBoundary = await test.app.inject({
      method: 'POST',
      url: '/api/chat',
      payload: '',
      headers: { origin: test.config.publicUrl, cookie: trader.cookieHeader, 'content-type': 'multipart/form-data' },
    });
    expect(noBoundary.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(noBoundary).error).toMatch(
      /^The form could not be read: send it as multipart\/form-data/,
    );
    const json = await trader.post('/api/chat', { messages: [{ role: 'user', content: 'hi' }] });
    expect(json.statusCode).toBe(400);
    expect(jsonBody<{ error: string }>(json).error).toMatch(/multipart\/form-data/);
    expect(
      jsonBody<{ conversations: ConversationSummary[] }>(await trader.get('/api/conversations')).conversations,
    ).toHaveLength(before);
  });

  it('answers POST /external-api/prompt with {response} and saves both messages', async () => {
    const response = await post(test, trader, '/external-api/prompt', [
      { name: 'prompt', value: 'What are the odds for SOL?' },
    ]);
    expect(response.statusCode).toBe(200);
    const body = jsonBody<{ response: string; conversation_id: string }>(response);
    expect(body.response.startsWith('## SOL-USD: What Are The Odds? (WATOS, 1h)')).toBe(true);
    const saved = jsonBody<{ conversation: ConversationDetail }>(
      await trader.get(`/api/conversations/${body.conversation_id}`),
    ).conversation;
    expect(saved.messages.map((message: { content: string }) => message.content)).toEqual([
      'What are the odds for SOL?',
      body.response,
    ]);

    const withFile = await post(test, trader, '/external-api/prompt', [
      { name: 'prompt', value: 'Calculate the put/call ratio by open interest and by volume for this option chain.' },
      { name: 'conversation_id', value: body.conversation_id },
      { name: 'file', value: { filename: 'option-chain.csv', data: chainCsv } },
    ]);
    expect(jsonBody<PromptResponse>(withFile).response).toContain(
      '- Put/call ratio by open interest: **0.85** (1,100 puts / 1,300 calls)',
    );
    const after = jsonBody<{ conversation: ConversationDetail }>(
      await trader.get(`/api/conversations/${body.conversation_id}`),
    ).conversation;
    expect(after.messages[2]).toMatchObject({
      content: 'Calculate the put/call ratio by open interest and by volume for this option chain. [option-chain.csv]',
      attachment_name: 'option-chain.csv',
    });

    expect((await post(test, trader, '/external-api/prompt', [{ name: 'prompt', value: '' }])).json()).toEqual({
      error: 'The prompt is empty',
    });
    expect(
      (await post(test, trader, '/external-api/prompt', [{ name: 'prompt', value: 'y'.repeat(8001) }])).statusCode,
    ).toBe(400);
  });

  it('serves the grid for every market and says plainly when a symbol has no market data', async () => {
    expect((await trader.get('/api/watos/LSE:VOD')).json()).toEqual({
      available: false,
      symbol: 'VOD',
      message: unknownSymbolMessage('LSE:VOD'),
    });
    expect((await trader.get('/api/watos/BINANCE:BTCUSDT')).json()).toMatchObject({
      available: true,
      symbol: 'BTC',
      assetClass: 'crypto',
      source: 'demo',
      delayed: false,
    });
    for (const [path, productId, assetClass] of [
      ['AAPL', 'AAPL', 'stock'],
      ['NASDAQ:AAPL', 'AAPL', 'stock'],
      [encodeURIComponent('CME_MINI:MES1!'), 'MES1!', 'micro-future'],
      ['MES', 'MES1!', 'micro-future'],
      ['SPY', 'SPY', 'etf'],
    ]) {
      const card = (await trader.get(`/api/watos/${path}`)).json<Extract<WatosCard, { available: true }>>();
      expect(card, path).toMatchObject({ available: true, productId, assetClass, source: 'demo', timeframe: '1h' });
      expect(card.signals, path).toHaveLength(6);
      expect(card.bars, path).toBeGreaterThan(100);
    }
    expect((await trader.get('/api/watos/%3Cscript%3E')).statusCode).toBe(400);
    const fourHour = (await trader.get('/api/watos/ETH?timeframe=4h')).json<Extract<WatosCard, { available: true }>>();
    expect(fourHour).toMatchObject({ available: true, productId: 'ETH-USD', timeframe: '4h', horizonBars: 6 });
    const bad = await trader.get('/api/watos/ETH?timeframe=3h');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('timeframe must be one of 1m, 5m, 15m, 1h, 4h, 8h, 12h, D');
  });
});

describe('assistant API with an LLM endpoint', () => {
  let test: TestApp;
  let fake: FakeOpenAI;
  let trader: Browser;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    test = await createTestApp({
      LLM_BASE_URL: fake.baseURL,
      LLM_API_KEY: 'sk-local',
      LLM_MODEL: 'fake-analyst-1',
      AI_RATE_LIMIT_PER_MINUTE: '4',
    });
    trader = (await subscribedUser(test, 'llm-trader@example.com')).browser;
  });
  afterAll(async () => {
    await test?.close();
    await fake?.close();
  });

  it('streams the model answer with the tool result, then rate-limits per user with a clear 429', async () => {
    fake.reply((request) => {
      const tool = request.body.messages.find((message) => message.role === 'tool');
      if (!tool) return { toolCalls: [{ name: 'getQuote', arguments: { symbol: 'BTC' } }] };
      const quote = JSON.parse(tool.content as string) as { productId: string; spot: number; source: string };
      return {
        text: `${quote.productId} spot ${quote.spot} (${quote.source} data). Nothing here is financial advice.`,
      };
    });
    const response = await post(test, trader, '/api/chat', [messagesField('BTC price?')]);
    const chunks = events(response);
    expect(chunks).toContainEqual(expect.objectContaining({ type: 'tool-input-available', toolName: 'getQuote' }));
    const output = chunks.find((chunk) => chunk !== '[DONE]' && chunk.type === 'tool-output-available') as unknown as {
      output: { spot: number };
    };
    expect(textOf(response)).toBe(`BTC-USD spot ${output.output.spot} (demo data). Nothing here is financial advice.`);
    const saved = jsonBody<{ conversation: ConversationDetail }>(
      await trader.get(`/api/conversations/${String(response.headers['x-conversation-id'])}`),
    ).conversation;
    expect(saved.messages[1]!.content).toBe(textOf(response));

    fake.reply(() => ({ text: 'BTC-USD: fine.' }));
    expect(
      jsonBody<PromptResponse>(await post(test, trader, '/external-api/prompt', [{ name: 'prompt', value: 'hi' }]))
        .response,
    ).toBe('BTC-USD: fine.');
    for (let count = 0; count < 2; count += 1)
      expect((await post(test, trader, '/external-api/prompt', [{ name: 'prompt', value: 'hi' }])).statusCode).toBe(
        200,
      );
    const limited = await post(test, trader, '/api/chat', [messagesField('one more')]);
    expect(limited.statusCode).toBe(429);
    expect(jsonBody<{ error: string }>(limited).error).toMatch(
      /^Too many requests\. Please wait \d+ seconds? and try again\.$/,
    );
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('assistant API when the LLM endpoint is down', () => {
  let test: TestApp;
  let fake: FakeOpenAI;
  let trader: Browser;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    test = await createTestApp({ LLM_BASE_URL: fake.baseURL, LLM_MODEL: 'fake-analyst-1' });
    trader = (await subscribedUser(test, 'llm-down@example.com')).browser;
    await fake.close();
  });
  afterAll(async () => {
    await test?.close();
  });

  it('sends one clear error to the chat and keeps nothing half-saved', async () => {
    const response = await post(test, trader, '/api/chat', [messagesField('What are the odds for ETH?')]);
    expect(response.statusCode).toBe(200);
    const errors = events(response).filter((chunk) => chunk !== '[DONE]' && chunk.type === 'error');
    expect(errors).toEqual([
      {
        type: 'error',
        errorText: expect.stringMatching(
          /^The AI service at 127\.0\.0\.1:\d+ could not be reached\. Please try again later; your message is kept\.$/,
        ),
      },
    ]);
    expect(
      jsonBody<{ conversations: ConversationSummary[] }>(await trader.get('/api/conversations')).conversations,
    ).toEqual([]);

    const prompt = await post(test, trader, '/external-api/prompt', [{ name: 'prompt', value: 'hi' }]);
    expect(prompt.statusCode).toBe(502);
    expect(jsonBody<{ error: string }>(prompt).error).toMatch(/could not be reached/);
  });
});
