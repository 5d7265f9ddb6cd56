import type { FastifyError, FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { ErrorObject } from 'ajv';
import { ClientFacingError, ServiceUnavailableError } from '../errors.js';
import { validationMessage } from '../validation/ajv.js';
import type { FailureLog } from './failure-log.js';

/**
 * Every error leaves as `{"error": "..."}` naming the problem: our own errors with their status,
 * Fastify's (validation, malformed JSON, 413, 415…) with theirs, and only real bugs as 500s,
 * whose details stay in the log.
 */
export function installErrorHandler(app: FastifyInstance, failures: FailureLog): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ServiceUnavailableError) {
      reply.header('retry-after', String(error.retryAfterSeconds));
    }
    const status = error instanceof ClientFacingError ? error.statusCode : (error.statusCode ?? 500);
    if (status >= 500) failures.failed(status, error, { reqId: request.id, method: request.method, url: request.url });
    const message = status >= 500 && !(error instanceof ClientFacingError) ? 'internal server error' : error.message;
    return reply
      .code(status)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ error: message }));
  });

  app.setNotFoundHandler((request, reply) => reply.code(404).send({ error: `no route ${request.method} ${request.url.split('?')[0]}` }));
}

/** Validation messages that name the field: `invalid querystring: count must be <= 100`. */
export function formatValidationError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const [first] = errors;
  if (!first) return new Error(`invalid ${dataVar}`);
  const field = first.instancePath ? first.instancePath.replace(/^\//, '').replaceAll('/', '.') : dataVar;
  const unknown =
    first.keyword === 'additionalProperties' ? (first.params as { additionalProperty?: string }).additionalProperty : undefined;
  const problem = unknown ? `has unknown field "${unknown}"` : (validationMessage(errors as ErrorObject[])?.message ?? 'is invalid');
  return new Error(`invalid ${dataVar}: ${field} ${problem}`);
}
