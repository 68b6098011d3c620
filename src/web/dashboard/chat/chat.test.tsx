// @vitest-environment jsdom
// The chat in the browser: docs/SPEC.md's rules as pure functions, the stream reader on chunks
// split at awkward places, Markdown that never renders raw HTML, the WATOS grid under an
// answer that mentions it, and a send that succeeds (input and attachment cleared) or fails
// (logged, shown, input and attachment kept).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHAT_WELCOME_CONTENT, type ChatMessage, type WatosCard } from '../../../shared/schemas/chat.ts';
import { watosCardOf } from './watosCardFixture.ts';
import { fillPrompt, stripQuotes } from '../prompts/promptText.ts';
import { AssistantProvider } from './AssistantProvider.tsx';
import { ChatInputBar } from './ChatInputBar.tsx';
import { ChatPanel } from './ChatPanel.tsx';
import {
  gridSymbolOf,
  gridTimeframeOf,
  historyForRequest,
  nextMessageId,
  toolActivity,
  welcomeMessage,
  withAttachmentName,
} from './chatRules.ts';
import { readUiMessageStream } from './uiStream.ts';

beforeAll(() => {
  // jsdom lays nothing out, so it has no scrollIntoView; attaching a file calls it.
  Element.prototype.scrollIntoView = () => undefined;
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('chat rules', () => {
  it('picks the grid symbol by docs/SPEC.md, skipping the product name WATOS', () => {
    expect(gridSymbolOf('## ETH-USD: What Are The Odds? (WATOS, 1h)')).toBe('ETH');
    expect(gridSymbolOf('watos signals look mixed today')).toBe('BTC');
    expect(gridTimeframeOf('## ETH-USD: What Are The Odds? (WATOS, 4h)')).toBe('4h');
    expect(gridTimeframeOf('## SOL-USD: What Are The Odds? (WATOS, D)')).toBe('D');
    expect(gridTimeframeOf('ETH-USD: on the 15m chart the WATOS signals...')).toBe('15m');
    expect(gridTimeframeOf('WATOS for BTC: mixed')).toBe('1h');
    expect(gridTimeframeOf('WATOS over 3h and 2m windows')).toBe('1h');
    expect(gridSymbolOf(CHAT_WELCOME_CONTENT)).toBe('BTC');
    expect(gridSymbolOf('WATOS for SOL')).toBe('SOL');
  });

  it('names what an LLM tool call is doing', () => {
    expect(toolActivity('getWatosOdds')).toBe('Measuring the WATOS odds...');
    expect(toolActivity('somethingNew')).toBe('Looking up data...');
  });

  it('appends the file name in brackets and makes increasing timestamp ids', () => {
    expect(withAttachmentName('Max pain?', 'chain.csv')).toBe('Max pain? [chain.csv]');
    expect(withAttachmentName('Max pain?', null)).toBe('Max pain?');
    const first = Number(nextMessageId(1000));
    const second = Number(nextMessageId(1000));
    expect(second).toBeGreaterThan(first);
  });

  it('sends the history without the welcome, failed or unfinished messages', () => {
    const history = historyForRequest([
      welcomeMessage(),
      { id: '1', role: 'user', content: 'old', failed: true },
      { id: '2', role: 'user', content: 'hi' },
      { id: '3', role: 'assistant', content: 'x'.repeat(9000) },
      { id: '4', role: 'assistant', content: '', streaming: true },
    ]);
    expect(history.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(history[1]!.content.length).toBe(8000);
  });

  it('shows prompts without surrounding quotes and fills the selections', () => {
    expect(stripQuotes('"Summarize {symbol}"')).toBe('Summarize {symbol}');
    expect(stripQuotes('“Quoted”')).toBe('Quoted');
    expect(fillPrompt('"Trend of {symbol} on the {timeframe} chart"', { symbol: 'ETH-USD', timeframe: '4h' })).toBe(
      'Trend of ETH-USD on the 4h chart',
    );
  });
});

function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

describe('readUiMessageStream', () => {
  it('reassembles events split across reads', async () => {
    const body =
      'data: {"type":"start"}\n\ndata: {"type":"text-delta","id":"a","delta":"Hel"}\n\ndata: {"type":"text-delta","id":"a","delta":"lo"}\r\n\r\ndata: {"type":"finish"}\n\ndata: [DONE]\n\n';
    const chunks = [];
    for await (const chunk of readUiMessageStream(
      streamOf([body.slice(0, 7), body.slice(7, 50), body.slice(50, 51), body.slice(51)]),
    ))
      chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['other', 'text-delta', 'text-delta', 'finish']);
    expect(
      chunks
        .filter((chunk) => chunk.type === 'text-delta')
        .map((chunk) => chunk.delta)
        .join(''),
    ).toBe('Hello');
  });
});

const ethCard: WatosCard = watosCardOf(
  {
    symbol: 'ETH',
    productId: 'ETH-USD',
    assetClass: 'crypto',
    source: 'demo',
    delayed: false,
    bars: 1440,
    lastBarTime: '2026-11-22T19:00:00.000Z',
    lastClose: 3312.45,
    baseRate: { probability: 0.5, raw: 0.5, samples: 1416, effectiveSamples: 81, interval: [0.43, 0.57] },
  },
  {
    index: 4,
    odds: {
      probability: 0.61,
      raw: 0.65,
      samples: 120,
      effectiveSamples: 60,
      interval: [0.52, 0.69],
      noEdge: false,
      reason: null,
    },
  },
);

function sseResponse(events: object[], headers: Record<string, string> = {}): Response {
  const body = [...events.map((event) => `data: ${JSON.stringify(event)}\n\n`), 'data: [DONE]\n\n'];
  return new Response(streamOf(body), { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } });
}

function renderChat(initialMessages: ChatMessage[], fetchMock: (url: string, init?: RequestInit) => Promise<Response>) {
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => fetchMock(String(url), init)),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>
      <AssistantProvider initialMessages={initialMessages}>{children}</AssistantProvider>
    </QueryClientProvider>
  );
  return render(
    <>
      <ChatPanel />
      <ChatInputBar />
    </>,
    { wrapper },
  );
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('ChatPanel', () => {
  it('renders answers as Markdown without raw HTML, and a WATOS grid when they mention it', async () => {
    const hostile =
      'Hello <script>window.hacked = 1</script><img src="x" onerror="window.hacked = 2"> **bold** [click](javascript:alert(1))';
    const { container } = renderChat(
      [
        { id: '1', role: 'assistant', content: hostile },
        { id: '2', role: 'assistant', content: '## ETH-USD: What Are The Odds? (WATOS, 1h)' },
      ],
      (url) =>
        Promise.resolve(url === '/api/watos/ETH?timeframe=1h' ? json(ethCard) : json({ error: 'unexpected' }, 404)),
    );
    expect(container.querySelector('script, img')).toBeNull();
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(screen.getByText('click').getAttribute('href') ?? '').not.toMatch(/javascript:/);
    expect(screen.queryByText('Loading...')).toBeNull();

    const grid = await screen.findByTestId('watos-grid');
    expect(within(grid).getByRole('heading', { name: 'WATOS Grid: ETH' })).toBeTruthy();
    expect(within(grid).getByText('What Are The Odds?')).toBeTruthy();
    await waitFor(() => expect(within(grid).getAllByTestId('watos-tile')).toHaveLength(6));
    const support = within(grid).getAllByTestId('watos-tile')[4]!;
    expect(support.getAttribute('data-strength')).toBe('medium');
    expect(support.className).toContain('border-blue');
    expect(support.textContent).toContain('61.0% chance of a higher close 24 bars later (n=120)');
    expect(within(grid).getAllByTestId('watos-tile')[0]!.className).toContain('border-yellow');
    expect(within(grid).getByText(/^Last updated: \d/)).toBeTruthy();
    // Only the answer that mentions WATOS has a grid.
    expect(screen.getAllByTestId('watos-grid')).toHaveLength(1);
  });

  it('sends the trimmed text with the file, streams the answer, then clears input and attachment', async () => {
    const sent: FormData[] = [];
    // A fetch stub: fetch answers with a promise.

    renderChat([welcomeMessage()], async (url, init) => {
      if (url === '/api/chat') {
        sent.push(init!.body as FormData);
        return sseResponse(
          [
            { type: 'start' },
            { type: 'text-start', id: 'a' },
            { type: 'text-delta', id: 'a', delta: 'File analysis: ' },
            { type: 'text-delta', id: 'a', delta: 'max pain 100' },
            { type: 'text-end', id: 'a' },
            { type: 'finish' },
          ],
          { 'x-conversation-id': 'conversation-1' },
        );
      }
      if (url.startsWith('/api/watos/')) return json(ethCard);
      return json({ conversations: [] });
    });
    const input = screen.getByPlaceholderText(
      "Ask about a symbol, request probability forecasts, or summarize today's alerts...",
    );
    fireEvent.change(input, { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send message' }));
    expect(sent).toHaveLength(0);

    const file = new File(['Strike,Type,Open Interest\n100,call,5\n'], 'chain.csv', { type: 'text/csv' });
    fireEvent.change(screen.getByTestId('chat-file-input'), { target: { files: [file] } });
    expect(screen.getByTestId('attachment-chip').textContent).toContain('chain.csv');
    fireEvent.change(input, { target: { value: '  What is the max pain?  ' } });
    // An async act flushes the send's promise chain before the assertions below.

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Send message' }));
    });
    await screen.findByText('File analysis: max pain 100');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.get('messages') as string)).toEqual([
      { role: 'user', content: 'What is the max pain? [chain.csv]' },
    ]);
    expect((sent[0]!.get('file') as File).name).toBe('chain.csv');
    expect(screen.getAllByTestId('user-message').map((item) => item.textContent)).toEqual([
      'What is the max pain? [chain.csv]',
    ]);
    await waitFor(() => expect((input as HTMLTextAreaElement).value).toBe(''));
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
  });

  it('on failure logs, shows the error, marks the message and keeps input and attachment', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // A fetch stub: fetch answers with a promise.

    renderChat([welcomeMessage()], async (url) => {
      if (url === '/api/chat')
        return sseResponse([
          { type: 'start' },
          {
            type: 'error',
            errorText:
              'The AI service at llm.example could not be reached. Please try again later; your message is kept.',
          },
        ]);
      return json(ethCard);
    });
    const input = screen.getByPlaceholderText(
      "Ask about a symbol, request probability forecasts, or summarize today's alerts...",
    );
    fireEvent.change(screen.getByTestId('chat-file-input'), { target: { files: [new File(['a'], 'chain.csv')] } });
    fireEvent.change(input, { target: { value: 'What are the odds for ETH?' } });
    // An async act flushes the send's promise chain before the assertions below.

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Send message' }));
    });
    const banner = await screen.findByTestId('chat-error');
    expect(banner.textContent).toContain(
      'Your message was not sent: The AI service at llm.example could not be reached',
    );
    expect(logged).toHaveBeenCalledWith('Error sending chat message', expect.any(Error));
    expect((input as HTMLTextAreaElement).value).toBe('What are the odds for ETH?');
    expect(screen.getByTestId('attachment-chip').textContent).toContain('chain.csv');
    expect(screen.getByTestId('user-message').textContent).toContain('Not sent');
    expect(screen.queryByTestId('typing-dots')).toBeNull();
  });
});

describe('AssistantProvider', () => {
  it('reads the saved conversation list once, not again when the list query starts', async () => {
    const requested: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        requested.push(String(url));
        return String(url) === '/api/conversations' ? json({ conversations: [] }) : json({ error: 'unexpected' }, 404);
      }),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <AssistantProvider>
          <ChatPanel />
        </AssistantProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.queryByText('Loading...')).toBeNull());
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(requested.filter((url) => url === '/api/conversations')).toEqual(['/api/conversations']);
  });
});
