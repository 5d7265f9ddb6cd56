import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import type { ErrorObject } from 'ajv';
import { ClientFacingError, ServiceUnavailableError } from '../errors.js';
import { validationMessage } from '../validation/ajv.js';
import { restErrorBody } from './error-bodies.js';
import type { FailureLog } from './failure-log.js';

/** An error's answer, as the response writer takes it (pipeline/response-writer.ts). */
export interface ErrorAnswer {
  status: number;
  headers?: [name: string, value: string][];
  body: string;
}

/** Writes an error's answer to a request Fastify has: the pipeline's one response writer. */
export type RespondWithError = (request: FastifyRequest, reply: FastifyReply, answer: ErrorAnswer) => FastifyReply;

/**
 * Every error leaves as `{"error": "..."}` naming the problem: our own errors with their status,
 * Fastify's (validation, malformed JSON, 413, 415…) with theirs, and only real bugs as 500s,
 * whose details stay in the log.
 */
export function installErrorHandler(app: FastifyInstance, failures: FailureLog, respond: RespondWithError): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const headers: [string, string][] | undefined =
      error instanceof ServiceUnavailableError ? [['retry-after', String(error.retryAfterSeconds)]] : undefined;
    const status = error instanceof ClientFacingError ? error.statusCode : (error.statusCode ?? 500);
    if (status >= 500) failures.failed(status, error, { reqId: request.id, method: request.method, url: request.url });
    const message = status >= 500 && !(error instanceof ClientFacingError) ? 'internal server error' : error.message;
    return respond(request, reply, { status, headers, body: restErrorBody(message) });
  });

  app.setNotFoundHandler((request, reply) =>
    respond(request, reply, { status: 404, body: restErrorBody(`no route ${request.method} ${request.url.split('?')[0]}`) }),
  );
}

/**
 * Validation messages that name the field: `invalid querystring: count must be <= 100`; every
 * unknown query parameter (or body field) reported is named, with the parameters the route takes.
 */
export function formatValidationError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const [first] = errors;
  if (!first) return new Error(`invalid ${dataVar}`);
  const field = first.instancePath ? first.instancePath.replace(/^\//, '').replaceAll('/', '.') : dataVar;
  if (first.keyword === 'additionalProperties') return new Error(`invalid ${dataVar}: ${unknownNames(errors, first, dataVar, field)}`);
  return new Error(`invalid ${dataVar}: ${field} ${validationMessage(errors as ErrorObject[])?.message ?? 'is invalid'}`);
}

function unknownNames(errors: FastifySchemaValidationError[], first: FastifySchemaValidationError, dataVar: string, field: string): string {
  const names = errors
    .filter((error) => error.keyword === 'additionalProperties' && error.instancePath === first.instancePath)
    .map((error) => `"${(error.params as { additionalProperty?: string }).additionalProperty}"`);
  const plural = names.length === 1 ? '' : 's';
  if (dataVar !== 'querystring' || first.instancePath) return `${field} has unknown field${plural} ${names.join(', ')}`;
  const known = Object.keys((first as ErrorObject).parentSchema?.properties ?? {});
  return `unknown parameter${plural} ${names.join(', ')} (this route takes ${known.length > 0 ? known.join(', ') : 'none'})`;
}
