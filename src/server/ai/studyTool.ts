// The assistant's setup study (issue 36, item 4): "how did MES do after RSI fell below 30 on
// 15m?" runs a study (studies/service.ts) and answers with its verdict, citing n and the 95%
// interval, and "no measurable edge" when that is the answer. The built-in analyst reads the
// question with simple patterns (parseStudyQuestion: the symbol, the indicator, the level, the
// timeframe); the LLM gets a tool whose input is the studyRequest schema itself.
import { tool } from 'ai';
import { RULE_TIMEFRAMES, type RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import { studyRequest, type StudyRequest, type StudyResponse } from '../../shared/schemas/scans.ts';
import { isDomainError } from '../errors/domain.ts';
import type { StudyService } from '../studies/service.ts';
import { mentionedSymbols, mentionedTimeframe } from './symbols.ts';
import { ToolError } from './toolErrors.ts';

/** A question asking what followed a setup. */
const STUDY_QUESTION =
  /\b(?:how did .+ do after|what (?:happened|happens|did .+ do) after|after (?:the )?(?:rsi|price|it|ema|close)|when .+ (?:crossed|fell|rose|dropped|went)|setup study|study (?:of|the) setup|does (?:this|my|the) setup work)/i;

const RSI = /\brsi(?:\s*\(?\s*(\d{1,3})\s*\)?)?\s+(?:\w+\s+){0,2}?(below|under|above|over)\s+(\d{1,2}(?:\.\d+)?)/i;
const EMA_CROSS =
  /\bema\s*\(?(\d{1,3})\)?\s+(?:\w+\s+){0,1}?(?:crossed|crosses|cross)\s+(above|below|over|under)\s+(?:the\s+)?ema\s*\(?(\d{1,3})\)?/i;
const PRICE_EMA =
  /\b(above|below|over|under)\s+(?:its\s+|the\s+)?(?:(\d{1,3})[- ]?(?:period\s+)?ema|ema\s*\(?(\d{1,3})\)?)/i;
const BOLLINGER = /\b(upper|lower)\s+bollinger|\bbollinger\b.*\b(upper|lower)\b/i;
const VOLUME = /\bvolume\s+(?:surge|spike)/i;
const HORIZON =
  /\b(\d{1,3})\s+bars?\s+later\b|\bafter\s+(\d{1,3})\s+bars?\b|\bover\s+(?:the\s+)?next\s+(\d{1,3})\s+bars?\b/i;

const sideOf = (word: string) => (/above|over|upper/i.test(word) ? 'above' : 'below');

/** The rule timeframe a question names (D: 1D); 1h when none or one a study has no bars for. */
function studyTimeframe(text: string): RuleTimeframe {
  const named = mentionedTimeframe(text);
  if (named === 'D') return '1D';
  return (RULE_TIMEFRAMES as readonly string[]).includes(named ?? '') ? (named as RuleTimeframe) : '1h';
}

/**
 * The study a question asks for, or a problem to tell the trader, or null when it is not a
 * study question. Conditions found (at most one of each kind, in the order listed): RSI
 * above/below a level, EMA crossing EMA, the price crossing its EMA, a close outside a Bollinger
 * band, a volume surge.
 */
export function parseStudyQuestion(text: string): { request: StudyRequest } | { problem: string } | null {
  if (!STUDY_QUESTION.test(text)) return null;
  const conditions: unknown[] = [];
  const rsi = RSI.exec(text);
  if (rsi) conditions.push({ kind: 'rsi', side: sideOf(rsi[2]!), level: Number(rsi[3]), period: Number(rsi[1] ?? 14) });
  const cross = EMA_CROSS.exec(text);
  if (cross)
    conditions.push({ kind: 'ema_cross', side: sideOf(cross[2]!), fast: Number(cross[1]), slow: Number(cross[3]) });
  else {
    const priceEma = PRICE_EMA.exec(text);
    if (priceEma)
      conditions.push({ kind: 'price_vs_ema', side: sideOf(priceEma[1]!), period: Number(priceEma[2] ?? priceEma[3]) });
  }
  const band = BOLLINGER.exec(text);
  if (band) conditions.push({ kind: 'bollinger', side: sideOf(band[1] ?? band[2]!) });
  if (VOLUME.test(text)) conditions.push({ kind: 'volume_z', threshold: 2 });
  const { products, unknown } = mentionedSymbols(text);
  if (products.length === 0)
    return {
      problem: unknown.length
        ? `symbols: I have no market data for ${unknown.join(', ')}.`
        : 'Name the symbol to study, e.g. "how did MES do after RSI fell below 30 on 15m?".',
    };
  if (conditions.length === 0)
    return {
      problem:
        'I could not read the setup. Say it like "after RSI fell below 30", "after it crossed above its EMA 20", "after EMA 20 crossed above EMA 50", "after a close above the upper Bollinger band" or "after a volume surge".',
    };
  const horizon = HORIZON.exec(text);
  const parsed = studyRequest.safeParse({
    symbols: products.slice(0, 50),
    timeframe: studyTimeframe(text),
    conditions,
    ...(horizon ? { horizon: Number(horizon[1] ?? horizon[2] ?? horizon[3]) } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${issue.path.join('.')}: ${issue.message}` };
  }
  return { request: parsed.data };
}

/** Runs a study for the assistant; the study's refusals (400, 429, 503) become text to show. */
export async function assistantStudy(
  studies: Pick<StudyService, 'study'> | undefined,
  request: StudyRequest,
): Promise<StudyResponse> {
  if (!studies) throw new ToolError('Setup studies are not available on this server.');
  try {
    return await studies.study(request);
  } catch (error) {
    if (isDomainError(error) && error.kind !== 'upstream') throw new ToolError(error.message);
    throw error;
  }
}

const signed = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(2)}%`);

/** The answer: the verdict first (n, the interval, the edge or "no measurable edge"), then the plain outcome figures. */
export function describeStudy(answer: StudyResponse): string {
  const lines = [`**${answer.verdict}.**`, ''];
  if (answer.signals > 0) {
    const last = answer.equity.at(-1)?.equity;
    lines.push(
      `- Signals: ${answer.signals} (about ${Math.round(answer.effectiveSamples)} independent outcomes, as the horizons overlap)`,
      `- Average move ${signed(answer.outcomes.averageMovePercent)}, median ${signed(answer.outcomes.medianMovePercent)} over ${answer.horizon} bars`,
      `- Mean adverse excursion ${signed(answer.outcomes.adverseExcursionPercent)}, favourable ${signed(answer.outcomes.favourableExcursionPercent)}`,
      `- Enter on the signal, exit ${answer.horizon} bars later, fee included: ${answer.trades} trades, equity ${last === undefined ? '1.00' : last.toFixed(2)} from 1.00`,
      '',
    );
  }
  const demo = answer.perSymbol.filter((entry) => entry.source === 'demo').map((entry) => entry.symbol);
  if (demo.length > 0) lines.push(`_Demo data: simulated prices, not a market (${demo.join(', ')})._`, '');
  if (answer.from && answer.to)
    lines.push(
      `_History read: ${answer.from.slice(0, 10)} to ${answer.to.slice(0, 10)} (${answer.timeframe} bars). Historical measurement, not a forecast._`,
    );
  return lines.join('\n') + '\n';
}

/** The LLM's tool: the studyRequest schema as its input, the study's answer as its output. */
export function studyLlmTool(run: (request: StudyRequest) => Promise<StudyResponse | { error: string }>) {
  return tool({
    description:
      'Setup study: over the stored history (up to 2 years of 1h bars) of the given symbols, every time ALL the conditions became true together, how often the close was higher `horizon` bars later, with the product\'s estimator (n, 95% interval, base rate, edge or "no measurable edge"), average/median move, excursions and an equity curve. Answer with the verdict sentence; cite n and the interval; say "no measurable edge" when edge is false.',
    inputSchema: studyRequest,
    execute: (request) => run(request),
  });
}
