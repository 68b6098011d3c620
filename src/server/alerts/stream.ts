// GET /api/alerts/stream: new alerts as server-sent events, filtered per connection by the
// same alert_type / symbol as the alert log. A reconnecting browser sends Last-Event-ID and
// first receives what it missed (at most 100 alerts).
import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ALERT_TYPES } from '../../shared/constants.ts';
import type { Database } from '../db/client.ts';
import { alerts } from '../db/schema.ts';
import type { AlertBus, LiveAlert } from './bus.ts';
import { saveAlerts, toAlertRecord } from './store.ts';

const streamQuery = z.object({
  alert_type: z.enum(ALERT_TYPES).optional(),
  symbol: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z0-9.-]{1,20}$/, 'symbol may only contain letters, digits, dots and dashes')
    .transform((value) => value.replace(/-USD$/, ''))
    .optional(),
});

const HEARTBEAT_MS = 25_000;

export async function alertStreamRoutes(app: FastifyInstance, options: { db: Database; bus: AlertBus }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const open = new Set<() => void>();
  // Streams never end by themselves: end them before the server waits for connections.
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });
  routes.get('/api/alerts/stream', { schema: { querystring: streamQuery } }, async (request, reply) => {
    const { alert_type: alertType, symbol } = request.query;
    const matches = (alert: LiveAlert) => (!alertType || alert.alert_type === alertType) && (!symbol || alert.ticker === symbol);

    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const send = (alert: LiveAlert) => raw.write(`id: ${alert.id}\nevent: alert\ndata: ${JSON.stringify(alert)}\n\n`);
    raw.write('retry: 3000\n\n');

    const lastId = Number(request.headers['last-event-id']);
    if (Number.isInteger(lastId) && lastId > 0) {
      const conditions: SQL[] = [gt(alerts.id, lastId)];
      if (alertType) conditions.push(eq(alerts.alertType, alertType));
      if (symbol) conditions.push(eq(alerts.ticker, symbol));
      const missed = await options.db.select().from(alerts).where(and(...conditions)).orderBy(asc(alerts.id)).limit(100);
      for (const row of missed) send({ id: row.id, source: row.source, ...toAlertRecord(row) });
    }

    const unsubscribe = options.bus.subscribe((alert) => {
      if (matches(alert)) send(alert);
    });
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(end);
      raw.end();
    };
    open.add(end);
    raw.on('close', end);
  });
}

/**
 * Test-only (TEST_HOOKS=true): stores an alert stamped now and pushes it through the live
 * channel, the same two steps the engine takes, so a journey need not wait for the market.
 */
export async function alertTestHookRoutes(app: FastifyInstance, options: { db: Database; bus: AlertBus }): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/api/test/alerts',
    { schema: { body: z.object({ ticker: z.string().regex(/^[A-Z0-9]{1,10}$/), alert_type: z.enum(ALERT_TYPES), message: z.string().min(1).max(300) }) } },
    async (request) => {
      const [saved] = await saveAlerts(options.db, [
        { ticker: request.body.ticker, alertType: request.body.alert_type, message: request.body.message, timestamp: new Date(Math.floor(Date.now() / 1000) * 1000), source: 'test' },
      ]);
      if (saved) await options.bus.publish([{ id: saved.id, source: saved.source, ...toAlertRecord(saved) }]);
      return { alert: saved ? toAlertRecord(saved) : null };
    },
  );
}
