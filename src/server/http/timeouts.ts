// Timeouts of the HTTP server against slow clients (issue 14, item 7: `Content-Length: 100000`
// at 1 byte / 5 s was held 125 s; 300 such connections held, none closed). What applies now:
// - headers: the request line and headers within `headersMs` (Node's headersTimeout, 408);
// - whole request: received within `requestMs` (Node's requestTimeout; 0: none). The default
//   fits the largest upload on a slow link, so only a hopeless upload meets it.
// Those two are Node's own, set when Fastify creates the server (serverTimeoutOptions, in
// buildApp). The next two are ours (applyHttpTimeouts, in main.ts): Node's socket timeout
// (Fastify's connectionTimeout) closes any connection silent for its time, a slow answer of
// the server's or a quiet event stream included, and nothing in Node or Fastify measures a
// body's rate (ADR 0016):
// - idle: while the server waits on the client (its headers or body, or reading the answer),
//   `idleMs` without a byte closes the connection. Waiting on the server itself (a slow AI
//   answer, a Stripe call) and a live event stream between two events are not the client's
//   silence and are left alone; an idle keep-alive connection follows keepAliveTimeout;
// - body rate: a body must bring at least `minBodyBytesPerSecond` on average over every
//   `idleMs` window, so a drip that is never quite idle is closed too (Apache's mod_reqtimeout
//   MinRate, default 500 B/s). Time during which the server itself holds the body back
//   (backpressure while it stores the file) does not count against the client.
// An upload that keeps arriving at a few kB/s is never cut.
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpTimeouts } from '../config.ts';

/** Fastify's server options for Node's own headers and whole-request timeouts. */
export function serverTimeoutOptions(timeouts: HttpTimeouts): { requestTimeout: number; http: ServerOptions } {
  const { headersMs, requestMs } = timeouts;
  const limits = [headersMs, requestMs].filter((ms) => ms > 0);
  return {
    requestTimeout: requestMs,
    http: {
      headersTimeout: headersMs,
      // Node enforces both in a sweep every connectionsCheckingInterval (30 s by default): sweep
      // often enough for the limits to mean what they say.
      connectionsCheckingInterval: Math.max(100, Math.min(5000, Math.floor(Math.min(...limits) / 4))),
    },
  };
}

/** How many checks of the body rate make one idle window. */
const TICKS_PER_WINDOW = 10;

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
}

interface Body extends Exchange {
  socket: Socket;
  /** socket.bytesRead at the start of the current window. */
  windowStart: number;
  /** Ticks of the current window during which the client, not the server, held the pace. */
  ticks: number;
}

interface Log {
  warn(details: object, message: string): void;
}

export const SLOW_BODY_ERROR = 'The upload was too slow and was stopped. Please check your connection and try again.';
export const IDLE_ERROR = 'Nothing arrived for too long and the request was stopped. Please try again.';

/** Answers 408 with a JSON error when nothing was answered yet, then closes the connection. */
function refuse(socket: Socket, res: ServerResponse | undefined, error: string): void {
  if (socket.writable && !res?.headersSent) {
    const body = JSON.stringify({ error });
    socket.write(
      `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Applies the idle and body-rate timeouts to a Node HTTP server (Fastify's app.server).
 * Returns a function that stops the body-rate checks (also stopped when the server closes).
 */
export function applyHttpTimeouts(
  server: Server,
  timeouts: Pick<HttpTimeouts, 'idleMs' | 'minBodyBytesPerSecond'>,
  log?: Log,
): () => void {
  const { idleMs, minBodyBytesPerSecond } = timeouts;
  server.setTimeout(idleMs);

  const current = new WeakMap<Socket, Exchange>();
  const bodies = new Set<Body>();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const exchange: Exchange = { req, res };
    current.set(socket, exchange);
    res.once('close', () => {
      if (current.get(socket) === exchange) current.delete(socket);
    });
    const hasBody = Number(req.headers['content-length']) > 0 || req.headers['transfer-encoding'] !== undefined;
    // Tracked until the body is complete or the connection gone, even after an early answer
    // (a 401 before the body is read): Node then reads the rest of the body to discard it.
    if (hasBody && minBodyBytesPerSecond > 0) bodies.add({ req, res, socket, windowStart: socket.bytesRead, ticks: 0 });
  });

  // With a listener here Node no longer destroys timed-out sockets itself: this decides.
  server.on('timeout', (socket: Socket) => {
    const exchange = current.get(socket);
    if (!exchange) {
      // Between requests (keep-alive) or before the headers were complete.
      socket.destroy();
      return;
    }
    const waitingOnServer = exchange.req.complete ? socket.writableLength === 0 : socket.isPaused();
    if (waitingOnServer) {
      socket.setTimeout(idleMs);
      return;
    }
    log?.warn(
      { remoteAddress: socket.remoteAddress, method: exchange.req.method, url: exchange.req.url },
      'idle client connection closed',
    );
    refuse(socket, exchange.res, IDLE_ERROR);
  });

  const windowBytes = (minBodyBytesPerSecond * idleMs) / 1000;
  const check = setInterval(() => {
    for (const body of bodies) {
      const { req, res, socket } = body;
      if (req.complete || socket.destroyed) {
        bodies.delete(body);
        continue;
      }
      if (socket.isPaused()) {
        // The server holds the body back: the client starts a fresh window once it reads again.
        body.windowStart = socket.bytesRead;
        body.ticks = 0;
        continue;
      }
      body.ticks += 1;
      if (body.ticks < TICKS_PER_WINDOW) continue;
      if (socket.bytesRead - body.windowStart < windowBytes) {
        bodies.delete(body);
        log?.warn(
          {
            remoteAddress: socket.remoteAddress,
            method: req.method,
            url: req.url,
            bytes: socket.bytesRead - body.windowStart,
            windowMs: idleMs,
          },
          'slow request body closed',
        );
        refuse(socket, res, SLOW_BODY_ERROR);
        continue;
      }
      body.windowStart = socket.bytesRead;
      body.ticks = 0;
    }
  }, idleMs / TICKS_PER_WINDOW);
  check.unref();
  const stop = () => clearInterval(check);
  server.once('close', stop);
  return stop;
}
