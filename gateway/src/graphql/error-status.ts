import type { HTTPGraphQLHead } from '@apollo/server';
import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError } from 'graphql';
import { ClientFacingError, ServiceUnavailableError } from '../errors.js';

/**
 * Gives a GraphQL response the HTTP status of what went wrong: 503 + Retry-After when Postgres is
 * unavailable, 4xx for bad input or missing credentials (failed responses are never cached); what
 * failed unexpectedly is logged, since its answer hides the message.
 */
export function setErrorStatus(errors: readonly GraphQLError[], response: { http: HTTPGraphQLHead }, log: FastifyBaseLogger): void {
  for (const error of errors) {
    const cause = unexpectedCause(error);
    if (cause) log.error({ err: cause, path: error.path }, 'GraphQL field failed unexpectedly');
  }
  const causes = errors.map((error) => error.originalError).filter((cause) => cause instanceof ClientFacingError);
  const unavailable = causes.find((cause) => cause instanceof ServiceUnavailableError);
  if (unavailable) {
    response.http.status = 503;
    response.http.headers.set('retry-after', String(unavailable.retryAfterSeconds));
  } else if (causes[0] && (response.http.status ?? 200) === 200) {
    response.http.status = causes[0].statusCode;
  }
}

/**
 * What a resolver threw that is neither a GraphQL error nor one of the gateway's client-facing
 * errors: a bug or an unexpected database error, whose message may name tables and columns.
 */
function unexpectedCause(error: unknown): Error | undefined {
  const cause = (error as { originalError?: unknown })?.originalError;
  return cause instanceof Error && !(cause instanceof GraphQLError) && !(cause instanceof ClientFacingError) ? cause : undefined;
}

/**
 * Adds the error code of gateway errors to the GraphQL error's extensions, and hides what an
 * unexpected error says behind a generic message, as REST answers a 500 (it is logged instead).
 */
export function formatGatewayError<T extends { message: string; extensions?: Record<string, unknown> }>(formatted: T, error: unknown): T {
  const cause = (error as { originalError?: unknown })?.originalError;
  if (cause instanceof ClientFacingError) {
    return { ...formatted, extensions: { ...formatted.extensions, code: cause.code } };
  }
  if (unexpectedCause(error)) return { ...formatted, message: 'internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  return formatted;
}
