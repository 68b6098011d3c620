// The one assistant interface (DESIGN.md section 1) with two providers behind it: the LLM
// (any OpenAI-compatible endpoint, llm.ts) and the built-in analyst (builtinAnalyst.ts, the
// default, no network). Both answer with an AI SDK UI message stream (start, text deltas,
// finish; an 'error' chunk when they fail), which the chat route forwards to the browser as
// server-sent events and the prompt route collects into one text.
import type { UIMessageChunk } from 'ai';
import type { ChatTurn } from '../../shared/schemas/chat.ts';
import type { FileAnalysis } from '../files/service.ts';

export interface AssistantRequest {
  /** The conversation so far; the last entry is the trader's new message. */
  messages: ChatTurn[];
  /** The file attached to the new message, already read and analysed. */
  file: FileAnalysis | null;
  userId: string;
  signal: AbortSignal;
}

export interface Assistant {
  readonly kind: 'builtin' | 'llm';
  /** A short description for logs and the start-up banner. */
  readonly description: string;
  respond(request: AssistantRequest): AsyncIterable<UIMessageChunk>;
}

/** The answer's text and, when the stream reported one, its error. */
export async function collectAnswer(
  stream: AsyncIterable<UIMessageChunk>,
): Promise<{ text: string; error: string | null }> {
  let text = '';
  let error: string | null = null;
  for await (const chunk of stream) {
    if (chunk.type === 'text-delta') text += chunk.delta;
    else if (chunk.type === 'error') error = chunk.errorText;
  }
  return { text, error };
}

/** Splits Markdown into small pieces (a few words, whole lines kept whole when short) for streaming. */
export function streamPieces(markdown: string, wordsPerPiece = 4): string[] {
  const pieces: string[] = [];
  for (const line of markdown.split(/(?<=\n)/)) {
    // Table rows and short lines go whole: a half-written table row renders as noise.
    if (line.startsWith('|') || line.length <= 40) {
      pieces.push(line);
      continue;
    }
    const words = line.split(/(?<= )/);
    for (let index = 0; index < words.length; index += wordsPerPiece)
      pieces.push(words.slice(index, index + wordsPerPiece).join(''));
  }
  return pieces.filter((piece) => piece !== '');
}
