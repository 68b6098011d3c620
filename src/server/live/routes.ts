// GET /api/live and PUT /api/live/subscriptions (issue 34): a dashboard tab's one live
// connection, server-sent events (ADR 0021). It carries the market's alerts (the browser
// filters them), this user's rule firings and the ticks of the symbols it subscribed to
// (through the hub, latest value wins), and lives by the same rules as /api/alerts/stream:
// the dashboard gate, the shared registry's session and subscription re-checks, the per-user
// cap, the heartbeat and the `end` event (alerts/eventStreams.ts).
//
// Stream position: alert and rule events carry `id: <last alert id>-<last firing id>`; a
// reconnecting browser's Last-Event-ID replays the alerts (at most 100) and this user's
// firings it missed. A plain number is an alert id (the old stream's ids). Ticks carry no id:
// the next one supersedes them. While the replay is read from the database, live alerts and
// firings are held and sent after it, without those the replay already sent.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { testRulePriceBody, testRulePriceResponse, type RuleFiring } from '../../shared/schemas/alertRules.ts';
import {
  liveStreamQuery,
  liveSubscriptionsBody,
  liveSubscriptionsResponse,
  type LiveHello,
} from '../../shared/schemas/live.ts';
import { resolveSymbol, unknownSymbolMessage } from '../../shared/symbols.ts';
import type { SessionChanges } from '../auth/service.ts';
import {
  alertsAfter,
  createStreamRegistry,
  openEventStream,
  type AlertBus,
  type LiveAlert,
  type StreamRegistry,
} from '../alerts/service.ts';
import type { Database } from '../db/client.ts';
import { conflict, invalid, notFound, unauthenticated, unavailable } from '../errors/domain.ts';
import type { LiveMetrics } from '../http/metrics.ts';
import { NOT_SIGNED_IN, requireUser } from '../http/requestUser.ts';
import { createLiveHub, type LiveHub } from './hub.ts';
import type { LiveOwner } from './owner.ts';

export const UNKNOWN_CONNECTION = 'This live connection is not open here any more. Reconnect to get live prices again.';

export interface LiveRouteOptions {
  db: Database;
  bus: AlertBus;
  /** The hub of this instance; without one the routes make their own (and close it). */
  hub?: LiveHub;
  /** The registry shared with /api/alerts/stream; without one the routes make their own. */
  registry?: StreamRegistry;
  sessionChanges?: SessionChanges;
  maxStreamsPerUser?: number;
  recheckMs?: number;
  /** A user's rule firings after `lastId`, oldest first (the replay after a reconnect). */
  firingsAfter?: (userId: string, lastId: number) => Promise<RuleFiring[]>;
  /** For the hub the routes make (GET /metrics). */
  metrics?: LiveMetrics;
}

/** Where a browser's stream stood: the last alert id and the last firing id it received. */
interface StreamPosition {
  alertId: number;
  firingId: number;
}

/** Reads Last-Event-ID: `<alert id>-<firing id>`, or a plain alert id; anything else is none. */
function parseStreamPosition(header: string | string[] | undefined): StreamPosition {
  const text = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  const match = /^(\d{1,15})(?:-(\d{1,15}))?$/.exec(text);
  if (!match) return { alertId: 0, firingId: 0 };
  return { alertId: Number(match[1]), firingId: Number(match[2] ?? 0) };
}

/** The canonical ids of the symbols asked for, in order, once each; 400 for one we lack. */
function canonicalSymbols(inputs: readonly string[]): string[] {
  const ids: string[] = [];
  for (const input of inputs) {
    const symbol = resolveSymbol(input);
    if (!symbol) throw invalid(unknownSymbolMessage(input));
    if (!ids.includes(symbol.id)) ids.push(symbol.id);
  }
  return ids;
}

/** An alert's JSON, made once per alert however many connections carry it. */
const alertJson = new WeakMap<LiveAlert, string>();
function jsonOf(alert: LiveAlert): string {
  let json = alertJson.get(alert);
  if (json === undefined) {
    json = JSON.stringify(alert);
    alertJson.set(alert, json);
  }
  return json;
}

type Held = { kind: 'alert'; alert: LiveAlert } | { kind: 'rule'; firing: RuleFiring };

export async function liveRoutes(app: FastifyInstance, options: LiveRouteOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { db, bus } = options;
  const registry =
    options.registry ??
    createStreamRegistry({
      db,
      log: app.log,
      sessionChanges: options.sessionChanges,
      maxPerUser: options.maxStreamsPerUser,
      recheckMs: options.recheckMs,
    });
  const ownHub = options.hub === undefined;
  const hub =
    options.hub ??
    createLiveHub({
      bus,
      metrics: options.metrics,
      onError: (error) => app.log.warn({ err: error }, 'live: could not announce the watched symbols'),
    });
  // Streams never end by themselves: end them before the server waits for connections.
  app.addHook('preClose', async () => registry.close());
  if (ownHub) app.addHook('onClose', async () => hub.close());

  // A stream of events, not one JSON answer: no response schema (the events' data follow
  // shared/schemas/live.ts).
  routes.get('/api/live', { schema: { querystring: liveStreamQuery } }, async (request, reply) => {
    const symbols = canonicalSymbols(request.query.symbols);
    // The dashboard gate ran, so both are present.
    const userId = requireUser(request).id;
    const sessionToken = request.authSession?.token;
    if (!sessionToken) throw unauthenticated(NOT_SIGNED_IN);
    const position = parseStreamPosition(request.headers['last-event-id']);

    const stream = openEventStream(reply, registry, { userId, sessionToken });
    const { raw } = stream;
    const connection = hub.open({ userId, symbols, sink: raw });
    stream.onEnd(() => connection.close());
    const hello: LiveHello = { connection: connection.id, symbols: [...connection.symbols()] };
    // Written before the hub's first frame, which waits for the next macrotask.
    raw.write(`event: hello\ndata: ${JSON.stringify(hello)}\n\n`);

    const streamId = () => `${position.alertId}-${position.firingId}`;
    const sendAlert = (alert: LiveAlert) => {
      position.alertId = Math.max(position.alertId, alert.id);
      raw.write(`id: ${streamId()}\nevent: alert\ndata: ${jsonOf(alert)}\n\n`);
    };
    const sendFiring = (firing: RuleFiring) => {
      position.firingId = Math.max(position.firingId, firing.id);
      raw.write(`id: ${streamId()}\nevent: rule\ndata: ${JSON.stringify(firing)}\n\n`);
    };

    // Listening before the replay is read, so nothing published meanwhile falls between.
    let held: Held[] | null = [];
    stream.onEnd(
      bus.subscribe((alert) => {
        if (held) held.push({ kind: 'alert', alert });
        else sendAlert(alert);
      }),
    );
    stream.onEnd(
      bus.subscribeFirings((event) => {
        if (event.userId !== userId) return;
        if (held) held.push({ kind: 'rule', firing: event.firing });
        else sendFiring(event.firing);
      }),
    );

    let missed: [LiveAlert[], RuleFiring[]];
    try {
      missed = await Promise.all([
        position.alertId > 0 ? alertsAfter(db, position.alertId, {}) : [],
        position.firingId > 0 && options.firingsAfter ? options.firingsAfter(userId, position.firingId) : [],
      ]);
    } catch (error) {
      // The answer has begun, so no error status is possible: end the stream, and the
      // browser reconnects with the same Last-Event-ID.
      request.log.warn({ err: error }, 'live: could not replay missed alerts and firings');
      stream.end('server-closing');
      return;
    }
    if (stream.ended) return;
    const [missedAlerts, missedFirings] = missed;
    for (const alert of missedAlerts) sendAlert(alert);
    for (const firing of missedFirings) sendFiring(firing);
    const replayed = { ...position };
    const waiting = held;
    held = null;
    for (const event of waiting) {
      if (event.kind === 'alert' && event.alert.id > replayed.alertId) sendAlert(event.alert);
      if (event.kind === 'rule' && event.firing.id > replayed.firingId) sendFiring(event.firing);
    }
  });

  routes.put(
    '/api/live/subscriptions',
    { schema: { body: liveSubscriptionsBody, response: { 200: liveSubscriptionsResponse } } },
    async (request) => {
      const userId = requireUser(request).id;
      const connection = hub.connection(request.body.connection);
      // Another user's connection is answered as no connection: its id tells nobody anything.
      if (!connection || connection.userId !== userId) throw notFound(UNKNOWN_CONNECTION);
      const symbols = canonicalSymbols(request.body.symbols);
      connection.setSymbols(symbols);
      return { symbols: [...connection.symbols()] };
    },
  );
}

export interface LiveTestHookOptions {
  /** This instance's owner of the live path, once main.ts started it (null before). */
  owner(): Pick<LiveOwner, 'accept'> | null;
  /** Reloads the active rules first, so a rule created just before is evaluated (rules' sync). */
  syncRules(): Promise<void>;
  /** Waits until the tick rules recorded what this tick fired (the rules runtime's flushTicks). */
  flushTicks(): Promise<{ firings: ReadonlyArray<{ userId: string }> }>;
}

/**
 * Test-only (TEST_HOOKS=true): a demo tick at `price` for the symbol, stamped now, through this
 * instance's whole live path (the forming bar, the tick rules, the publisher, the bus and every
 * hub), as if the demo feed had sent it: a journey need not wait for a market to move. Answers
 * how many of the caller's rules it fired.
 */
export async function liveTestHookRoutes(app: FastifyInstance, options: LiveTestHookOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/api/test/ticks',
    { schema: { body: testRulePriceBody, response: { 200: testRulePriceResponse } } },
    async (request) => {
      const owner = options.owner();
      if (!owner) throw unavailable('The live path has not started yet.', 1);
      await options.syncRules();
      const tick = owner.accept({
        symbol: request.body.symbol,
        price: request.body.price,
        time: Date.now(),
        size: 0,
        source: 'demo',
        delayMinutes: 0,
      });
      if (!tick) throw conflict(`This instance does not carry ${request.body.symbol} now.`);
      const recorded = await options.flushTicks();
      // The caller's own firings: journeys running side by side tick the same server.
      const userId = requireUser(request).id;
      return { fired: recorded.firings.filter((firing) => firing.userId === userId).length };
    },
  );
}
