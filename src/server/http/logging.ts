// Request logging with pino through Fastify. Never logs secrets: cookies, authorization
// headers and credential-bearing query parameters (reset tokens, API keys) are redacted, and
// so are the parameters of a failed SQL query, which a database error carries in its message
// and its fields (a session token, when the session lookup is the query that failed), and the
// row values of a constraint violation, which PostgreSQL (and PGlite) put in the error's
// `detail` ("Failing row contains (..., carol@example.test, ...)", "Key (email)=(...)").
import type { FastifyServerOptions } from 'fastify';
import { stdSerializers } from 'pino';
import type { Config } from '../config.ts';

const SECRET_QUERY_KEYS = /^(token|code|key|apikey|api_key|password|secret|session_id|callbackurl)$/i;

export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const params = new URLSearchParams(url.slice(question + 1));
  for (const key of [...params.keys()]) {
    if (SECRET_QUERY_KEYS.test(key)) params.set(key, '[redacted]');
  }
  return `${url.slice(0, question)}?${params.toString()}`;
}

/** Drizzle's "Failed query: ...\nparams: a,b" and node-postgres' parameter fields. */
const QUERY_PARAMS_LINE = /\nparams: [^\n]*/g;
const PARAMETER_KEYS = new Set(['params', 'parameters']);
/** A not-null or check violation's row: "Failing row contains (id, null, carol@..., ...)." */
const FAILING_ROW = /Failing row contains [^\n]*/g;
/** A unique, foreign-key or exclusion violation's values: "Key (email)=(carol@...) already exists."
 * The column list ends at the first ")=(" (an expression index has parentheses of its own);
 * everything after it on the line is values. */
const KEY_VALUES = /\b(Key \([^\n]*?\))=\([^\n]*/gi;
const scrubText = (text: string) =>
  text
    .replace(QUERY_PARAMS_LINE, '\nparams: [redacted]')
    .replace(FAILING_ROW, 'Failing row contains ([redacted])')
    .replace(KEY_VALUES, '$1=([redacted])');

/**
 * A database error's `detail`: only the known shapes survive, without their values (which
 * columns clashed is worth keeping; what was in them is not). Any other detail is dropped
 * whole: PostgreSQL puts input fragments in details of other errors too.
 */
function redactDetail(detail: string): string {
  const key = /^Key \([^\n]*?\)=\(/i.exec(detail);
  if (key) return `${key[0]}[redacted])`;
  if (detail.startsWith('Failing row contains')) return 'Failing row contains ([redacted])';
  return '[redacted]';
}

/**
 * A copy of a logged value without SQL query parameters or row values: in strings, in
 * `params` fields, in errors (own fields, `detail`, message, stack and causes; same class, so
 * the same logged `type`) and in plain objects and arrays. Anything else is passed through.
 */
export function withoutQueryParameters(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  // Deeper than any error chain we log: dropped rather than printed unscrubbed.
  if (depth > 6) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => withoutQueryParameters(item, depth + 1));
  const prototype = Object.getPrototypeOf(value) as object | null;
  const isError = value instanceof Error;
  if (!isError && prototype !== Object.prototype && prototype !== null) return value;
  const copy = Object.create(prototype) as Record<string, unknown>;
  // An error's message and stack are own but not enumerable.
  for (const key of isError ? Object.getOwnPropertyNames(value) : Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    const scrubbed = PARAMETER_KEYS.has(key)
      ? '[redacted]'
      : isError && key === 'detail' && typeof field === 'string'
        ? redactDetail(field)
        : withoutQueryParameters(field, depth + 1);
    // Defined, not assigned: an own key named '__proto__' (JSON.parse makes those) stays a key.
    Object.defineProperty(copy, key, { value: scrubbed, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

export function loggerOptions(config: Config): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.apiKey'],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), ip: request.ip, id: request.id };
      },
      err: (error: Error) => stdSerializers.err(withoutQueryParameters(error) as Error),
      // Better Auth's extra log arguments (auth/auth.ts): they may hold database errors too.
      detail: (value: unknown) => withoutQueryParameters(value),
    },
  };
}
