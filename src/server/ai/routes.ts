// The assistant's HTTP API (all inside the dashboard scope: 401/403 without a subscription):
// - POST /api/chat (multipart: messages JSON, optional conversation_id, optional file): the
//   answer as an AI SDK UI message stream over server-sent events; the user message is saved
//   on receipt and the answer when complete (both dropped again if the answer fails).
// - GET/POST /api/conversations, GET/DELETE /api/conversations/{id}: saved conversations.
// - GET /api/watos/{symbol}: the WATOS grid card's data from the signals engine.
// - POST /external-api/prompt (docs/SPEC.md: multipart prompt + optional file): {response}.
// Chat and prompt calls share one per-user rate limit (Redis-backed when configured).
import type { UIMessageChunk } from 'ai';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  chatMessagesField,
  conversationDeletedResponse,
  conversationIdField,
  conversationListResponse,
  conversationResponse,
  CONVERSATION_HEADER,
  NO_RESPONSE_CONTENT,
  promptField,
  promptResponse,
  watosCard,
  watosQuery,
  type ChatTurn,
  type PromptResponse,
  type WatosCard,
} from '../../shared/schemas/chat.ts';
import { HttpError } from '../http/errors.ts';
import { multipartFailure } from '../http/multipart.ts';
import { perUserLimit } from '../http/rateLimit.ts';
import { requireUser } from '../http/requestUser.ts';
import {
  appendMessage,
  createConversation,
  deleteConversation,
  discardExchange,
  listConversations,
  loadConversation,
  saveQuestion,
} from './conversations.ts';
import { analyseAttachment, answerPrompt, type AiRouteOptions } from './service.ts';
import { plainTicker, resolveProduct } from './symbols.ts';
import { unknownSymbolMessage } from '../../shared/symbols.ts';
import { formatMegabytes, isToolError, type FileLimits } from './tools.ts';

interface MultipartInput {
  fields: Record<string, string>;
  file: { filename: string; data: Buffer } | null;
}

/** Reads a multipart body: text fields and at most one file, within the assistant's file limit. */
async function readMultipart(request: FastifyRequest, limits: FileLimits, expected: string): Promise<MultipartInput> {
  if (!request.isMultipart()) throw new HttpError(400, `Send the request as multipart/form-data with ${expected}.`);
  // No prototype: a field named '__proto__' is just a field.
  const fields = Object.create(null) as Record<string, string>;
  let file: MultipartInput['file'] = null;
  try {
    for await (const part of request.parts({
      limits: { fileSize: limits.maxBytes, files: 1, fields: 10, fieldSize: 1024 * 1024, parts: 12 },
    })) {
      if (part.type === 'file') {
        const upload = part;
        const data = await upload.toBuffer();
        if (upload.filename) file = { filename: upload.filename, data };
      } else {
        if (part.valueTruncated) throw new HttpError(400, `The ${part.fieldname} field is too long.`);
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    // Anything but a limit while reading the body is a malformed form (no boundary, a cut-off part).
    throw multipartFailure(error, {
      fileTooLarge: () =>
        new HttpError(
          413,
          `The file is larger than ${formatMegabytes(limits.maxBytes)}, the largest the assistant analyses.`,
        ),
      tooManyFiles: 'Attach one file at a time.',
      tooManyFields: 'The request has too many fields.',
      malformed: `The form could not be read: send it as multipart/form-data with ${expected}.`,
    });
  }
  return { fields, file };
}

function parseField<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new HttpError(400, parsed.error.issues.map((issue) => issue.message).join('; ') || `${name} is invalid`);
  return parsed.data;
}

function parseMessages(raw: string | undefined): ChatTurn[] {
  if (raw === undefined)
    throw new HttpError(400, 'messages is required: a JSON list of {role, content} ending with the user message.');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'messages must be a JSON list of {role, content}.');
  }
  return parseField(chatMessagesField, value, 'messages');
}

const HEARTBEAT_MS = 15_000;

const sse = (chunk: UIMessageChunk | '[DONE]') => `data: ${chunk === '[DONE]' ? chunk : JSON.stringify(chunk)}\n\n`;

export async function aiRoutes(app: FastifyInstance, options: AiRouteOptions): Promise<void> {
  const { db, ai, fileLimits } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  // One count per user for the chat and the prompt calls together.
  const limitPerUser = {
    rateLimit: perUserLimit({
      name: 'ai',
      max: options.rateLimit.max,
      windowMs: options.rateLimit.windowMs,
      message: (wait) => `Too many requests. Please wait ${wait} and try again.`,
    }),
  };

  const idParams = z.object({ id: conversationIdField });

  routes.get('/api/conversations', { schema: { response: { 200: conversationListResponse } } }, async (request) => ({
    conversations: await listConversations(db, requireUser(request).id),
  }));

  routes.post('/api/conversations', { schema: { response: { 200: conversationResponse } } }, async (request) => {
    const created = await createConversation(db, requireUser(request).id);
    return { conversation: { ...created, messages: [] } };
  });

  routes.get(
    '/api/conversations/:id',
    { schema: { params: idParams, response: { 200: conversationResponse } } },
    async (request) => ({ conversation: await loadConversation(db, requireUser(request).id, request.params.id) }),
  );

  routes.delete(
    '/api/conversations/:id',
    { schema: { params: idParams, response: { 200: conversationDeletedResponse } } },
    async (request) => {
      await deleteConversation(db, requireUser(request).id, request.params.id);
      return { success: true as const };
    },
  );

  routes.get(
    '/api/watos/:symbol',
    {
      schema: {
        params: z.object({
          symbol: z
            .string()
            .regex(/^[A-Za-z0-9:._/!^=-]{1,30}$/, 'symbol may only contain letters, digits and : . _ / ! ^ = -'),
        }),
        querystring: watosQuery,
        response: { 200: watosCard },
      },
    },
    async (request, reply): Promise<WatosCard> => {
      reply.header('Cache-Control', 'private, max-age=30');
      const symbol = plainTicker(request.params.symbol);
      if (!resolveProduct(request.params.symbol))
        return { available: false, symbol, message: unknownSymbolMessage(request.params.symbol) };
      try {
        return await ai.tools.watos(request.params.symbol, request.query.timeframe, 'grid');
      } catch (error) {
        if (isToolError(error)) return { available: false, symbol, message: error.message };
        throw error;
      }
    },
  );

  // The answer streams as server-sent events (hijacked reply): no JSON response schema.
  routes.post('/api/chat', { config: limitPerUser }, async (request, reply) => {
    const userId = requireUser(request).id;
    const { fields, file } = await readMultipart(request, fileLimits, 'a messages field and an optional file');
    const messages = parseMessages(fields.messages);
    const analysis = await analyseAttachment(file, fileLimits);
    const question = messages.at(-1)!.content;
    const { conversation, messageId: userMessageId } = await saveQuestion(db, userId, fields.conversation_id, {
      content: question,
      attachmentName: file?.filename ?? null,
    });

    const abort = new AbortController();
    reply.hijack();
    const raw = reply.raw;
    raw.on('close', () => {
      if (!raw.writableFinished) abort.abort();
    });
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'x-vercel-ai-ui-message-stream': 'v1',
      [CONVERSATION_HEADER]: conversation.id,
    });

    // An LLM's tool round trips can leave the stream quiet for a while: proxies must not drop it.
    const heartbeat = setInterval(() => {
      if (!raw.writableEnded) raw.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    let text = '';
    let failed = false;
    try {
      for await (const chunk of ai.assistant.respond({ messages, file: analysis, userId, signal: abort.signal })) {
        if (chunk.type === 'text-delta') text += chunk.delta;
        if (chunk.type === 'error' || chunk.type === 'abort') failed = true;
        if (chunk.type === 'finish' && text.trim() === '' && !failed) {
          // A model that stopped without a word still gets docs/SPEC.md's fallback text.
          text = NO_RESPONSE_CONTENT;
          raw.write(
            sse({ type: 'text-start', id: 'fallback' }) +
              sse({ type: 'text-delta', id: 'fallback', delta: text }) +
              sse({ type: 'text-end', id: 'fallback' }),
          );
        }
        if (!abort.signal.aborted) raw.write(sse(chunk));
      }
    } catch (error) {
      failed = true;
      request.log.error({ err: error }, 'assistant stream failed');
      if (!abort.signal.aborted)
        raw.write(sse({ type: 'error', errorText: 'The assistant failed to answer. Please try again.' }));
    } finally {
      clearInterval(heartbeat);
    }
    try {
      if (failed || abort.signal.aborted) {
        // The trader keeps the message in the input box and sends it again: drop it here.
        await discardExchange(db, { userId, conversation, userMessageId });
      } else {
        await appendMessage(db, conversation.id, { role: 'assistant', content: text });
      }
    } catch (error) {
      request.log.error({ err: error }, 'saving the conversation failed');
    }
    if (!raw.writableEnded) raw.end(sse('[DONE]'));
  });

  routes.post(
    '/external-api/prompt',
    { config: limitPerUser, schema: { response: { 200: promptResponse } } },
    async (request, reply): Promise<PromptResponse> => {
      const userId = requireUser(request).id;
      const { fields, file } = await readMultipart(request, fileLimits, 'a prompt field and an optional file');
      const prompt = parseField(promptField, fields.prompt, 'prompt');
      const analysis = await analyseAttachment(file, fileLimits);
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      return answerPrompt(
        { db, ai },
        { userId, prompt, file, analysis, conversationId: fields.conversation_id, signal: abort.signal },
      );
    },
  );
}
