// The assistant's "run a scan" tool (issue 36): the scanner's engine behind one function (the
// composition root passes the scans feature's run), the words a trader uses mapped to scan
// conditions for the built-in analyst ("oversold stocks with volume today"), the answer written
// with every matched symbol's figures, and the same scan as an AI SDK tool for the LLM.
import { tool } from 'ai';
import { z } from 'zod';
import { formatPrice } from '../../shared/format.ts';
import {
  SCAN_CONDITION_LABELS,
  scanRequest,
  type ScanCondition,
  type ScanRequest,
  type ScanResponse,
} from '../../shared/schemas/scans.ts';
import type { AssetClass } from '../../shared/symbolTable.ts';

/** Runs a scan over the whole universe (the scans feature's engine). */
export type ScanRunner = (request: ScanRequest) => Promise<ScanResponse>;

/** Words that ask for a scan of the market rather than about one symbol. */
export const SCAN_WORDS =
  /\b(?:scan|screen(?:er)?|oversold|overbought|which (?:stocks|coins|crypto|futures|symbols)|find (?:me )?(?:stocks|coins|crypto|futures|symbols)|trending above|breaking out)\b/i;

const CLASS_WORDS: Array<[RegExp, AssetClass[]]> = [
  [/\bstocks?\b|\bshares?\b|\bequit(?:y|ies)\b|large caps?/i, ['stock']],
  [/\betfs?\b/i, ['etf']],
  [/\bcrypto|\bcoins?\b|\btokens?\b/i, ['crypto']],
  [/\bmicro futures?\b|\bmicros\b/i, ['micro-future']],
  [/\bfutures?\b/i, ['future', 'micro-future']],
  [/\bindices\b|\bindexes\b/i, ['index']],
];

/** The scan a question asks for, in words and as a request; null when it names no condition. */
export function scanFromText(text: string): { words: string; request: ScanRequest } | null {
  const conditions: ScanCondition[] = [];
  const words: string[] = [];
  if (/oversold/i.test(text)) {
    conditions.push({ kind: 'rsi', side: 'below', level: 30, period: 14 });
    words.push('RSI(14) below 30');
  } else if (/overbought/i.test(text)) {
    conditions.push({ kind: 'rsi', side: 'above', level: 70, period: 14 });
    words.push('RSI(14) above 70');
  }
  if (/breaking out|breakouts?/i.test(text)) {
    conditions.push({ kind: 'builtin', alertType: 'BreakoutAlertGenerator', withinBars: 5 });
    words.push('a Breakout alert in the last 5 bars');
  }
  const ema = /above (?:the |its )?(?:ema|moving average)\s*(\d{1,3})?/i.exec(text);
  if (ema) {
    const period = Math.min(500, Math.max(2, Number(ema[1] ?? 50)));
    conditions.push({ kind: 'price_vs_ema', side: 'above', period });
    words.push(`close above its EMA ${period}`);
  }
  if (/\bvolume\b/i.test(text)) {
    conditions.push({ kind: 'volume_z', threshold: 1.5, period: 20 });
    words.push('volume z-score at least 1.5');
  }
  if (conditions.length === 0) return null;
  for (const [pattern, classes] of CLASS_WORDS) {
    if (!pattern.test(text)) continue;
    conditions.push({ kind: 'asset_class', classes });
    words.push(classes.join(' and '));
    break;
  }
  const timeframe = /\b4h\b|4.hour/i.test(text) ? '4h' : /\bdaily\b|\b1d\b/i.test(text) ? '1D' : '1h';
  return { words: `${words.join(', ')} on ${timeframe} bars`, request: scanRequest.parse({ timeframe, conditions }) };
}

function figure(condition: ScanCondition, value: number | null): string {
  if (value === null) return '—';
  switch (condition.kind) {
    case 'change':
    case 'price_vs_ema':
    case 'session_change':
    case 'ema_cross':
      return `${value >= 0 ? '+' : ''}${value.toFixed(2)}%`;
    case 'watos_edge':
      return `${value.toFixed(1)}%`;
    case 'builtin':
      return `${value} bar${value === 1 ? '' : 's'} ago`;
    default:
      return value.toFixed(2);
  }
}

/** The scan's answer in Markdown: how many matched of how many, and each matched symbol's figures. */
export function describeScan(words: string, request: ScanRequest, answer: ScanResponse, shown = 15): string {
  const lines = [
    `Scan: ${words}. ${answer.matched} of ${answer.evaluated} symbols match${answer.skipped ? ` (${answer.skipped} skipped for too little stored history)` : ''}${answer.asOf ? `, as of the bar closing ${answer.asOf.slice(0, 16).replace('T', ' ')} UTC` : ''}.`,
    '',
  ];
  if (answer.rows.length === 0) {
    lines.push('No symbol matches every condition right now.', '');
    return lines.join('\n');
  }
  const numbered = request.conditions.filter((condition) => condition.kind !== 'asset_class');
  const headers = ['Symbol', 'Last', ...numbered.map((condition) => SCAN_CONDITION_LABELS[condition.kind])];
  lines.push(`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`);
  for (const row of answer.rows.slice(0, shown)) {
    const cells = request.conditions.flatMap((condition, index) =>
      condition.kind === 'asset_class' ? [] : [figure(condition, row.values[index] ?? null)],
    );
    lines.push(`| ${row.ticker} | ${formatPrice(row.last)} | ${cells.join(' | ')} |`);
  }
  if (answer.rows.length > shown) lines.push('', `…and ${answer.matched - shown} more in the scanner.`);
  const demo = answer.rows.some((row) => row.source === 'demo');
  lines.push('', ...(demo ? ['_Demo data: simulated prices, not a market._', ''] : []));
  return lines.join('\n');
}

/** The scan as an LLM tool: the scanner's own request schema. */
export function scanTool(run: ScanRunner) {
  return tool({
    description:
      'Scan the whole market (crypto, stocks, ETFs, indices, futures) for symbols meeting every condition at the newest closed bar: RSI, % change, EMA cross, price vs EMA, Bollinger, volume z-score, built-in alerts in the last N bars, WATOS edge, asset class, price range, session change. Returns matched symbols with each condition value, strongest first.',
    inputSchema: z.object({
      timeframe: scanRequest.shape.timeframe,
      conditions: scanRequest.shape.conditions,
      limit: z.number().int().min(1).max(50).optional(),
    }),
    execute: async (input) => run(scanRequest.parse({ ...input, limit: input.limit ?? 20 })),
  });
}
