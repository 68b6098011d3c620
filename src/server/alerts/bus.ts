// Live fan-out of new alerts: every instance's browsers hear every alert, whichever
// instance's engine produced it (the engine runs on one instance, browsers are connected to
// all of them). Through Redis pub/sub when REDIS_URL is set, else Postgres LISTEN/NOTIFY when
// DATABASE_URL is set, else in-process (the single-process embedded setup). The same channels
// carry the firings of users' own alert rules (issue 16), each addressed to its user, and
// stored-alert notices: after any instance stores alerts, every instance's recent alert log
// (recent.ts) reads the rows it does not hold yet.
// The live path (issue 34) rides the same transports: batches of coalesced ticks from the
// instances that own the symbols' feeds, and each instance's demand (the symbols its browsers
// watch), so the owners carry those symbols' feeds.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { LiveAlert } from '../../shared/schemas/alerts.ts';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';

export type { LiveAlert, LiveTick };

/** A rule's firing on its way to its owner's open dashboards. */
export interface UserFiring {
  userId: string;
  firing: RuleFiring;
}

export interface AlertBus {
  /** Resolves once this instance hears the shared channel. */
  ready: Promise<void>;
  publish(alerts: LiveAlert[]): Promise<void>;
  subscribe(listener: (alert: LiveAlert) => void): () => void;
  publishFirings(firings: UserFiring[]): Promise<void>;
  subscribeFirings(listener: (firing: UserFiring) => void): () => void;
  /** Tells every instance that alerts up to this id are stored. */
  publishStored(newestId: number): Promise<void>;
  subscribeStored(listener: (newestId: number) => void): () => void;
  /** A batch of ticks (already coalesced by the owner: live/hub.ts's createTickPublisher). */
  publishTicks(ticks: LiveTick[]): Promise<void>;
  /** Each batch as it arrives; listeners share the array and must not change it. */
  subscribeTicks(listener: (ticks: readonly LiveTick[]) => void): () => void;
  /**
   * The whole set of symbols this instance's browsers watch now (an empty set withdraws it);
   * each instance renews its demand every few seconds and the owners forget a silent one.
   */
  publishDemand(instanceId: string, symbols: readonly string[]): Promise<void>;
  subscribeDemand(listener: (instanceId: string, symbols: readonly string[]) => void): () => void;
  close(): Promise<void>;
}

/** Postgres NOTIFY channels belong to one database, so these need no namespace. */
const PG_CHANNEL = 'watos_alerts';
const PG_FIRINGS_CHANNEL = 'watos_rule_firings';
const PG_STORED_CHANNEL = 'watos_alerts_stored';
const PG_TICKS_CHANNEL = 'watos_ticks';
const PG_DEMAND_CHANNEL = 'watos_live_demand';
/**
 * A NOTIFY payload must stay under 8000 bytes: larger tick batches and demands go as several
 * notifications of at most this many bytes, sent in one statement (so one transaction: they
 * arrive together, in order, or not at all).
 */
export const PG_PAYLOAD_MAX = 7_900;

/** What every bus does the same: listeners on a local emitter. */
function listeners(local: EventEmitter) {
  return {
    subscribe(listener: (alert: LiveAlert) => void) {
      local.on('alert', listener);
      return () => local.off('alert', listener);
    },
    subscribeFirings(listener: (firing: UserFiring) => void) {
      local.on('firing', listener);
      return () => local.off('firing', listener);
    },
    subscribeStored(listener: (newestId: number) => void) {
      local.on('stored', listener);
      return () => local.off('stored', listener);
    },
    subscribeTicks(listener: (ticks: readonly LiveTick[]) => void) {
      local.on('ticks', listener);
      return () => local.off('ticks', listener);
    },
    subscribeDemand(listener: (instanceId: string, symbols: readonly string[]) => void) {
      local.on('demand', listener);
      return () => local.off('demand', listener);
    },
  };
}

/**
 * The ticks of a batch read from a channel that look like ticks; anything else (another
 * writer's message) is dropped. A shape check only: the owner made them from our own types.
 */
function ticksOf(items: unknown): LiveTick[] {
  if (!Array.isArray(items)) return [];
  return items.filter(
    (item): item is LiveTick =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as LiveTick).symbol === 'string' &&
      Number.isFinite((item as LiveTick).price) &&
      Number.isFinite((item as LiveTick).time),
  );
}

/**
 * One demand announcement on the wire: the instance, a sequence number, and part `part` of
 * `parts` of its symbols (one part except on Postgres when the set outgrows a payload).
 */
interface DemandPart {
  instance: string;
  seq: number;
  part: number;
  parts: number;
  symbols: string[];
}

/** JSON texts of at most maxBytes each (UTF-8), each holding a run of the items in order. */
export function splitJson<T>(items: readonly T[], wrap: (chunk: T[]) => unknown, maxBytes: number): string[] {
  const whole = JSON.stringify(wrap([...items]));
  if (Buffer.byteLength(whole) <= maxBytes || items.length <= 1) return [whole];
  const half = Math.ceil(items.length / 2);
  return [...splitJson(items.slice(0, half), wrap, maxBytes), ...splitJson(items.slice(half), wrap, maxBytes)];
}

let demandSeq = 0;

/** A demand as payloads of at most maxBytes each. */
function demandPayloads(instance: string, symbols: readonly string[], maxBytes: number): string[] {
  demandSeq += 1;
  const seq = demandSeq;
  const chunks: string[][] = [];
  // Split by size first (sets are small: a few hundred symbols of at most 20 characters).
  const texts = splitJson(symbols, (chunk) => chunk, maxBytes - 120);
  for (const text of texts) chunks.push(JSON.parse(text) as string[]);
  return chunks.map((chunk, part) =>
    JSON.stringify({ instance, seq, part, parts: chunks.length, symbols: chunk } satisfies DemandPart),
  );
}

/**
 * Reassembles demand announcements from their parts and emits each whole one. Parts of one
 * announcement arrive together and in order (one NOTIFY transaction, or one Redis message), so
 * only the newest announcement per instance is held while its parts come in.
 */
function demandReader(local: EventEmitter) {
  const assembling = new Map<string, { seq: number; symbols: string[]; next: number }>();
  return (payload: string) => {
    let message: DemandPart;
    try {
      message = JSON.parse(payload) as DemandPart;
    } catch {
      return;
    }
    const { instance, seq, part, parts, symbols } = message;
    if (typeof instance !== 'string' || !Array.isArray(symbols) || !Number.isInteger(parts) || parts < 1) return;
    const strings = symbols.filter((symbol): symbol is string => typeof symbol === 'string');
    if (parts === 1) {
      assembling.delete(instance);
      local.emit('demand', instance, strings);
      return;
    }
    let current = assembling.get(instance);
    if (part === 0) {
      current = { seq, symbols: [], next: 0 };
      assembling.set(instance, current);
    }
    // A part of an announcement whose start was missed is of no use.
    if (!current || current.seq !== seq || current.next !== part) return;
    current.symbols.push(...strings);
    current.next += 1;
    if (current.next === parts) {
      assembling.delete(instance);
      local.emit('demand', instance, current.symbols);
    }
  };
}

/** A stored-alert notice's id, or null for anything else on the channel. */
function storedId(payload: string): number | null {
  const id = Number(payload);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Emits a batch read from a channel, unless nothing in it is a tick. */
function emitTicks(local: EventEmitter, payload: string) {
  let items: unknown;
  try {
    items = JSON.parse(payload);
  } catch {
    // A malformed message from another writer on the channel is not ours to deliver.
    return;
  }
  const ticks = ticksOf(items);
  if (ticks.length > 0) local.emit('ticks', ticks);
}

/**
 * `redisPrefix` is the deployment's Redis namespace (config.redisPrefix): Redis pub/sub
 * channels are shared by every database number of a server, so without it another deployment
 * on the same Redis would hear our alerts and could push its own into our browsers.
 */
export function createAlertBus(redis?: Redis, databaseUrl?: string, redisPrefix = 'watos:'): AlertBus {
  const channel = `${redisPrefix}alerts`;
  const firingChannel = `${redisPrefix}rule-firings`;
  const storedChannel = `${redisPrefix}alerts-stored`;
  const ticksChannel = `${redisPrefix}ticks`;
  const demandChannel = `${redisPrefix}live-demand`;
  const local = new EventEmitter();
  local.setMaxListeners(0);
  if (!redis && databaseUrl) return createPostgresBus(local, databaseUrl);
  if (!redis) {
    return {
      ready: Promise.resolve(),
      async publish(alerts) {
        for (const alert of alerts) local.emit('alert', alert);
      },
      async publishFirings(firings) {
        for (const firing of firings) local.emit('firing', firing);
      },
      async publishStored(newestId) {
        local.emit('stored', newestId);
      },
      async publishTicks(ticks) {
        if (ticks.length > 0) local.emit('ticks', ticks);
      },
      async publishDemand(instanceId, symbols) {
        local.emit('demand', instanceId, [...symbols]);
      },
      ...listeners(local),
      async close() {
        local.removeAllListeners();
      },
    };
  }

  // A subscribed Redis connection can do nothing else, so listening gets its own.
  const subscriber = redis.duplicate();
  const ready = subscriber
    .subscribe(channel, firingChannel, storedChannel, ticksChannel, demandChannel)
    .then(() => undefined);
  const readDemand = demandReader(local);
  subscriber.on('message', (from: string, payload: string) => {
    if (from === ticksChannel) {
      emitTicks(local, payload);
      return;
    }
    if (from === demandChannel) {
      readDemand(payload);
      return;
    }
    if (from === storedChannel) {
      const id = storedId(payload);
      if (id !== null) local.emit('stored', id);
      return;
    }
    if (from !== channel && from !== firingChannel) return;
    try {
      const event = from === channel ? 'alert' : 'firing';
      for (const item of JSON.parse(payload) as unknown[]) local.emit(event, item);
    } catch {
      // A malformed message from another writer on the channel is not ours to deliver.
    }
  });
  return {
    ready,
    async publish(alerts) {
      if (alerts.length > 0) await redis.publish(channel, JSON.stringify(alerts));
    },
    async publishFirings(firings) {
      if (firings.length > 0) await redis.publish(firingChannel, JSON.stringify(firings));
    },
    async publishStored(newestId) {
      await redis.publish(storedChannel, String(newestId));
    },
    async publishTicks(ticks) {
      if (ticks.length > 0) await redis.publish(ticksChannel, JSON.stringify(ticks));
    },
    async publishDemand(instanceId, symbols) {
      for (const payload of demandPayloads(instanceId, symbols, Infinity)) await redis.publish(demandChannel, payload);
    },
    ...listeners(local),
    async close() {
      local.removeAllListeners();
      subscriber.disconnect();
    },
  };
}

/**
 * LISTEN/NOTIFY on a connection of its own; one notification per alert (payloads are small).
 * When that connection is lost (PostgreSQL restarting) it reconnects with backoff and listens
 * again; alerts published meanwhile fail for the engine to log, and browsers catch up through
 * Last-Event-ID replay from the alerts table.
 */
function createPostgresBus(local: EventEmitter, databaseUrl: string): AlertBus {
  let closed = false;
  let reconnectDelay = 500;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let client: pg.Client;

  const readDemand = demandReader(local);
  const onNotification = (message: pg.Notification) => {
    if (message.channel === PG_TICKS_CHANNEL) {
      emitTicks(local, message.payload ?? '');
      return;
    }
    if (message.channel === PG_DEMAND_CHANNEL) {
      readDemand(message.payload ?? '');
      return;
    }
    if (message.channel === PG_STORED_CHANNEL) {
      const id = storedId(message.payload ?? '');
      if (id !== null) local.emit('stored', id);
      return;
    }
    if ((message.channel !== PG_CHANNEL && message.channel !== PG_FIRINGS_CHANNEL) || !message.payload) return;
    try {
      local.emit(message.channel === PG_CHANNEL ? 'alert' : 'firing', JSON.parse(message.payload) as unknown);
    } catch {
      // A malformed notification from another writer on the channel is not ours to deliver.
    }
  };

  function scheduleReconnect() {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      ready = connect().then(
        () => {
          reconnectDelay = 500;
        },
        () => {
          reconnectDelay = Math.min(reconnectDelay * 2, 30_000);
          scheduleReconnect();
        },
      );
    }, reconnectDelay);
    reconnectTimer.unref();
  }

  function connect(): Promise<void> {
    const current = new pg.Client({ connectionString: databaseUrl });
    client = current;
    current.on('notification', onNotification);
    // Without a listener a lost connection would crash the process; 'end' follows and reconnects.
    current.on('error', () => undefined);
    current.on('end', () => {
      if (client === current) scheduleReconnect();
    });
    return current
      .connect()
      .then(() =>
        current.query(
          [PG_CHANNEL, PG_FIRINGS_CHANNEL, PG_STORED_CHANNEL, PG_TICKS_CHANNEL, PG_DEMAND_CHANNEL]
            .map((name) => `listen ${name};`)
            .join(' '),
        ),
      )
      .then(() => undefined);
  }

  /** Several payloads on one channel in one statement: one transaction, delivered together. */
  async function notifyAll(channel: string, payloads: readonly string[]) {
    if (payloads.length === 0) return;
    await ready;
    const calls = payloads.map((_, index) => `pg_notify($1, $${index + 2})`).join(', ');
    await client.query(`select ${calls}`, [channel, ...payloads]);
  }

  let ready = connect();
  // Awaited by publish and by start-up; this only keeps an early failure from being unhandled.
  ready.catch(() => undefined);
  return {
    get ready() {
      return ready;
    },
    async publish(alerts) {
      await ready;
      for (const alert of alerts) await client.query('select pg_notify($1, $2)', [PG_CHANNEL, JSON.stringify(alert)]);
    },
    async publishFirings(firings) {
      await ready;
      for (const firing of firings)
        await client.query('select pg_notify($1, $2)', [PG_FIRINGS_CHANNEL, JSON.stringify(firing)]);
    },
    async publishStored(newestId) {
      await ready;
      await client.query('select pg_notify($1, $2)', [PG_STORED_CHANNEL, String(newestId)]);
    },
    async publishTicks(ticks) {
      if (ticks.length === 0) return;
      await notifyAll(
        PG_TICKS_CHANNEL,
        splitJson(ticks, (chunk) => chunk, PG_PAYLOAD_MAX),
      );
    },
    async publishDemand(instanceId, symbols) {
      await notifyAll(PG_DEMAND_CHANNEL, demandPayloads(instanceId, symbols, PG_PAYLOAD_MAX));
    },
    ...listeners(local),
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      local.removeAllListeners();
      await client.end().catch(() => undefined);
    },
  };
}
