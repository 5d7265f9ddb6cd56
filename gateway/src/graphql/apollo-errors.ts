import type { HTTPGraphQLHead } from '@apollo/server';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { GraphQLError, Kind, type GraphQLErrorOptions, type GraphQLFormattedError } from 'graphql';
import { formatGatewayError } from './error-status.js';

/**
 * GraphQL errors as Apollo Server reports them (its request pipeline's error classes and its
 * formatting, which its package does not export): the operation runner answers with the very
 * codes, messages and statuses Apollo's own pipeline gave, so clients and plugins see no change.
 */

/** An error with Apollo's `code`, and the HTTP status it asks for (`extensions.http`, taken out when formatted). */
function withCode(message: string, code: string, options: GraphQLErrorOptions & { status?: number }): GraphQLError {
  const { status, extensions, ...rest } = options;
  return new GraphQLError(message, {
    ...rest,
    extensions: { ...(status === undefined ? {} : { http: { status } }), ...extensions, code },
  });
}

/** A query that does not parse: 400 GRAPHQL_PARSE_FAILED. */
export const syntaxError = (error: GraphQLError): GraphQLError =>
  withCode(error.message, ApolloServerErrorCode.GRAPHQL_PARSE_FAILED, {
    source: error.source,
    positions: error.positions,
    extensions: error.extensions,
    originalError: error,
    status: 400,
  });

/** A document that does not validate: 400 GRAPHQL_VALIDATION_FAILED. */
export const validationError = (error: GraphQLError): GraphQLError =>
  withCode(error.message, ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED, {
    nodes: error.nodes,
    extensions: error.extensions,
    originalError: error.originalError ?? error,
    status: 400,
  });

/** A request that cannot be run as sent: 400 BAD_REQUEST. */
export const badRequest = (message: string): GraphQLError => withCode(message, ApolloServerErrorCode.BAD_REQUEST, { status: 400 });

/**
 * An execution error that is a variable's value not coercing (graphql-js's messages, pointing at
 * the variable's definition) becomes BAD_USER_INPUT, as Apollo makes it; any other is kept.
 */
export function asUserInputError(error: GraphQLError): GraphQLError {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION || error.extensions?.code != null) return error;
  const variable = `Variable "$${node.variable.name.value}"`;
  const coercion = [' has invalid value', ' got invalid value ', ' of required type ', ' of non-null type '];
  if (!coercion.some((words) => error.message.startsWith(variable + words))) return error;
  return withCode(error.message, ApolloServerErrorCode.BAD_USER_INPUT, {
    nodes: error.nodes,
    originalError: error.originalError ?? error,
    extensions: error.extensions,
  });
}

/** What was thrown, as a GraphQL error (Apollo's `ensureGraphQLError`). */
export function asGraphQLError(thrown: unknown): GraphQLError {
  if (thrown instanceof GraphQLError) return thrown;
  if (thrown instanceof Error) return new GraphQLError(thrown.message, { originalError: thrown });
  return new GraphQLError(`Unexpected error value: ${String(thrown)}`);
}

const isPartialHead = (value: unknown): value is Partial<HTTPGraphQLHead> =>
  typeof value === 'object' &&
  value !== null &&
  (!('status' in value) || typeof value.status === 'number') &&
  (!('headers' in value) || value.headers instanceof Map);

/**
 * The errors as the response carries them (Apollo's `normalizeAndFormatErrors`): each gets a code
 * (INTERNAL_SERVER_ERROR when it has none) and goes through the gateway's formatter; the status
 * and headers an error asks for are moved onto `head`. A formatter that throws gives a generic
 * error, never the exception.
 */
export function formatErrors(errors: readonly GraphQLError[], head: HTTPGraphQLHead): GraphQLFormattedError[] {
  return errors.map((error) => {
    try {
      const extensions: Record<string, unknown> = {
        ...error.extensions,
        code: error.extensions.code ?? ApolloServerErrorCode.INTERNAL_SERVER_ERROR,
      };
      if (isPartialHead(extensions.http)) {
        const { status, headers } = extensions.http;
        if (status) head.status = status;
        if (headers) for (const [name, value] of headers) head.headers.set(name, value);
        delete extensions.http;
      }
      return formatGatewayError({ ...error.toJSON(), extensions }, error);
    } catch {
      return { message: 'Internal server error', extensions: { code: ApolloServerErrorCode.INTERNAL_SERVER_ERROR } };
    }
  });
}
