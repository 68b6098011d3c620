// GET /prompts (SPEC.md section 7): the prompt catalogue, optionally one category, from the
// `prompts` table that start-up seeds from catalogue.ts.
import { and, asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../db/client.ts';
import { prompts } from '../db/schema.ts';
import { PROMPT_CATALOGUE } from './catalogue.ts';

export async function seedPrompts(db: Database): Promise<void> {
  for (const [sortOrder, entry] of PROMPT_CATALOGUE.entries()) {
    const values = { ...entry, sortOrder, active: true };
    await db.insert(prompts).values(values).onConflictDoUpdate({ target: prompts.id, set: values });
  }
}

export async function promptRoutes(app: FastifyInstance, options: { db: Database }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/prompts',
    { schema: { querystring: z.object({ category: z.string().trim().min(1).max(100).optional() }) } },
    async (request) => {
      const { category } = request.query;
      const rows = await options.db
        .select({
          id: prompts.id,
          category: prompts.category,
          prompt: prompts.prompt,
          uses_market_context: prompts.usesMarketContext,
        })
        .from(prompts)
        .where(category ? and(eq(prompts.active, true), eq(prompts.category, category)) : eq(prompts.active, true))
        .orderBy(asc(prompts.sortOrder));
      return { prompts: rows };
    },
  );
}
