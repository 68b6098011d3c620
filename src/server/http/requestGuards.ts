// Request checks for the whole app, before any route's own code runs:
// - the path must be spelled the one way a browser sends it. Dot segments (`/./`, `/../`,
//   `%2e`), backslashes, doubled slashes and anything else the WHATWG URL parser would
//   rewrite are refused with 400, so the route Fastify picked and the path a library
//   re-parses (Better Auth reads `new URL(request.url)`) can never differ: no spelling of a
//   rate-limited endpoint reaches it through a catch-all route;
// - a JSON (or form) body may be nested at most MAX_BODY_DEPTH levels and hold no string
//   longer than MAX_BODY_STRING characters (the routes' own schemas set the tighter limits
//   of each field). The depth check also keeps every later walk of the body (serialising,
//   logging) clear of stack overflows.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from './errors.ts';

export const MAX_BODY_DEPTH = 32;
export const MAX_BODY_STRING = 100_000;

const PARSE_BASE = 'http://path.invalid';
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]*$/;

/** Why a raw request target is not in the canonical form, or null when it is. */
export function pathProblem(rawUrl: string): string | null {
  const end = rawUrl.search(/[?#]/);
  const path = end === -1 ? rawUrl : rawUrl.slice(0, end);
  // Nearly every request: segments of letters, digits, '_' and '-' only, none empty. Such a path
  // is canonical as it is (nothing to decode, no dot segment), so the URL parser can be spared.
  if (PLAIN_PATH.test(path)) return null;
  if (!path.startsWith('/')) return 'it must start with /';
  if (path.includes('//')) return 'it holds an empty segment (//)';
  if (path.includes('\\')) return 'it holds a backslash';
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path)) return 'it holds a . or .. segment';
  let parsed: string;
  try {
    parsed = new URL(path, PARSE_BASE).pathname;
  } catch {
    return 'it cannot be parsed';
  }
  return parsed === path ? null : 'it is not in canonical form';
}

/** Why a parsed body is out of bounds, or null. Iterative: a deep body cannot overflow the stack here. */
function bodyProblem(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) {
    return typeof body === 'string' && body.length > MAX_BODY_STRING
      ? `a text field is longer than ${MAX_BODY_STRING.toLocaleString('en-US')} characters`
      : null;
  }
  const pending: Array<[unknown, number]> = [[body, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (depth > MAX_BODY_DEPTH) return `it is nested more than ${MAX_BODY_DEPTH} levels deep`;
    const entries = Array.isArray(value) ? value : Object.entries(value as object).flat();
    for (const item of entries) {
      if (typeof item === 'string') {
        if (item.length > MAX_BODY_STRING)
          return `a text field is longer than ${MAX_BODY_STRING.toLocaleString('en-US')} characters`;
      } else if (item !== null && typeof item === 'object' && !Buffer.isBuffer(item)) {
        pending.push([item, depth + 1]);
      }
    }
  }
  return null;
}

async function requestGuardsPlugin(app: FastifyInstance): Promise<void> {
  // Callback hooks: they run on every request, and nearly always pass.
  app.addHook('onRequest', (request, _reply, done) => {
    const problem = pathProblem(request.raw.url ?? '');
    done(problem ? new HttpError(400, `The request path is not valid: ${problem}.`) : undefined);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = request.body === undefined ? null : bodyProblem(request.body);
    done(problem ? new HttpError(400, `The request body is not accepted: ${problem}.`) : undefined);
  });
}

/** Refusals are HttpErrors: the error handling answers them. */
export const requestGuards = fp(requestGuardsPlugin, {
  name: 'watos-request-guards',
  fastify: '5.x',
  dependencies: ['watos-error-handling'],
});
