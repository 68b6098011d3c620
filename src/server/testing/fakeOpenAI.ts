// A local fake of an OpenAI-compatible Chat Completions endpoint on 127.0.0.1 (ephemeral
// port) that streams like the real one: server-sent `chat.completion.chunk`s with
// delta.content and delta.tool_calls (arguments arriving in pieces), finish_reason, [DONE].
// A test scripts each answer from the request it receives (for example: call a tool first,
// then answer from the tool result) and reads every request afterwards.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface FakeChatRequest {
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: FakeChatMessage[];
    tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters: unknown } }>;
  };
}

type FakeReply =
  | { text: string }
  | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }
  | { status: number; error: string }
  /** Accepts the request, then drops the connection mid-answer. */
  | { hangUpAfter: string };

export interface FakeOpenAI {
  baseURL: string;
  requests: FakeChatRequest[];
  /** Decides each answer from the request. */
  reply(handler: (request: FakeChatRequest) => FakeReply): void;
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return JSON.parse(body);
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: FakeChatRequest[] = [];
  let handler: (request: FakeChatRequest) => FakeReply = () => ({ text: 'Hello from the fake model.' });
  let sequence = 0;

  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'Not found' } }));
        return;
      }
      const chat: FakeChatRequest = {
        authorization: request.headers.authorization,
        body: (await readJson(request)) as FakeChatRequest['body'],
      };
      requests.push(chat);
      const reply = handler(chat);
      if ('status' in reply) {
        response
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: reply.error, type: 'invalid_request_error' } }));
        return;
      }
      if (!chat.body.stream) {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'The fake only streams' } }));
        return;
      }
      sequence += 1;
      const id = `chatcmpl-fake-${sequence}`;
      const created = Math.floor(Date.now() / 1000);
      const chunk = (delta: object, finishReason: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: chat.body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      response.write(chunk({ role: 'assistant', content: '' }));
      if ('hangUpAfter' in reply) {
        response.write(chunk({ content: reply.hangUpAfter }));
        response.socket?.destroy();
        return;
      }
      if ('toolCalls' in reply) {
        reply.toolCalls.forEach((call, index) => {
          const callId = `call_${sequence}_${index}`;
          const args = JSON.stringify(call.arguments);
          const middle = Math.ceil(args.length / 2);
          response.write(
            chunk({
              tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }],
            }),
          );
          response.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, middle) } }] }));
          response.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(middle) } }] }));
        });
        response.write(chunk({}, 'tool_calls'));
      } else {
        for (const piece of reply.text.match(/.{1,12}/gs) ?? []) response.write(chunk({ content: piece }));
        response.write(chunk({}, 'stop'));
      }
      response.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: chat.body.model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
      );
      response.end('data: [DONE]\n\n');
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    reply(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
