// The JSON error shape of every 4xx/5xx answer: { "error": "<clear message>" }.
// Expected failures throw a DomainError (services) or HttpError (the HTTP layer) with the text
// the trader should read, and become HTTP here and nowhere else; anything else is
// logged with its context and answered with a generic message, never a stack trace.
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DOMAIN_ERROR_STATUS, DomainError } from '../errors/domain.ts';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: { issue?: { path?: PropertyKey[]; message?: string } };
}

function describeValidation(context: string | undefined, issues: ValidationIssue[]): string {
  return issues
    .map((issue) => {
      const path =
        issue.params?.issue?.path?.map(String).join('.') ||
        issue.instancePath?.replace(/^\//, '').replaceAll('/', '.') ||
        '';
      // An issue about the whole body or query (a cross-field rule) needs no location.
      return path
        ? `${path}: ${issue.message ?? 'is invalid'}`
        : (issue.message ?? `${context ?? 'request'} is invalid`);
    })
    .join('; ');
}

async function errorHandlingPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof DomainError) {
      const { retryAfterSeconds, ...details } = error.details;
      if (typeof retryAfterSeconds === 'number')
        reply.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
      return reply.code(DOMAIN_ERROR_STATUS[error.kind]).send({ ...details, error: error.message });
    }
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).send({ error: error.message });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      return reply.code(400).send({ error: describeValidation(error.validationContext, error.validation) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: error.message });
    }
    if (hasSqlState(error, /^22/)) {
      // SQLSTATE class 22 (data exception): a value the database cannot take, such as a NUL
      // character in a text parameter. The client sent it; nothing was stored.
      return reply.code(400).send({
        error: 'The request holds a value that cannot be stored or searched for (for example a NUL character).',
      });
    }
    if (await databaseUnavailable(request.server, error)) {
      request.log.warn({ err: error }, 'request failed: the database is not answering');
      return reply.code(503).header('Retry-After', '5').send({ error: DATABASE_UNAVAILABLE });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'Internal server error' });
  });
}

/** The app's error answers; registered first, so every other plugin's errors get them. */
export const errorHandling = fp(errorHandlingPlugin, { name: 'watos-error-handling', fastify: '5.x' });

/** Whether a PostgreSQL error code in the error's cause chain matches. */
function hasSqlState(error: unknown, pattern: RegExp): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 6; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && pattern.test(code)) return true;
    current = cause;
  }
  return false;
}

const DATABASE_UNAVAILABLE = 'The service is briefly unavailable. Please try again in a moment.';

const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|connection.*(closed|ended)|terminating connection|57P0[123]|08\d{3}/i;

/**
 * Whether a failure came from the database being unreachable (a restart, a network cut):
 * the error chain names a connection failure, or, when a library (Better Auth) wrapped it
 * away, the database does not answer a ping either. Those get a 503, not a 500.
 */
/** A string or number as text; anything else (an object, undefined) as ''. */
function scalarText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

async function databaseUnavailable(app: FastifyInstance, error: unknown): Promise<boolean> {
  for (let current: unknown = error, depth = 0; current && depth < 6; depth += 1) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (CONNECTION_FAILURE.test(`${scalarText(code)} ${scalarText(message)}`)) return true;
    current = cause;
  }
  const database = (app as Partial<Pick<FastifyInstance, 'services'>>).services?.database;
  if (!database) return false;
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, 2_000, 'timeout').unref());
  const answer = await Promise.race([
    database.ping().then(
      () => 'ok' as const,
      () => 'down' as const,
    ),
    timeout,
  ]);
  return answer !== 'ok';
}
