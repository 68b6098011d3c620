// Live fan-out of new alerts: every instance's browsers hear every alert, whichever
// instance's engine produced it (the engine runs on one instance, browsers are connected to
// all of them). Through Redis pub/sub when REDIS_URL is set, else Postgres LISTEN/NOTIFY when
// DATABASE_URL is set, else in-process (the single-process embedded setup). The same channels
// carry the firings of users' own alert rules (issue 16), each addressed to its user, and
// stored-alert notices: after any instance stores alerts, every instance's recent alert log
// (recent.ts) reads the rows it does not hold yet.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { LiveAlert } from '../../shared/schemas/alerts.ts';
import type { RuleFiring } from '../../shared/schemas/alertRules.ts';

export type { LiveAlert };

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
  close(): Promise<void>;
}

/** Postgres NOTIFY channels belong to one database, so these need no namespace. */
const PG_CHANNEL = 'watos_alerts';
const PG_FIRINGS_CHANNEL = 'watos_rule_firings';
const PG_STORED_CHANNEL = 'watos_alerts_stored';

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
  };
}

/** A stored-alert notice's id, or null for anything else on the channel. */
function storedId(payload: string): number | null {
  const id = Number(payload);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
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
      ...listeners(local),
      async close() {
        local.removeAllListeners();
      },
    };
  }

  // A subscribed Redis connection can do nothing else, so listening gets its own.
  const subscriber = redis.duplicate();
  const ready = subscriber.subscribe(channel, firingChannel, storedChannel).then(() => undefined);
  subscriber.on('message', (from: string, payload: string) => {
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

  const onNotification = (message: pg.Notification) => {
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
      .then(() => current.query(`listen ${PG_CHANNEL}; listen ${PG_FIRINGS_CHANNEL}; listen ${PG_STORED_CHANNEL}`))
      .then(() => undefined);
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
    ...listeners(local),
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      local.removeAllListeners();
      await client.end().catch(() => undefined);
    },
  };
}
