// GET /prompts (docs/SPEC.md section 7): the Prompt Catalog's ready-made analysis requests, shared
// by the server (query and response schemas) and the browser (which parses the answer).
import { z } from 'zod';

/** ?category=: one category only (URL-encoded), or every active prompt. */
export const promptsQuery = z.object({ category: z.string().trim().min(1).max(100).optional() });

const catalogPrompt = z.object({
  id: z.string(),
  category: z.string(),
  /** May hold {symbol} and {timeframe}, filled from the catalogue's selections. */
  prompt: z.string(),
  /** False for the options prompts, which work on an attached option chain instead. */
  uses_market_context: z.boolean(),
});
export type CatalogPrompt = z.infer<typeof catalogPrompt>;

/** The prompts in catalogue order. */
export const promptsResponse = z.object({ prompts: z.array(catalogPrompt) });
