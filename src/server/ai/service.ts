// The assistant's public surface: building it from the app's services (the LLM when
// LLM_BASE_URL is set, the built-in analyst otherwise, both over the same tools), the
// options its routes take, and the steps of an exchange that are not HTTP: analysing an
// attached file and answering a prompt. Failures are domain errors (errors/domain.ts), which
// the HTTP layer turns into answers. The composition root (app.ts) calls this module; it
// imports nothing of the app.
import type { FastifyBaseLogger } from 'fastify';
import { NO_RESPONSE_CONTENT, type PromptResponse } from '../../shared/schemas/chat.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { MarketAnalysis } from '../analysis/service.ts';
import { DomainError, invalid } from '../errors/domain.ts';
import { StoredObjectMissingError, type FileStorage } from '../files/service.ts';
import { readCapped } from '../http/cappedRead.ts';
import { collectAnswer, type Assistant } from './assistant.ts';
import { createBuiltinAnalyst } from './builtinAnalyst.ts';
import { appendMessage, saveQuestion } from './conversations.ts';
import type { FileAnalysis } from '../files/service.ts';
import { createLlmAssistant } from './llm.ts';
import {
  analyseUpload,
  createAssistantTools,
  formatMegabytes,
  ToolError,
  type AssistantTools,
  type AssistantToolsOptions,
  type FileLimits,
  type StoredFileReader,
} from './tools.ts';

interface AiServices {
  tools: AssistantTools;
  assistant: Assistant;
}

/** The LLM when LLM_BASE_URL is set, the built-in analyst otherwise. */
function createAiServices(options: {
  config: Config;
  /** Market analysis (analysis/service.ts): quotes, candle summaries and WATOS cards. */
  analysis: AssistantToolsOptions['analysis'];
  db: Database;
  log?: FastifyBaseLogger;
  readStoredFile?: StoredFileReader;
  /** The track record: records every WATOS statement and cites its record. */
  forecasts?: AssistantToolsOptions['forecasts'];
  studies?: AssistantToolsOptions['studies'];
  runScan?: AssistantToolsOptions['runScan'];
}): AiServices {
  const { config } = options;
  const tools = createAssistantTools({
    analysis: options.analysis,
    db: options.db,
    fileLimits: fileLimitsOf(config),
    readStoredFile: options.readStoredFile,
    forecasts: options.forecasts,
    studies: options.studies,
    runScan: options.runScan,
  });
  const assistant =
    config.LLM_BASE_URL && config.LLM_MODEL
      ? createLlmAssistant({
          baseURL: config.LLM_BASE_URL,
          apiKey: config.LLM_API_KEY,
          model: config.LLM_MODEL,
          tools,
          log: options.log,
        })
      : createBuiltinAnalyst({ tools });
  return { tools, assistant };
}

function fileLimitsOf(config: Config): FileLimits {
  return {
    maxBytes: config.AI_FILE_MAX_MB * 1024 * 1024,
    maxRows: config.AI_FILE_MAX_ROWS,
    readTimeoutMs: config.SHEET_READ_TIMEOUT_MS,
  };
}

/** What the assistant is built from: the app's services it uses. */
export interface AiDependencies {
  config: Config;
  db: Database;
  /** Market analysis, shared with the rules and the track record (built before the assistant). */
  analysis: MarketAnalysis;
  /** My Stuff's file bytes, which the assistant's file tool reads. */
  fileStorage: Pick<FileStorage, 'get'>;
  log?: FastifyBaseLogger;
  /** The track record (forecasts/service.ts): every WATOS statement the assistant makes is recorded. */
  forecasts?: AssistantToolsOptions['forecasts'];
  /** Setup studies (studies/service.ts): "how did MES do after RSI fell below 30 on 15m?". */
  studies?: AssistantToolsOptions['studies'];
  /** The scanner's run (scans feature), given by the composition root: the assistant's scan tool. */
  runScan?: AssistantToolsOptions['runScan'];
}

/** The options of the assistant's routes (ai/routes.ts). */
export interface AiRouteOptions {
  db: Database;
  ai: AiServices;
  fileLimits: FileLimits;
  /** Chat and prompt calls per user and window (counted by the app's rate-limit plugin). */
  rateLimit: { max: number; windowMs: number };
}

/** A stored file's bytes, read up to the assistant's file limit (a ToolError beyond it). */
function storedFileReader(fileStorage: Pick<FileStorage, 'get'>, fileLimits: FileLimits): StoredFileReader {
  return async ({ storageKey }) => {
    let stream;
    try {
      stream = await fileStorage.get(storageKey);
    } catch (error) {
      if (error instanceof StoredObjectMissingError)
        throw new ToolError('The file is listed but its content is missing from storage.');
      throw error;
    }
    return readCapped(stream, {
      maxBytes: fileLimits.maxBytes,
      tooLarge: () =>
        new ToolError(
          `The file is larger than ${formatMegabytes(fileLimits.maxBytes)}, the largest the assistant analyses.`,
        ),
    });
  };
}

/** Everything the assistant's routes need (LLM or built-in analyst by config). */
export function createAiRouteOptions(deps: AiDependencies): AiRouteOptions {
  const { config } = deps;
  const fileLimits = fileLimitsOf(config);
  return {
    db: deps.db,
    ai: createAiServices({
      config,
      analysis: deps.analysis,
      db: deps.db,
      log: deps.log,
      readStoredFile: storedFileReader(deps.fileStorage, fileLimits),
      forecasts: deps.forecasts,
      studies: deps.studies,
      runScan: deps.runScan,
    }),
    fileLimits,
    rateLimit: { max: config.AI_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
  };
}

export interface Attachment {
  filename: string;
  data: Buffer;
}

/** The attached file read and analysed (Invalid with the reason when it cannot be). */
export async function analyseAttachment(file: Attachment | null, limits: FileLimits): Promise<FileAnalysis | null> {
  if (!file) return null;
  try {
    return await analyseUpload(file.filename, file.data, limits);
  } catch (error) {
    if (error instanceof ToolError) throw invalid(error.message);
    throw error;
  }
}

/**
 * docs/SPEC.md's prompt call: the assistant's whole answer to one prompt (and file), saved like a
 * chat exchange so the Prompt Catalog's messages come back on reload too. An assistant that
 * fails is an 'upstream' domain error (502) with its message; nothing is saved then.
 */
export async function answerPrompt(
  options: Pick<AiRouteOptions, 'db' | 'ai'>,
  request: {
    userId: string;
    prompt: string;
    file: Attachment | null;
    analysis: FileAnalysis | null;
    /** The form's conversation_id, unchecked. */
    conversationId: string | undefined;
    signal: AbortSignal;
  },
): Promise<PromptResponse> {
  const { db, ai } = options;
  const { userId, prompt, file } = request;
  const { text, error } = await collectAnswer(
    ai.assistant.respond({
      messages: [{ role: 'user', content: prompt }],
      file: request.analysis,
      userId,
      signal: request.signal,
    }),
  );
  if (error) throw new DomainError('upstream', error);
  const response = text.trim() === '' ? NO_RESPONSE_CONTENT : text;

  const question = file ? `${prompt} [${file.filename}]` : prompt;
  const { conversation } = await saveQuestion(db, userId, request.conversationId, {
    content: question,
    attachmentName: file?.filename ?? null,
  });
  await appendMessage(db, conversation.id, { role: 'assistant', content: response });
  return { response, conversation_id: conversation.id };
}
