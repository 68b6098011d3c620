// The one fetch wrapper for our JSON API: same-origin, cookies included, errors surfaced as
// ApiError carrying the server's { error } text, and every answer parsed with the shared zod
// schema the server serialised it with, so a change on one side fails loudly, not as
// `undefined` deep in a component.
import type { z } from 'zod';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const UNEXPECTED_RESPONSE = 'The server sent an answer this page does not understand. Please reload the page.';

function requestHeaders(init: RequestInit): Headers {
  const headers = new Headers(init.headers);
  if (init.body !== undefined && !(init.body instanceof FormData) && !headers.has('Content-Type')) {
    headers.set('Content-Type', 'application/json');
  }
  return headers;
}

/** The server's { error } text of a failed answer, or a generic one. */
function errorFromBody(status: number, body: unknown): ApiError {
  const message = (body as { error?: unknown } | undefined)?.error;
  return new ApiError(status, typeof message === 'string' ? message : `API error: ${status}`);
}

/** Parses a successful answer's body with its schema (ApiError when it does not match). */
export function parseBody<S extends z.ZodType>(schema: S, status: number, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    console.error('Unexpected API response', parsed.error.issues);
    throw new ApiError(status, UNEXPECTED_RESPONSE);
  }
  return parsed.data;
}

function parseText(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls a JSON endpoint and returns its body parsed with `schema`; `null` for endpoints that
 * answer without a body (204). The schema may be a promise: pages on the landing route pass
 * a lazily imported one, so zod stays out of its initial JS (scripts/bundleBudget.mjs) and
 * loads while the request is under way.
 */
export async function apiFetch<S extends z.ZodType>(
  path: string,
  schema: S | PromiseLike<S>,
  init?: RequestInit,
): Promise<z.output<S>>;
export async function apiFetch(path: string, schema: null, init?: RequestInit): Promise<void>;
export async function apiFetch(
  path: string,
  schema: z.ZodType | PromiseLike<z.ZodType> | null,
  init: RequestInit = {},
): Promise<unknown> {
  const response = await fetch(path, { credentials: 'same-origin', ...init, headers: requestHeaders(init) });
  const body = parseText(await response.text());
  if (!response.ok) throw errorFromBody(response.status, body);
  return schema ? parseBody(await schema, response.status, body) : undefined;
}

/**
 * A schema imported the first time an answer needs it (apiFetch awaits it once the response is
 * there), for the dashboard's API modules: building zod schemas at module load cost more than
 * the dashboard's own first render on a phone, before the chart notice could paint
 * (docs/performance.md), and no answer needs them before it has arrived.
 */
export function schemaOnDemand<S>(load: () => Promise<S>): PromiseLike<S> {
  let loading: Promise<S> | undefined;
  return {
    then(onFulfilled, onRejected) {
      loading ??= load();
      return loading.then(onFulfilled, onRejected);
    },
  };
}

/** Sends a JSON body with `method` and parses the answer with `schema`. */
export function apiSend<S extends z.ZodType>(
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  schema: S | PromiseLike<S>,
  body?: unknown,
): Promise<z.output<S>> {
  return apiFetch(path, schema, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}
