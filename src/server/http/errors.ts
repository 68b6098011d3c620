// The JSON error shape of every 4xx/5xx answer: { "error": "<clear message>" }.
// Expected failures throw HttpError with the text the trader should read; anything else is
// logged with its context and answered with a generic message, never a stack trace.
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

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
      const path = issue.params?.issue?.path?.map(String).join('.') || issue.instancePath?.replace(/^\//, '').replaceAll('/', '.') || '';
      // An issue about the whole body or query (a cross-field rule) needs no location.
      return path ? `${path}: ${issue.message ?? 'is invalid'}` : (issue.message ?? `${context ?? 'request'} is invalid`);
    })
    .join('; ');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).send({ error: error.message });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      return reply.code(400).send({ error: describeValidation(error.validationContext, error.validation as ValidationIssue[]) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: error.message });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'Internal server error' });
  });
}
