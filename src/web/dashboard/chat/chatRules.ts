// The chat panel's rules from docs/SPEC.md, as pure functions: message ids (timestamp strings),
// the file name appended in brackets, which ticker a WATOS grid shows, and what history goes
// with a request.
import { extractTicker } from '../../../shared/chatSignals.ts';
import {
  CHAT_MAX_HISTORY,
  CHAT_WELCOME_CONTENT,
  PROMPT_MAX_CHARS,
  WATOS_TIMEFRAMES,
  type WatosTimeframe,
} from '../../../shared/schemas/chatTexts.ts';
import type { ChatMessage } from '../../../shared/schemas/chat.ts';

export interface DisplayMessage extends ChatMessage {
  /** The assistant message still arriving. */
  streaming?: boolean;
  /** A user message whose send failed (its text is back in the input box). */
  failed?: boolean;
  /** What the assistant is doing before its first words (an LLM calling a tool). */
  activity?: string;
}

const TOOL_ACTIVITY: Record<string, string> = {
  getQuote: 'Getting the price',
  getCandleSummary: 'Reading the candles',
  getWatosOdds: 'Measuring the WATOS odds',
  getAlerts: 'Reading the alert log',
  getWatchlist: 'Reading your watchlists',
  listMyFiles: 'Listing your files',
  readStoredFile: 'Reading your file',
  readAttachedFile: 'Reading the attached file',
};

/** The label shown beside the typing dots while a tool runs. */
export function toolActivity(toolName: string): string {
  return `${TOOL_ACTIVITY[toolName] ?? 'Looking up data'}...`;
}

export const WELCOME_ID = 'welcome';

export const welcomeMessage = (): DisplayMessage => ({
  id: WELCOME_ID,
  role: 'assistant',
  content: CHAT_WELCOME_CONTENT,
});

let lastId = 0;

/** docs/SPEC.md: a message id is a timestamp string; two in the same millisecond still differ. */
export function nextMessageId(at = Date.now()): string {
  lastId = Math.max(at, lastId + 1);
  return String(lastId);
}

/** docs/SPEC.md: a user message with an attached file has the file name appended in brackets. */
export function withAttachmentName(text: string, fileName: string | null | undefined): string {
  return fileName ? `${text} [${fileName}]` : text;
}

/**
 * The ticker of the WATOS grid under an assistant message: docs/SPEC.md's first run of 2 to 5
 * capital letters, or BTC. The product's own name "WATOS" is not a ticker, so it is skipped
 * (otherwise the welcome message, which names no ticker before its examples, would ask for a
 * grid of "WATOS").
 */
export function gridSymbolOf(content: string): string {
  return extractTicker(content.replace(/WATOS/g, ' '));
}

/**
 * The bar size of the grid under an answer: the one its WATOS heading names ("(WATOS, 4h)"), else
 * the first analysis timeframe the answer mentions ("on the 4h chart"), else 1h.
 */
export function gridTimeframeOf(content: string): WatosTimeframe {
  const heading = /\(WATOS, ([0-9]{1,2}[mh]|D)\)/.exec(content)?.[1];
  if (heading && (WATOS_TIMEFRAMES as readonly string[]).includes(heading)) return heading as WatosTimeframe;
  const minutesOrHours = WATOS_TIMEFRAMES.filter((timeframe) => timeframe !== 'D');
  const mentioned = new RegExp(`(?<![A-Za-z0-9])(${minutesOrHours.join('|')})(?![A-Za-z0-9])`).exec(content)?.[1];
  return (mentioned as WatosTimeframe | undefined) ?? '1h';
}

/** The conversation as the request sends it: no welcome, no failed or unfinished messages, bounded. */
export function historyForRequest(messages: DisplayMessage[]): Array<Pick<ChatMessage, 'role' | 'content'>> {
  return (
    messages
      .filter(
        (message) =>
          message.id !== WELCOME_ID && !message.failed && !message.streaming && message.content.trim() !== '',
      )
      .slice(-CHAT_MAX_HISTORY)
      // A long earlier answer is shortened to the request's limit; the trader's own text never is.
      .map((message) => ({
        role: message.role,
        content:
          message.role === 'assistant' && message.content.length > PROMPT_MAX_CHARS
            ? `${message.content.slice(0, PROMPT_MAX_CHARS - 1)}…`
            : message.content,
      }))
  );
}
