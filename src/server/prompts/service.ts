// The prompt catalogue's table (`prompts`): the only module that reads or writes it. Start-up
// seeds it from catalogue.ts; GET /prompts lists the active prompts in catalogue order.
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { prompts } from '../db/schema.ts';
import type { CatalogPrompt } from '../../shared/schemas/prompts.ts';
import { PROMPT_CATALOGUE } from './catalogue.ts';

/** Writes catalogue.ts into the table (new prompts added, changed ones updated). */
export async function seedPrompts(db: Database): Promise<void> {
  for (const [sortOrder, entry] of PROMPT_CATALOGUE.entries()) {
    const values = { ...entry, sortOrder, active: true };
    await db.insert(prompts).values(values).onConflictDoUpdate({ target: prompts.id, set: values });
  }
}

/** The active prompts in catalogue order, optionally of one category. */
export async function listPrompts(db: Database, category?: string): Promise<CatalogPrompt[]> {
  return db
    .select({
      id: prompts.id,
      category: prompts.category,
      prompt: prompts.prompt,
      uses_market_context: prompts.usesMarketContext,
    })
    .from(prompts)
    .where(category ? and(eq(prompts.active, true), eq(prompts.category, category)) : eq(prompts.active, true))
    .orderBy(asc(prompts.sortOrder));
}
