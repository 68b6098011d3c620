// One upstream WebSocket that stays up (issue 34; why our own: ADR 0023): the connection discipline the streaming feeds
// share (Coinbase's feed, Alpaca's). It opens while its owner has something to carry, reopens a
// lost connection after an exponential backoff with full jitter, ends a connection that has been
// silent too long (terminate: a silent peer would not answer a closing handshake) and reopens it,
// and tells its owner when a connection opens (and whether it replaces a lost one, so the owner
// can resubscribe and report the gap). What to send and how to read messages is the owner's.
import WebSocket from 'ws';
import { messageText, type FeedLog } from './listeners.ts';

/** Full jitter (uniform in [0, min(cap, base * 2^attempt)]): reconnecting clients spread out. */
export function fullJitterDelay(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  return random() * Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
}

export interface ReconnectingSocketOptions {
  url: string;
  /** Names the upstream in log lines. */
  name: string;
  WebSocket?: typeof WebSocket;
  /** A connection with no message (nor pong) for this long is ended and reopened. */
  silenceMs: number;
  /**
   * Sends a WebSocket ping this often while open, for upstreams quiet by nature (Alpaca outside
   * trading hours): the pong proves the connection alive. Unset: only messages count.
   */
  pingMs?: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  connectTimeoutMs: number;
  random: () => number;
  log: FeedLog;
  /** A connection opened; `afterLoss` when it replaces one that was lost (not closed by us). */
  onOpen(afterLoss: boolean): void;
  onText(text: string): void;
  /** The open connection went away (lost, or closed by us). */
  onDown(): void;
}

export interface ReconnectingSocket {
  /** Whether a connection should exist: true opens one (if none), false closes it on purpose. */
  setActive(active: boolean): void;
  /** Sends JSON on the open connection; false when there is none. */
  send(message: object): boolean;
  isOpen(): boolean;
  /** The upstream answered sensibly: the next failure starts its backoff from the bottom. */
  succeeded(): void;
  close(): Promise<void>;
}

export function createReconnectingSocket(options: ReconnectingSocketOptions): ReconnectingSocket {
  const Client = options.WebSocket ?? WebSocket;
  const { log } = options;
  let socket: WebSocket | null = null;
  let open = false;
  let active = false;
  let closed = false;
  let attempt = 0;
  /** A connection was lost (not closed by us): the next open is a reconnection. */
  let lost = false;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let watchdog: NodeJS.Timeout | null = null;
  let pinger: NodeJS.Timeout | null = null;
  let lastHeardAt = 0;

  function stopTimers(): void {
    if (watchdog) clearTimeout(watchdog);
    if (pinger) clearInterval(pinger);
    watchdog = null;
    pinger = null;
  }

  function checkSilence(): void {
    watchdog = null;
    if (!socket || !open) return;
    const silentFor = performance.now() - lastHeardAt;
    if (silentFor < options.silenceMs) {
      watchdog = setTimeout(checkSilence, options.silenceMs - silentFor);
      return;
    }
    log.warn({ upstream: options.name, silentMs: Math.round(silentFor) }, 'upstream silent too long: reconnecting');
    socket.terminate();
  }

  function scheduleReconnect(): void {
    if (closed || !active || reconnectTimer) return;
    const delay = fullJitterDelay(attempt, options.backoffBaseMs, options.backoffCapMs, options.random);
    attempt += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
  }

  function connect(): void {
    if (closed || socket || !active) return;
    let client: WebSocket;
    try {
      client = new Client(options.url, { handshakeTimeout: options.connectTimeoutMs });
    } catch (error) {
      log.warn({ upstream: options.name, err: error }, 'upstream connection could not start');
      lost = true;
      scheduleReconnect();
      return;
    }
    socket = client;
    const heard = () => {
      if (client === socket) lastHeardAt = performance.now();
    };
    client.on('open', () => {
      if (client !== socket) return;
      open = true;
      const afterLoss = lost;
      lost = false;
      lastHeardAt = performance.now();
      checkSilence();
      if (options.pingMs !== undefined) pinger = setInterval(() => client.ping(), options.pingMs);
      options.onOpen(afterLoss);
    });
    client.on('pong', heard);
    client.on('message', (data: WebSocket.RawData) => {
      if (client !== socket) return;
      heard();
      options.onText(messageText(data));
    });
    client.on('error', (error: Error) => {
      log.warn({ upstream: options.name, err: error }, 'upstream connection failed');
    });
    client.on('close', () => {
      if (client !== socket) return;
      const wasOpen = open;
      socket = null;
      open = false;
      stopTimers();
      if (wasOpen) options.onDown();
      if (closed || !active) return;
      lost = true;
      scheduleReconnect();
    });
  }

  return {
    setActive(next) {
      if (closed) return;
      active = next;
      if (active) {
        if (!socket && !reconnectTimer) connect();
        return;
      }
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      lost = false;
      stopTimers();
      // Forgotten before it closes, so its 'close' neither reconnects nor touches the next socket.
      const client = socket;
      const wasOpen = open;
      socket = null;
      open = false;
      if (wasOpen) options.onDown();
      client?.close();
    },
    send(message) {
      if (!socket || !open) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
    isOpen: () => open,
    succeeded() {
      attempt = 0;
    },
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      stopTimers();
      const client = socket;
      if (!client) return;
      await new Promise<void>((resolve) => {
        client.once('close', () => resolve());
        client.terminate();
      });
    },
  };
}
