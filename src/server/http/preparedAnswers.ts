// Prepared answers: a dashboard GET whose answer is the same bytes for every subscriber until
// its data changes (the price snapshot every subscriber polls; the alert log's recent window,
// which nearly every dashboard asks for with the same query text) is answered from those bytes
// before Fastify sees the request, once Fastify has answered that request once.
//
// Why: a cached price poll cost about 150 us of the server's one thread, 60% more than a bare
// Fastify hello-world, and nearly all of it was the framework's per-request work (the request
// and reply objects, a child logger, routing, seven hooks and their promises), not the answer;
// a plain Node handler writing the same headers and body costs about what hello-world does.
//
// How it stays the same answer:
// - The bytes are Fastify's own. The route's onSend hook (`share`, last of its onSend hooks,
//   after the security headers and the encoding were set) keeps the headers and the payload
//   of a 200 it sends with sendShared, by the request's exact URL and the encoding its
//   Accept-Encoding chooses, with the query Fastify validated for it.
// - They are used only while the route's `current(query)` is the body they were kept with:
//   when the data changes, the next request of each URL and encoding goes through Fastify.
// - Only a request Fastify would answer the same way is answered here: a GET (not HEAD) of a
//   URL Fastify answered (the same text: no other spelling), without a body, whose session
//   cookie holds a current dashboard grant (`granted`: the access cache the dashboard's
//   subscription hook fills and every sign-out, revocation and password change clears).
//   Everything else (no cookie, an expired grant, a new URL, an unusual encoding) goes to
//   Fastify, which checks, answers and logs it as always.
// - Not while each request is logged (LOG_LEVEL info or lower, Fastify's request log), and not
//   once the app is closing (Fastify answers 503 then).
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { encodingOfHeader, sharedBodyOf, type SharedBody } from './compression.ts';

/** One kept answer: Fastify's headers and payload for one URL and encoding. */
interface KeptAnswer {
  body: SharedBody;
  /** The query Fastify validated for this URL (what `current` is asked with). */
  query: unknown;
  /** Name, value, name, value... as Fastify set them, with the payload's Content-Length. */
  headers: string[];
  payload: Buffer;
}

interface PreparedRoute {
  current: (query: unknown) => SharedBody | undefined;
  /** By the encoding the request's Accept-Encoding chooses ('identity' for none) and the URL. */
  kept: Map<string, KeptAnswer>;
}

/** The most URLs and encodings kept a route; all are dropped together when full. */
const MAX_KEPT = 256;

export interface PreparedAnswersOptions {
  /** Whether these request headers carry a current dashboard grant (no database here). */
  granted(headers: IncomingHttpHeaders): boolean;
  /** Whether every request is being logged (then Fastify must see each one). */
  logsRequests(): boolean;
}

export interface PreparedAnswers {
  /**
   * Prepares the GET answers of the route at `path` (its URLs with any query) while
   * `current(query)` returns the body the route would send now for that validated query
   * (undefined: the data is stale or must be read, and the route must run). Returns the
   * route's onSend hook, which keeps what Fastify sends; the route sends its body with
   * sendShared.
   */
  share(path: string, current: (query: unknown) => SharedBody | undefined): onSendHookHandler;
  /** Answers the request if it is one it prepared; false leaves it to Fastify. */
  answer(req: IncomingMessage, res: ServerResponse): boolean;
  /** Answers nothing more (the app is closing). */
  stop(): void;
  /** How many requests were answered here (tests and the bench read it). */
  readonly answered: number;
}

const keyOf = (acceptEncoding: string | undefined, url: string) =>
  `${encodingOfHeader(acceptEncoding) ?? 'identity'} ${url}`;

/** A request target's path: what comes before its query. */
function pathOf(url: string): string {
  const question = url.indexOf('?');
  return question === -1 ? url : url.slice(0, question);
}

/** Whether the request carries a body (Fastify would read and check it). */
function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}

/** Fastify's headers for a reply, flattened, with the payload's length. */
function flatHeaders(reply: FastifyReply, payloadLength: number): string[] | null {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined) continue;
    // Nothing a client is given for itself: such an answer is not the same for everyone.
    if (name === 'set-cookie') return null;
    if (name === 'content-length') continue;
    for (const item of Array.isArray(value) ? value : [value]) flat.push(name, String(item));
  }
  flat.push('content-length', String(payloadLength));
  return flat;
}

export function createPreparedAnswers(options: PreparedAnswersOptions): PreparedAnswers {
  const routes = new Map<string, PreparedRoute>();
  let stopped = false;
  let answered = 0;

  return {
    share(path, current) {
      const route: PreparedRoute = { current, kept: new Map() };
      routes.set(path, route);
      return function keepAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done) {
        const body = sharedBodyOf(reply);
        const url = request.raw.url ?? '';
        if (
          body !== undefined &&
          reply.statusCode === 200 &&
          request.method === 'GET' &&
          pathOf(url) === path &&
          Buffer.isBuffer(payload) &&
          body === current(request.query)
        ) {
          const key = keyOf(request.headers['accept-encoding'], url);
          // Kept already (another user's first request, a grant renewed): nothing to redo.
          const headers = route.kept.get(key)?.body === body ? null : flatHeaders(reply, payload.length);
          if (headers) {
            if (route.kept.size >= MAX_KEPT) route.kept.clear();
            route.kept.set(key, { body, query: request.query, headers, payload });
          }
        }
        done(null, payload);
      };
    },

    answer(req, res) {
      if (stopped || req.method !== 'GET') return false;
      const url = req.url ?? '';
      const route = routes.get(pathOf(url));
      if (!route) return false;
      const headers = req.headers;
      const kept = route.kept.get(keyOf(headers['accept-encoding'], url));
      if (!kept || kept.body !== route.current(kept.query) || hasBody(headers)) return false;
      if (options.logsRequests() || !options.granted(headers)) return false;
      res.writeHead(200, kept.headers);
      res.end(kept.payload);
      answered += 1;
      return true;
    },

    stop() {
      stopped = true;
      for (const route of routes.values()) route.kept.clear();
    },

    get answered() {
      return answered;
    },
  };
}

/**
 * Puts `prepared` in front of Fastify's request listener on its server (in its place, so
 * every listener added later, such as http/timeouts.ts's, still runs after it).
 */
export function answerPreparedFirst(server: Server, prepared: PreparedAnswers): void {
  const listeners = server.listeners('request');
  if (listeners.length !== 1) {
    throw new Error(`Expected only Fastify's request listener on the server, found ${listeners.length}`);
  }
  const fastify = listeners[0] as (req: IncomingMessage, res: ServerResponse) => void;
  server.removeListener('request', fastify);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!prepared.answer(req, res)) fastify(req, res);
  });
}
