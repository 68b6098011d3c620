// GET /api/embeds: the configured pages of the chart area's two third-party panels.
import { z } from 'zod';

export const embedsResponse = z.object({
  spreadsheetUrl: z.string().nullable(),
  demoTradingUrl: z.string().nullable(),
});
