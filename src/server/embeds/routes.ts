// GET /api/embeds: the configured pages of the two third-party chart panels
// (SPREADSHEET_EMBED_URL, DEMO_TRADING_EMBED_URL); null when the operator set none.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { embedsResponse } from '../../shared/schemas/embeds.ts';
import type { Config } from '../config.ts';

export async function embedRoutes(app: FastifyInstance, options: { config: Config }): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/embeds', { schema: { response: { 200: embedsResponse } } }, async () => ({
      spreadsheetUrl: options.config.SPREADSHEET_EMBED_URL ?? null,
      demoTradingUrl: options.config.DEMO_TRADING_EMBED_URL ?? null,
    }));
}
