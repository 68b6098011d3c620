// Reads the chat answer: the AI SDK UI message stream protocol (server-sent events whose data
// is one JSON chunk each, ending with [DONE]) from a fetch body, as chunks. Only the chunk
// kinds the chat panel uses are typed; anything else passes through as 'other'.

export type StreamChunk =
  | { type: 'text-delta'; delta: string }
  | { type: 'error'; errorText: string }
  | { type: 'finish' }
  | { type: 'abort' }
  | { type: 'tool-input-available'; toolName: string }
  | { type: 'other'; raw: string };

/** A chunk field as text: strings and numbers as they are, anything else as the fallback. */
function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
}

function toChunk(data: string): StreamChunk | null {
  if (data === '[DONE]') return null;
  let parsed: { type?: unknown; delta?: unknown; errorText?: unknown; toolName?: unknown };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return { type: 'other', raw: data };
  }
  switch (parsed.type) {
    case 'text-delta':
      return { type: 'text-delta', delta: textOf(parsed.delta, '') };
    case 'error':
      return { type: 'error', errorText: textOf(parsed.errorText, 'The assistant failed to answer.') };
    case 'finish':
      return { type: 'finish' };
    case 'abort':
      return { type: 'abort' };
    case 'tool-input-available':
      return { type: 'tool-input-available', toolName: textOf(parsed.toolName, '') };
    default:
      return { type: 'other', raw: data };
  }
}

/** The chunks of one SSE body, in order, as they arrive. */
export async function* readUiMessageStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      // Events end with a blank line; a partial event waits for the next read.
      let boundary = buffer.search(/\r?\n\r?\n/);
      while (boundary >= 0) {
        const event = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data) {
          const chunk = toChunk(data);
          if (chunk) yield chunk;
        }
        boundary = buffer.search(/\r?\n\r?\n/);
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
