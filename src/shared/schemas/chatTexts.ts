// The assistant's texts and limits without zod: docs/SPEC.md's chat panel, input bar and Prompt
// Catalog texts (copied exactly), the request limits, the conversation header and the WATOS
// timeframes. The dashboard's first paint uses them (the assistant's state is mounted with the
// page), while the schemas that check the answers (chat.ts, which re-exports these) load with the
// first answer.

/** docs/SPEC.md chat panel: the assistant's welcome, followed by the grid line. */
export const CHAT_WELCOME_TEXT =
  'Hello! How can I help you today? I can provide WATOS (What Are The Odds?) for any symbol. Just ask about BTC, ETH, AAPL, or any other ticker';
export const CHAT_WELCOME_GRID_LINE = 'WATOS Grid Trading Signals';
export const CHAT_WELCOME_CONTENT = `${CHAT_WELCOME_TEXT}\n\n**${CHAT_WELCOME_GRID_LINE}**`;

/** docs/SPEC.md input bar. */
export const CHAT_INPUT_PLACEHOLDER =
  "Ask about a symbol, request probability forecasts, or summarize today's alerts...";
export const CHAT_ATTACH_TOOLTIP = 'Attach option chain file';
export const CHAT_ATTACH_ACCEPT = '.csv,.xlsx,.xls';

/** docs/SPEC.md error catalogue and Prompt Catalog texts. */
export const CHAT_SEND_ERROR_LOG = 'Error sending chat message';
export const NO_RESPONSE_CONTENT = 'No response content';
export const PROMPT_SELECT_MESSAGE = 'Please select a category and prompt';
export const PROMPT_ERROR_MESSAGE = 'An error occurred while processing the prompt';

/** docs/SPEC.md: the Prompt Catalog category whose prompts work on an attached option chain (no timeframe or symbol). */
export const OPTIONS_CATEGORY = 'Options & Derivatives Analysis';

/** Longest message or prompt accepted, in characters (beyond docs/SPEC.md: keeps requests bounded). */
export const PROMPT_MAX_CHARS = 8000;
/** Most messages of history sent with one chat request (older ones are dropped by the client). */
export const CHAT_MAX_HISTORY = 40;

/** Header of the chat stream response naming the conversation the exchange was saved in. */
export const CONVERSATION_HEADER = 'x-conversation-id';

/** The bar sizes the WATOS odds are measured on (the assistant's analysis timeframes). */
export const WATOS_TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '8h', '12h', 'D'] as const;
export type WatosTimeframe = (typeof WATOS_TIMEFRAMES)[number];
