// The assistant's calls from the browser: chat send (POST /api/chat, multipart, streamed),
// saved conversations, the WATOS grid card, and docs/SPEC.md's prompt call
// (POST /external-api/prompt, multipart prompt + optional file). JSON answers are parsed with
// the shared schemas the server serialises them with.
import { ApiError, apiFetch, schemaOnDemand } from '../../api/http.ts';
import type {
  ChatMessage,
  ConversationDetail,
  ConversationSummary,
  PromptResponse,
  WatosCard,
} from '../../../shared/schemas/chat.ts';
import { CONVERSATION_HEADER, type WatosTimeframe } from '../../../shared/schemas/chatTexts.ts';
import { readUiMessageStream, type StreamChunk } from './uiStream.ts';

// The answers' schemas, imported with the first answer (the saved conversations are asked for
// when the dashboard opens).
const chatSchemas = () => import('../../../shared/schemas/chat.ts');
const conversationListResponse = schemaOnDemand(async () => (await chatSchemas()).conversationListResponse);
const conversationResponse = schemaOnDemand(async () => (await chatSchemas()).conversationResponse);
const conversationDeletedResponse = schemaOnDemand(async () => (await chatSchemas()).conversationDeletedResponse);
const promptResponse = schemaOnDemand(async () => (await chatSchemas()).promptResponse);
const watosCard = schemaOnDemand(async () => (await chatSchemas()).watosCard);

export class ChatSendError extends Error {}

export async function fetchConversations(): Promise<ConversationSummary[]> {
  return (await apiFetch('/api/conversations', conversationListResponse)).conversations;
}

export async function fetchConversation(id: string): Promise<ConversationDetail> {
  return (await apiFetch(`/api/conversations/${encodeURIComponent(id)}`, conversationResponse)).conversation;
}

export async function removeConversation(id: string): Promise<void> {
  await apiFetch(`/api/conversations/${encodeURIComponent(id)}`, conversationDeletedResponse, { method: 'DELETE' });
}

export async function fetchWatosCard(symbol: string, timeframe: WatosTimeframe = '1h'): Promise<WatosCard> {
  return apiFetch(
    `/api/watos/${encodeURIComponent(symbol)}?${new URLSearchParams({ timeframe }).toString()}`,
    watosCard,
  );
}

async function errorText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: the status says enough.
  }
  return `API error: ${response.status}`;
}

export interface ChatStream {
  conversationId: string | null;
  chunks: AsyncGenerator<StreamChunk>;
}

/**
 * Sends the message list (and file) and returns the answer's chunks as they stream in. A
 * streaming fetch, not apiFetch: the answer is a server-sent event stream, not JSON.
 */
export async function sendChat(input: {
  messages: Array<Pick<ChatMessage, 'role' | 'content'>>;
  conversationId: string | null;
  file: File | null;
  signal: AbortSignal;
}): Promise<ChatStream> {
  const form = new FormData();
  form.append('messages', JSON.stringify(input.messages));
  if (input.conversationId) form.append('conversation_id', input.conversationId);
  if (input.file) form.append('file', input.file, input.file.name);
  const response = await fetch('/api/chat', {
    method: 'POST',
    body: form,
    credentials: 'same-origin',
    signal: input.signal,
  });
  if (!response.ok || !response.body) throw new ChatSendError(await errorText(response));
  return { conversationId: response.headers.get(CONVERSATION_HEADER), chunks: readUiMessageStream(response.body) };
}

class PromptApiError extends Error {
  constructor(readonly status: number) {
    super(`API error: ${status}`);
  }
}

/**
 * docs/SPEC.md: POST {api}/external-api/prompt with the prompt text and the optional file. A
 * refusal is a PromptApiError ('API error: {status}', the text docs/SPEC.md logs).
 */
export async function sendPrompt(input: {
  prompt: string;
  conversationId: string | null;
  file: File | null;
}): Promise<PromptResponse> {
  const form = new FormData();
  form.append('prompt', input.prompt);
  if (input.conversationId) form.append('conversation_id', input.conversationId);
  if (input.file) form.append('file', input.file, input.file.name);
  try {
    return await apiFetch('/external-api/prompt', promptResponse, { method: 'POST', body: form });
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400) throw new PromptApiError(error.status);
    throw error;
  }
}
