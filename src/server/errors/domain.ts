// Domain errors: what a service says went wrong, in the words a trader should read, without
// knowing about HTTP. Services, the alert engine, the assistant's tools and the admin CLI
// throw and catch these; src/server/http/errors.ts turns them into HTTP answers in one place
// (DOMAIN_ERROR_STATUS below), and the admin CLI prints the message.

export type DomainErrorKind =
  | 'invalid' // the input breaks a rule (400)
  | 'unauthenticated' // nobody is signed in (401)
  | 'payment-required' // the action needs a paid plan (402)
  | 'forbidden' // signed in, but not allowed (403)
  | 'not-found' // no such thing, or not the caller's (404)
  | 'conflict' // the current state does not allow it (409)
  | 'gone' // it existed and no longer does (410)
  | 'too-large' // the input is bigger than allowed (413)
  | 'unsupported' // a format we do not take (415)
  | 'unprocessable' // well-formed but cannot be used (422)
  | 'rate-limited' // too many tries; wait (429)
  | 'unavailable' // a dependency is down; try again soon (503)
  | 'upstream' // an outside service answered wrongly (502)
  | 'timeout'; // an outside service did not answer in time (504)

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Extra fields for the client (kept small and safe to show), e.g. { retryAfterSeconds }. */
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);
export const invalid = (message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', message, details);
export const notFound = (message: string) => new DomainError('not-found', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new DomainError('conflict', message, details);
export const tooLarge = (message: string) => new DomainError('too-large', message);
export const unprocessable = (message: string) => new DomainError('unprocessable', message);
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new DomainError('rate-limited', message, { retryAfterSeconds });
export const unavailable = (message: string, retryAfterSeconds?: number) =>
  new DomainError('unavailable', message, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });

/** The HTTP status of each kind: the only place a domain error meets HTTP. */
export const DOMAIN_ERROR_STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  'payment-required': 402,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  'too-large': 413,
  unsupported: 415,
  unprocessable: 422,
  'rate-limited': 429,
  unavailable: 503,
  upstream: 502,
  timeout: 504,
};

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
