// GET /api/alerts/stream: new alerts as server-sent events, filtered per connection by the
// same alert_type / symbol as the alert log. A reconnecting browser sends Last-Event-ID and
// first receives what it missed (at most 100 alerts). A stream lives only as long as the
// access it was opened with (session and subscription), and a user holds at most ten.
// With kind=rules the stream carries only the user's own alert-rule firings (`rule` events,
// replayed after a reconnect the same way).
import { assetClassOfTicker } from '../../shared/tickers.ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertStreamQuery, testAlertBody, testAlertResponse } from '../../shared/schemas/alerts.ts';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import { and, gt, inArray } from 'drizzle-orm';
import type { SessionChanges } from '../auth/service.ts';
import { currentSubscriptions } from '../billing/service.ts';
import type { Database } from '../db/client.ts';
import { session } from '../db/schema.ts';
import { unauthenticated } from '../errors/domain.ts';
import { NOT_SIGNED_IN, requireUser } from '../http/requestUser.ts';
import { coalesced } from '../jobs/coalesce.ts';
import type { AlertBus, LiveAlert } from './bus.ts';
import { alertsAfter, saveAlerts, toAlertRecord, toLiveAlert } from './service.ts';

const HEARTBEAT_MS = 25_000;
/** Streams one user may hold at once; opening one more closes that user's oldest. */
const MAX_STREAMS_PER_USER = 10;
/**
 * How often every open stream's session and subscription are checked again. A sign-out or
 * revocation in this process bites at once (sessionChanges tells us); one made on another
 * instance or with the admin CLI bites within this interval.
 */
const STREAM_RECHECK_MS = 30_000;
/** How many users' streams one re-check round trip covers (the query's bound parameters). */
const SWEEP_BATCH = 500;
/** setTimeout's largest delay; a later period end is re-checked when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type EndReason = 'signed-out' | 'subscription-ended' | 'too-many-streams' | 'server-closing' | 'disconnected';

interface OpenStream {
  userId: string;
  /** The token of the session Better Auth verified when the stream opened. */
  sessionToken: string;
  end(reason: EndReason): void;
}

export interface AlertStreamOptions {
  db: Database;
  bus: AlertBus;
  /** Sign-outs, revocations and password changes in this process: each triggers a re-check. */
  sessionChanges?: SessionChanges;
  maxStreamsPerUser?: number;
  recheckMs?: number;
  /** A user's rule firings after `lastId`, oldest first (the rules stream's replay). */
  firingsAfter?: (userId: string, lastId: number) => Promise<RuleFiring[]>;
  /** Kept at the number of streams open in this process (read by GET /metrics). */
  openStreams?: OpenStreamCount;
}

interface OpenStreamCount {
  open: number;
}

/**
 * The open streams, per user in opening order, and the checks that end them: a session that
 * is gone (sign-out, revocation, password change), a subscription that is no longer active
 * (at its period end, or revoked), and the per-user cap.
 */
function createStreamRegistry(options: {
  db: Database;
  maxPerUser: number;
  log: FastifyBaseLogger;
  count?: OpenStreamCount;
}) {
  const { db, maxPerUser, log, count } = options;
  const byUser = new Map<string, OpenStream[]>();
  const expiries = new Map<string, NodeJS.Timeout>();

  function forget(userId: string) {
    byUser.delete(userId);
    clearTimeout(expiries.get(userId));
    expiries.delete(userId);
  }

  /** Ends the user's streams that `drop` selects (ending removes them from the registry). */
  function endWhere(userId: string, reason: EndReason, drop: (stream: OpenStream) => boolean) {
    for (const stream of [...(byUser.get(userId) ?? [])]) if (drop(stream)) stream.end(reason);
  }

  function expireAt(userId: string, periodEnd: number) {
    clearTimeout(expiries.get(userId));
    // Just past the end: subscriptionState counts the end instant itself as expired.
    const timer = setTimeout(
      () => void checkUsers([userId]),
      Math.min(Math.max(periodEnd - Date.now() + 50, 0), MAX_TIMER_MS),
    );
    timer.unref();
    expiries.set(userId, timer);
  }

  /**
   * Checks users' open streams straight from the database (a cached session could outlive its
   * revocation), with two queries in all: the sessions their streams were opened with that
   * still exist and have not expired (a sign-out, revocation or password change deletes them),
   * and each user's current subscription.
   */
  async function checkUsers(userIds: readonly string[]): Promise<void> {
    try {
      const tokens = new Set(userIds.flatMap((userId) => (byUser.get(userId) ?? []).map((s) => s.sessionToken)));
      const live =
        tokens.size === 0
          ? []
          : await db
              .select({ token: session.token, userId: session.userId })
              .from(session)
              .where(and(inArray(session.token, [...tokens]), gt(session.expiresAt, new Date())));
      const ownerOf = new Map(live.map((row) => [row.token, row.userId]));
      for (const userId of userIds)
        endWhere(userId, 'signed-out', (stream) => ownerOf.get(stream.sessionToken) !== userId);
      const streaming = userIds.filter((userId) => byUser.has(userId));
      const subscriptionOf = await currentSubscriptions(db, streaming);
      for (const userId of streaming) {
        const subscription = subscriptionOf.get(userId);
        if (!subscription || !subscriptionState(subscription).hasActiveSubscription)
          endWhere(userId, 'subscription-ended', () => true);
        else if (byUser.has(userId)) expireAt(userId, Date.parse(subscription.current_period_end!));
      }
    } catch (error) {
      log.warn({ err: error }, 'alert stream: could not re-check the open streams');
    }
  }

  /**
   * Re-checks every user with open streams, SWEEP_BATCH users a round trip (1,000 streaming
   * users were 3,000 queries a sweep, one user at a time); calls during a sweep run one more
   * after it.
   */
  const sweep = coalesced(async () => {
    const userIds = [...byUser.keys()];
    for (let start = 0; start < userIds.length; start += SWEEP_BATCH)
      await checkUsers(userIds.slice(start, start + SWEEP_BATCH));
  });

  return {
    add(stream: OpenStream) {
      const streams = byUser.get(stream.userId) ?? [];
      while (streams.length >= maxPerUser) streams[0]!.end('too-many-streams');
      // Set after the loop: ending the last one forgot the user's list.
      byUser.set(stream.userId, streams);
      streams.push(stream);
      if (count) count.open += 1;
      // Checked once registered, so a sign-out racing the opening cannot slip between the
      // gate's (possibly cached) grant and the registration; this also arms the expiry timer.
      void checkUsers([stream.userId]);
    },
    remove(stream: OpenStream) {
      const streams = byUser.get(stream.userId);
      if (!streams) return;
      const index = streams.indexOf(stream);
      if (index >= 0) {
        streams.splice(index, 1);
        if (count) count.open -= 1;
      }
      if (streams.length === 0) forget(stream.userId);
    },
    sweep,
    endAll(reason: EndReason) {
      for (const userId of [...byUser.keys()]) endWhere(userId, reason, () => true);
    },
  };
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
  const registry = createStreamRegistry({
    db: options.db,
    maxPerUser: options.maxStreamsPerUser ?? MAX_STREAMS_PER_USER,
    log: app.log,
    count: options.openStreams,
  });
  const stopListening = options.sessionChanges?.onChange(() => void registry.sweep());
  const recheck = setInterval(() => void registry.sweep(), options.recheckMs ?? STREAM_RECHECK_MS);
  recheck.unref();
  // Streams never end by themselves: end them before the server waits for connections.
  app.addHook('preClose', async () => {
    clearInterval(recheck);
    stopListening?.();
    registry.endAll('server-closing');
  });
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

    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const send = (alert: LiveAlert) => raw.write(alertFrame(alert));
    const sendFiring = (firing: RuleFiring) =>
      raw.write(`id: ${firing.id}\nevent: rule\ndata: ${JSON.stringify(firing)}\n\n`);
    raw.write('retry: 3000\n\n');

    let ended = false;
    let unsubscribe: () => void = () => undefined;
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const stream: OpenStream = {
      userId,
      sessionToken,
      end(reason) {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        unsubscribe();
        registry.remove(stream);
        if (!raw.destroyed) {
          // Tells the page why; a stream displaced by the cap also asks the browser to wait a
          // minute before reconnecting, so eleven tabs do not keep displacing each other.
          raw.write(
            `${reason === 'too-many-streams' ? 'retry: 60000\n' : ''}event: end\ndata: ${JSON.stringify({ reason })}\n\n`,
          );
        }
        raw.end();
      },
    };
    raw.on('close', () => stream.end('disconnected'));
    registry.add(stream);

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
        if (ended) return;
        for (const firing of missed) sendFiring(firing);
      }
      if (ended) return;
      unsubscribe = options.bus.subscribeFirings((event) => {
        if (event.userId === userId) sendFiring(event.firing);
      });
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
      if (ended) return;
      for (const alert of missed) send(alert);
    }

    if (ended) return;
    unsubscribe = options.bus.subscribe((alert) => {
      if (matches(alert)) send(alert);
    });
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
