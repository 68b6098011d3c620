// GET /healthz: what a load balancer or an operator reads. 200 once the migrations ran and the
// database answers; 503 while migrations are pending or the database is not answering.
import { z } from 'zod';

export const healthOk = z.object({ status: z.literal('ok') });
export const healthUnavailable = z.object({ status: z.enum(['starting', 'unavailable']), error: z.string() });
