// The LLM assistant: any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM,
// LM Studio...) through the Vercel AI SDK, streaming, with tools over our own data (tools.ts)
// and a system prompt that makes it a careful trading analyst: every number from a tool, demo
// data labelled, no advice. Endpoint failures become one clear error chunk for the chat.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, RetryError, stepCountIs, streamText, tool, type ToolSet, type UIMessageChunk } from 'ai';
import { z } from 'zod';
import { ALERT_LOG_MAX_CAP, ALERT_TYPES } from '../../shared/constants.ts';
import { searchSymbols, SYMBOL_TABLE, toTradingView } from '../../shared/symbols.ts';
import type { Assistant, AssistantRequest } from './assistant.ts';
import type { FileAnalysis } from '../files/service.ts';
import { ANALYSIS_TIMEFRAMES } from '../analysis/service.ts';
import { isToolError, type AssistantTools } from './tools.ts';
import { studyLlmTool } from './studyTool.ts';
import { scanTool } from './scanTool.ts';

export interface LlmOptions {
  baseURL: string;
  apiKey?: string;
  model: string;
  tools: AssistantTools;
  /** Most model calls one answer may take (each tool round trip is one). */
  maxSteps?: number;
  /** Replaces fetch (tests). */
  fetch?: typeof globalThis.fetch;
  log?: { warn(object: object, message: string): void };
  now?: () => number;
}

function systemPrompt(now: Date, file: FileAnalysis | null): string {
  const lines = [
    'You are the WATOS trading analyst inside a subscription dashboard for traders (crypto, stocks, futures). You are careful and precise.',
    '',
    'Rules:',
    '- Get every number from the tools. Quote the figures exactly as the tools return them, with units and UTC times. Never invent or estimate a price, change, level, probability or statistic. If a tool has no data or fails, say so plainly (for example "no market data for AAPL").',
    `- Market data covers the ${SYMBOL_TABLE.length} symbols of this app's table: 28 Coinbase crypto products (real time), US stocks (S&P 500 and Nasdaq-100 leaders), ETFs, indices (SPX, NDX, DJI, RUT, VIX) and CME futures and micro futures (ES, NQ, MES, MNQ, MYM, M2K, MGC, MCL and more, continuous front month). Tools accept tickers (AAPL, MES, BTC), chart symbols (NASDAQ:AAPL, CME_MINI:MES1!) and names; use findSymbol when unsure. News, fundamentals and markets outside the table are not available here; say so when asked.`,
    '- When a tool result has "source": "demo", say clearly that the figures are demo data from a simulated feed, not a live exchange. When it has "delayed": true or "source": "yahoo", say the figures are delayed (Yahoo Finance, as the exchange delays them).',
    "- Index and futures prices are in index points (or the contract's quote unit), not dollars; stock, ETF and crypto prices are in US dollars.",
    '- WATOS odds are calibrated from history: `raw` is the measured share of past bars in the same signal state whose close was higher after the horizon, `probability` that share shrunk toward the base rate by its evidence, with the sample size and a 95% interval. When `noEdge` is true, say "no measurable edge". Below 30 samples there is no number ("not enough history"). Always give the sample size with a probability; present them as measurements, never as predictions.',
    '- Start the answer with the ticker you discuss (for example "ETH-USD: ..."): the dashboard shows the WATOS grid of the first ticker in your answer. Say "WATOS" when you discuss the WATOS signals.',
    '- Answer in concise Markdown: short headings, bullet points or small tables. No HTML.',
    '- End every answer that discusses markets or trades with: "Nothing here is financial advice."',
    '',
    `Current time: ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  ];
  if (file) {
    lines.push(
      `The trader attached the file "${file.name}". Call readAttachedFile for its tables, column statistics and option-chain analytics (put/call ratios, max pain, IV smile).`,
    );
  }
  return lines.join('\n');
}

/** What the trader reads when the endpoint fails: what happened and what to do, no internals. */
function describeLlmError(error: unknown, baseURL: string, model: string): string {
  const host = (() => {
    try {
      return new URL(baseURL).host;
    } catch {
      return baseURL;
    }
  })();
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause)) {
    if (cause.statusCode === 401 || cause.statusCode === 403)
      return `The AI service at ${host} refused the API key (LLM_API_KEY). Ask the operator to check it.`;
    if (cause.statusCode === 404)
      return `The AI service at ${host} does not know the model '${model}' (LLM_MODEL). Ask the operator to check it.`;
    if (cause.statusCode === 429)
      return `The AI service at ${host} is rate-limiting requests. Please wait a moment and try again.`;
    if (cause.statusCode !== undefined)
      return `The AI service at ${host} answered with an error (HTTP ${cause.statusCode}). Please try again later.`;
    return `The AI service at ${host} could not be reached. Please try again later; your message is kept.`;
  }
  return `The AI service at ${host} failed to answer. Please try again later; your message is kept.`;
}

/** Tool results for the model: data, or the plain error text it must pass on. */
async function safely<T>(run: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await run();
  } catch (error) {
    if (isToolError(error)) return { error: error.message };
    throw error;
  }
}

/** The file analysis without its longest lists, so one tool result stays a reasonable prompt size. */
function compactFile(file: FileAnalysis): FileAnalysis {
  return {
    name: file.name,
    tables: file.tables.slice(0, 5).map((table) => ({
      ...table,
      columns: table.columns.slice(0, 40),
      optionChain: table.optionChain && {
        ...table.optionChain,
        expiries: table.optionChain.expiries
          .slice(0, 6)
          .map((expiry) => ({ ...expiry, smile: expiry.smile.slice(0, 80) })),
      },
    })),
  };
}

const symbolInput = z
  .string()
  .min(1)
  .max(30)
  .describe('Ticker or chart symbol such as BTC, AAPL, SPY, MES, NASDAQ:AAPL or CME_MINI:MES1!');
const timeframeInput = z
  .enum(
    Object.keys(ANALYSIS_TIMEFRAMES) as [keyof typeof ANALYSIS_TIMEFRAMES, ...Array<keyof typeof ANALYSIS_TIMEFRAMES>],
  )
  .optional()
  .describe('Bar size; 1h when omitted');

function assistantTools(tools: AssistantTools, request: AssistantRequest, now: () => number): ToolSet {
  const set: ToolSet = {
    getQuote: tool({
      description:
        'Current spot, buy and sell price and spread of one market (crypto, stock, ETF, index or future), with its source, time and whether it is delayed.',
      inputSchema: z.object({ symbol: symbolInput }),
      execute: ({ symbol }) => safely(() => tools.quote(symbol)),
    }),
    getCandleSummary: tool({
      description:
        'Candle summary of one market: last close, 24h/7d/30d change, ranges, SMA 20/50/200 and trend, RSI(14), ATR(14), volume z-score, nearest support and resistance.',
      inputSchema: z.object({ symbol: symbolInput, timeframe: timeframeInput }),
      execute: ({ symbol, timeframe }) => safely(() => tools.candleSummary(symbol, timeframe)),
    }),
    getWatosOdds: tool({
      description:
        'The six WATOS signals (Volume Surge, Price Momentum, MA Crossover, RSI Divergence, Support Test, Volatility Expansion) at the last closed bar, with strength, description and the measured odds of a higher close after the horizon (probability, sample size, 95% interval), plus the base rate, and trackRecord: how such statements turned out (live resolved forecasts, or a backtest when none; say which, and say when it is demo data).',
      inputSchema: z.object({ symbol: symbolInput, timeframe: timeframeInput }),
      execute: ({ symbol, timeframe }) =>
        safely(async () => {
          const card = await tools.watos(symbol, timeframe, 'answer');
          // The track record of these signals (live, else a backtest), so the model can cite it.
          return { ...card, trackRecord: (await tools.trackRecord(card)).map((entry) => entry.text) };
        }),
    }),
    runSetupStudy: studyLlmTool((input) => safely(() => tools.study(input))),
    findSymbol: tool({
      description:
        'Search the symbol table by ticker, chart symbol or name (e.g. "micro gold", "apple", "nasdaq"): up to 8 matches with canonical id, ticker, name, asset class and chart symbol.',
      inputSchema: z.object({ query: z.string().min(1).max(64) }),
      execute: ({ query }) =>
        searchSymbols(query, 8).map((symbol) => ({
          id: symbol.id,
          ticker: symbol.ticker,
          name: symbol.name,
          assetClass: symbol.assetClass,
          chartSymbol: toTradingView(symbol),
        })),
    }),
    getAlerts: tool({
      description:
        'Market alerts from the alert log with counts by generator, symbol and bullish/bearish/caution, plus the latest ones.',
      inputSchema: z.object({
        symbol: z.string().max(30).optional().describe('Only this ticker, e.g. BTC'),
        alertType: z.enum(ALERT_TYPES).optional(),
        hours: z.number().min(1).max(720).optional().describe('Window length in hours back from now; 24 when omitted'),
        today: z.boolean().optional().describe('Since 00:00 UTC today instead of a number of hours'),
        maxCount: z
          .number()
          .int()
          .min(1)
          .max(ALERT_LOG_MAX_CAP)
          .optional()
          .describe('How many of the latest alerts to list (10 when omitted)'),
      }),
      execute: ({ symbol, alertType, hours, today, maxCount }) =>
        safely(() => {
          const since = today
            ? new Date(Math.floor(now() / 86_400_000) * 86_400_000)
            : new Date(now() - (hours ?? 24) * 3_600_000);
          return tools.alerts({ symbol, alertType, since, latest: maxCount ?? 10 });
        }),
    }),
    getWatchlist: tool({
      description:
        "The trader's saved watchlists (alerts panel and chart), split into symbols with and without market data here.",
      inputSchema: z.object({}),
      execute: () => safely(() => tools.watchlist(request.userId)),
    }),
    listMyFiles: tool({
      description: "The trader's own and the public spreadsheet files in My Stuff (id, name, size, upload date).",
      inputSchema: z.object({}),
      execute: () => safely(() => tools.storedFiles(request.userId)),
    }),
    readStoredFile: tool({
      description:
        'Reads one file from My Stuff by id or file name: tables, column types and statistics, option-chain analytics.',
      inputSchema: z.object({ file: z.string().min(1).max(300).describe('File id or exact file name') }),
      execute: async ({ file }) => safely(async () => compactFile(await tools.storedFile(request.userId, file))),
    }),
  };
  if (tools.runScan) set.runScan = scanTool(tools.runScan);
  if (request.file) {
    const file = request.file;
    set.readAttachedFile = tool({
      description:
        'The file attached to the current message: tables, column types and statistics, and option-chain analytics (put/call by open interest and volume, max pain, IV smile).',
      inputSchema: z.object({}),
      execute: async () => compactFile(file),
    });
  }
  return set;
}

export function createLlmAssistant(options: LlmOptions): Assistant {
  const provider = createOpenAICompatible({
    name: 'llm',
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    fetch: options.fetch,
  });
  const now = options.now ?? Date.now;
  return {
    kind: 'llm',
    description: `LLM '${options.model}' at ${options.baseURL}`,
    async *respond(request): AsyncGenerator<UIMessageChunk> {
      const result = streamText({
        model: provider.chatModel(options.model),
        system: systemPrompt(new Date(now()), request.file),
        messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
        tools: assistantTools(options.tools, request, now),
        stopWhen: stepCountIs(options.maxSteps ?? 6),
        abortSignal: request.signal,
        maxRetries: 1,
        temperature: 0.2,
        // Logged once below, with context, instead of the SDK's console output.
        onError: () => undefined,
      });
      yield* result.toUIMessageStream({
        onError: (error) => {
          options.log?.warn({ err: error }, 'LLM request failed');
          return describeLlmError(error, options.baseURL, options.model);
        },
      });
    },
  };
}
