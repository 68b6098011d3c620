// What every server-sent-event stream of the dashboard shares (GET /api/alerts/stream and the
// one live connection GET /api/live, issue 34): the registry of open streams per user with the
// checks that end them (a session that is gone, a subscription that ended, the per-user cap),
// and the stream itself: its headers, heartbeat, `end` event and registration. A stream lives
// only as long as the access it was opened with; one registry serves both routes, so the cap
// counts a user's streams of either kind.
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import { and, gt, inArray } from 'drizzle-orm';
import { subscriptionState } from '../../shared/subscription.ts';
import type { SessionChanges } from '../auth/service.ts';
import { currentSubscriptions } from '../billing/service.ts';
import type { Database } from '../db/client.ts';
import { session } from '../db/schema.ts';
import { coalesced } from '../jobs/coalesce.ts';

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

export type EndReason = 'signed-out' | 'subscription-ended' | 'too-many-streams' | 'server-closing' | 'disconnected';

interface OpenStream {
  userId: string;
  /** The token of the session Better Auth verified when the stream opened. */
  sessionToken: string;
  end(reason: EndReason): void;
}

export interface OpenStreamCount {
  open: number;
}

export interface StreamRegistryOptions {
  db: Database;
  log: FastifyBaseLogger;
  /** Sign-outs, revocations and password changes in this process: each triggers a re-check. */
  sessionChanges?: SessionChanges;
  maxPerUser?: number;
  recheckMs?: number;
  /** Kept at the number of streams open in this process (read by GET /metrics). */
  count?: OpenStreamCount;
}

export type StreamRegistry = ReturnType<typeof createStreamRegistry>;

/**
 * The open streams, per user in opening order, and the checks that end them: a session that
 * is gone (sign-out, revocation, password change), a subscription that is no longer active
 * (at its period end, or revoked), and the per-user cap. Re-checks every recheckMs until
 * close(), which ends every stream (call it before the server waits for its connections).
 */
export function createStreamRegistry(options: StreamRegistryOptions) {
  const { db, log, count } = options;
  const maxPerUser = options.maxPerUser ?? MAX_STREAMS_PER_USER;
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
      log.warn({ err: error }, 'event stream: could not re-check the open streams');
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

  const stopListening = options.sessionChanges?.onChange(() => void sweep());
  const recheck = setInterval(() => void sweep(), options.recheckMs ?? STREAM_RECHECK_MS);
  recheck.unref();

  function endAll(reason: EndReason) {
    for (const userId of [...byUser.keys()]) endWhere(userId, reason, () => true);
  }

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
    endAll,
    /** Stops the re-checks and ends every stream; safe to call more than once. */
    close() {
      clearInterval(recheck);
      stopListening?.();
      endAll('server-closing');
    },
  };
}

/** An open server-sent-event stream: its socket, and its end. */
export interface EventStream {
  raw: ServerResponse;
  readonly ended: boolean;
  /** Runs once when the stream ends, for whatever reason. */
  onEnd(cleanUp: () => void): void;
  end(reason: EndReason): void;
}

/**
 * Takes over the reply and opens a stream: headers, the browser's reconnect delay, a
 * heartbeat, and the registration (which may end the user's oldest stream, or this one when a
 * check fails). The caller has verified the user and session (the dashboard gate).
 */
export function openEventStream(
  reply: FastifyReply,
  registry: StreamRegistry,
  owner: { userId: string; sessionToken: string },
): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  raw.write('retry: 3000\n\n');

  let ended = false;
  const cleanUps: Array<() => void> = [];
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const registered: OpenStream = {
    ...owner,
    end(reason) {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      for (const cleanUp of cleanUps) cleanUp();
      registry.remove(registered);
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
  raw.on('close', () => registered.end('disconnected'));
  registry.add(registered);
  return {
    raw,
    get ended() {
      return ended;
    },
    onEnd(cleanUp) {
      if (ended) cleanUp();
      else cleanUps.push(cleanUp);
    },
    end: (reason) => registered.end(reason),
  };
}
