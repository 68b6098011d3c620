// Prompt Catalog rules from docs/SPEC.md as pure functions: prompts shown without surrounding
// quotes, categories in catalogue order, and the prompt text sent with the chosen timeframe
// and symbol filled in.
import type { CatalogPrompt } from '../../../shared/schemas/prompts.ts';

export type { CatalogPrompt };

/** docs/SPEC.md: surrounding quotes stripped for display. */
export function stripQuotes(prompt: string): string {
  return prompt
    .trim()
    .replace(/^(["'“‘])([\s\S]*)(["'”’])$/, '$2')
    .trim();
}

export function categoriesOf(prompts: CatalogPrompt[]): string[] {
  return [...new Set(prompts.map((entry) => entry.category))];
}

/** The text sent: the prompt with {symbol} and {timeframe} filled from the selections. */
export function fillPrompt(prompt: string, selections: { symbol: string; timeframe: string }): string {
  return stripQuotes(prompt).replaceAll('{symbol}', selections.symbol).replaceAll('{timeframe}', selections.timeframe);
}
