// GET /api/alerts/stream: new alerts as server-sent events, filtered per connection by the
// same alert_type / symbol as the alert log. A reconnecting browser sends Last-Event-ID and
// first receives what it missed (at most 100 alerts). A stream lives only as long as the
// access it was opened with (session and subscription), and a user holds at most ten.
// With kind=rules the stream carries only the user's own alert-rule firings (`rule` events,
// replayed after a reconnect the same way). The registry, heartbeat and end of a stream are
// shared with the live connection (eventStreams.ts).
import { assetClassOfTicker } from '../../shared/tickers.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertStreamQuery, testAlertBody, testAlertResponse } from '../../shared/schemas/alerts.ts';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';
import type { SessionChanges } from '../auth/service.ts';
import type { Database } from '../db/client.ts';
import { unauthenticated } from '../errors/domain.ts';
import { NOT_SIGNED_IN, requireUser } from '../http/requestUser.ts';
import type { AlertBus, LiveAlert } from './bus.ts';
import { createStreamRegistry, openEventStream, type OpenStreamCount, type StreamRegistry } from './eventStreams.ts';
import { alertsAfter, saveAlerts, toAlertRecord, toLiveAlert } from './service.ts';

export interface AlertStreamOptions {
  db: Database;
  bus: AlertBus;
  /**
   * The registry shared with GET /api/live (app.ts makes one); without it the routes keep one
   * of their own from the options below.
   */
  registry?: StreamRegistry;
  /** Sign-outs, revocations and password changes in this process: each triggers a re-check. */
  sessionChanges?: SessionChanges;
  maxStreamsPerUser?: number;
  recheckMs?: number;
  /** A user's rule firings after `lastId`, oldest first (the rules stream's replay). */
  firingsAfter?: (userId: string, lastId: number) => Promise<RuleFiring[]>;
  /** Kept at the number of streams open in this process (read by GET /metrics). */
  openStreams?: OpenStreamCount;
}

/**
 * An alert's event as the stream sends it. The bus hands every subscriber the same object, so
 * the frame is made once per alert, not once per open stream.
 */
const frames = new WeakMap<LiveAlert, string>();
function alertFrame(alert: LiveAlert): string {
  let frame = frames.get(alert);
  if (frame === undefined) {
    frame = `id: ${alert.id}\nevent: alert\ndata: ${JSON.stringify(alert)}\n\n`;
    frames.set(alert, frame);
  }
  return frame;
}

export async function alertStreamRoutes(app: FastifyInstance, options: AlertStreamOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const registry =
    options.registry ??
    createStreamRegistry({
      db: options.db,
      log: app.log,
      sessionChanges: options.sessionChanges,
      maxPerUser: options.maxStreamsPerUser,
      recheckMs: options.recheckMs,
      count: options.openStreams,
    });
  // Streams never end by themselves: end them before the server waits for connections.
  app.addHook('preClose', async () => registry.close());
  // A stream of events, not one JSON answer: no response schema (the events' data follow
  // liveAlert and alertStreamEnd in shared/schemas/alerts.ts).
  routes.get('/api/alerts/stream', { schema: { querystring: alertStreamQuery } }, async (request, reply) => {
    const { alert_type: alertType, symbol, market, kind } = request.query;
    const matches = (alert: LiveAlert) =>
      (!alertType || alert.alert_type === alertType) &&
      (!symbol || alert.ticker === symbol) &&
      (!market || assetClassOfTicker(alert.ticker) === market);
    // The dashboard gate ran, so both are present.
    const userId = requireUser(request).id;
    const sessionToken = request.authSession?.token;
    if (!sessionToken) throw unauthenticated(NOT_SIGNED_IN);

    const stream = openEventStream(reply, registry, { userId, sessionToken });
    const { raw } = stream;
    const send = (alert: LiveAlert) => raw.write(alertFrame(alert));
    const sendFiring = (firing: RuleFiring) =>
      raw.write(`id: ${firing.id}\nevent: rule\ndata: ${JSON.stringify(firing)}\n\n`);

    const lastId = Number(request.headers['last-event-id']);
    if (kind === 'rules') {
      if (Number.isInteger(lastId) && lastId > 0 && options.firingsAfter) {
        let missed: RuleFiring[];
        try {
          missed = await options.firingsAfter(userId, lastId);
        } catch (error) {
          request.log.warn({ err: error }, 'alert stream: could not replay missed rule firings');
          stream.end('server-closing');
          return;
        }
        if (stream.ended) return;
        for (const firing of missed) sendFiring(firing);
      }
      if (stream.ended) return;
      stream.onEnd(
        options.bus.subscribeFirings((event) => {
          if (event.userId === userId) sendFiring(event.firing);
        }),
      );
      return;
    }
    if (Number.isInteger(lastId) && lastId > 0) {
      let missed: LiveAlert[];
      try {
        missed = await alertsAfter(options.db, lastId, { alertType, ticker: symbol, market });
      } catch (error) {
        // The answer has begun, so no error status is possible: end the stream, and the
        // browser reconnects with the same Last-Event-ID.
        request.log.warn({ err: error }, 'alert stream: could not replay missed alerts');
        stream.end('server-closing');
        return;
      }
      if (stream.ended) return;
      for (const alert of missed) send(alert);
    }

    if (stream.ended) return;
    stream.onEnd(
      options.bus.subscribe((alert) => {
        if (matches(alert)) send(alert);
      }),
    );
  });
}

/**
 * Test-only (TEST_HOOKS=true): stores an alert stamped now and pushes it through the live
 * channel, the same two steps the engine takes, so a journey need not wait for the market.
 */
export async function alertTestHookRoutes(
  app: FastifyInstance,
  options: { db: Database; bus: AlertBus },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/api/test/alerts',
    {
      schema: { body: testAlertBody, response: { 200: testAlertResponse } },
    },
    async (request) => {
      const [saved] = await saveAlerts(options.db, [
        {
          ticker: request.body.ticker,
          alertType: request.body.alert_type,
          message: request.body.message,
          timestamp: new Date(Math.floor(Date.now() / 1000) * 1000),
          source: 'test',
        },
      ]);
      if (saved) await options.bus.publish([toLiveAlert(saved)]);
      return { alert: saved ? toAlertRecord(saved) : null };
    },
  );
}
