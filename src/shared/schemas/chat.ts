// The AI assistant's texts, limits and wire shapes, shared by the server and the browser:
// docs/SPEC.md's chat panel, input bar and Prompt Catalog texts (copied exactly), the chat send
// fields, saved conversations, and the WATOS grid card's data.
import { z } from 'zod';
import { groupDigits } from '../format.ts';
import { ASSET_CLASSES } from '../symbolTable.ts';
import { marketSource } from './market.ts';
import { CHAT_MAX_HISTORY, PROMPT_MAX_CHARS, WATOS_TIMEFRAMES } from './chatTexts.ts';

// The zod-free texts and limits (the browser's first paint uses them without zod).
export * from './chatTexts.ts';

export type ChatRole = 'user' | 'assistant';

/** docs/SPEC.md: a chat message (id is a timestamp string). */
export interface ChatMessage {
  id: string;
  role: ChatRole;
  content: string;
}

const tooLong = `A message may be at most ${groupDigits(PROMPT_MAX_CHARS)} characters`;

export const chatTurn = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string().max(PROMPT_MAX_CHARS, tooLong),
});
export type ChatTurn = z.infer<typeof chatTurn>;

/** The `messages` field of POST /api/chat: a JSON list ending with the user's new message. */
export const chatMessagesField = z
  .array(chatTurn)
  .min(1, 'messages must hold at least the new user message')
  .max(CHAT_MAX_HISTORY * 2, `messages may hold at most ${CHAT_MAX_HISTORY * 2} entries`)
  .refine((messages) => messages.at(-1)?.role === 'user', 'The last message must be the user message')
  .refine((messages) => (messages.at(-1)?.content.trim() ?? '') !== '', 'The message is empty');

/** The `prompt` field of POST /external-api/prompt. */
export const promptField = z
  .string()
  .max(PROMPT_MAX_CHARS, `The prompt may be at most ${groupDigits(PROMPT_MAX_CHARS)} characters`)
  .refine((prompt) => prompt.trim() !== '', 'The prompt is empty');

export const conversationIdField = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, 'conversation_id is not a valid conversation id');

export const chatRole = z.enum(['user', 'assistant']) satisfies z.ZodType<ChatRole>;

export const savedMessage = z.object({
  id: z.number(),
  role: chatRole,
  content: z.string(),
  attachment_name: z.string().nullable(),
  created_at: z.string(),
});
export type SavedMessage = z.infer<typeof savedMessage>;

export const conversationSummary = z.object({
  id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ConversationSummary = z.infer<typeof conversationSummary>;

export const conversationDetail = conversationSummary.extend({ messages: z.array(savedMessage) });
export type ConversationDetail = z.infer<typeof conversationDetail>;

/** GET /api/conversations: the trader's saved conversations, latest first. */
export const conversationListResponse = z.object({ conversations: z.array(conversationSummary) });
/** POST /api/conversations and GET /api/conversations/{id}: one conversation with its messages. */
export const conversationResponse = z.object({ conversation: conversationDetail });
/** DELETE /api/conversations/{id}. */
export const conversationDeletedResponse = z.object({ success: z.literal(true) });

/** POST /external-api/prompt: the answer, and the conversation it was saved in. */
export const promptResponse = z.object({ response: z.string(), conversation_id: z.string().nullable() });
export type PromptResponse = z.infer<typeof promptResponse>;

const interval = z.tuple([z.number(), z.number()]).nullable();

export const watosStrengthName = z.enum(['low', 'medium', 'high']);
export type WatosStrengthName = z.infer<typeof watosStrengthName>;

export const watosCardSignal = z.object({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  direction: z.enum(['bullish', 'bearish', 'neutral']),
  strength: watosStrengthName,
  description: z.string(),
  /**
   * The calibrated odds of a higher close after the horizon (src/signals/watosOdds.ts): the stated
   * probability, the measured share of past bars in the same state that closed higher (`raw`),
   * the sample size, the 95% interval of the stated probability, and `noEdge` when that interval
   * includes the base rate (the probability is then the base rate). Below 30 samples the numbers
   * are null and `reason` says "not enough history".
   */
  odds: z
    .object({
      probability: z.number().nullable(),
      raw: z.number().nullable(),
      samples: z.number(),
      /** Samples divided by the overlap of their horizons: the independent outcomes they are worth. */
      effectiveSamples: z.number(),
      interval,
      noEdge: z.boolean().nullable(),
      reason: z.string().nullable(),
    })
    .nullable(),
});
export type WatosCardSignal = z.infer<typeof watosCardSignal>;

/** GET /api/watos/{symbol}?timeframe=: the grid's bar size, 1h when not given. */
export const watosQuery = z.object({
  timeframe: z
    .enum(WATOS_TIMEFRAMES, { error: `timeframe must be one of ${WATOS_TIMEFRAMES.join(', ')}` })
    .default('1h'),
});

/** GET /api/watos/{symbol}: the grid card's data, or why there is none. */
export const watosCard = z.discriminatedUnion('available', [
  z.object({
    available: z.literal(true),
    symbol: z.string(),
    productId: z.string(),
    assetClass: z.enum(ASSET_CLASSES),
    source: marketSource,
    /** Yahoo Finance figures: delayed where the exchange delays them (labelled "Delayed"). */
    delayed: z.boolean(),
    timeframe: z.string(),
    horizonBars: z.number(),
    bars: z.number(),
    lastBarTime: z.string(),
    lastClose: z.number(),
    /** The stated base rate (shrunk toward 1/2 by its evidence), the measured share `raw`, samples and 95% interval. */
    baseRate: z.object({
      probability: z.number().nullable(),
      raw: z.number().nullable(),
      samples: z.number(),
      effectiveSamples: z.number(),
      interval,
    }),
    signals: z.array(watosCardSignal),
  }),
  z.object({ available: z.literal(false), symbol: z.string(), message: z.string() }),
]);
export type WatosCard = z.infer<typeof watosCard>;
