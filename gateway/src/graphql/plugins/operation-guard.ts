import type { GraphQLRequestListener } from '@apollo/server';
import { GraphQLError, Kind, type DocumentNode } from 'graphql';
import type { GraphQLContext } from '../context.js';

function operationCount(document: DocumentNode): number {
  return document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length;
}

/**
 * Answers 400 before anything runs when the request names no operation of its document (an
 * unknown operationName, or several operations and none named). Without this the cost check,
 * which looks the operation up by name, costed nothing, while the executor ran the document's
 * only operation anyway — and a mutation was committed, then reported as a 500.
 */
export const refuseUnresolvedOperation: NonNullable<GraphQLRequestListener<GraphQLContext>['didResolveOperation']> = async ({
  request,
  document,
  operation,
}) => {
  if (operation) return;
  const message = request.operationName
    ? `Unknown operation named "${request.operationName}".`
    : `the document holds ${operationCount(document)} operations: name the one to run in operationName`;
  throw new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
};
