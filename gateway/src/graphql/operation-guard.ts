import { GraphQLError, Kind, type DocumentNode } from 'graphql';

function operationCount(document: DocumentNode): number {
  return document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length;
}

/**
 * The 400 answering a request that names no operation of its document (an unknown operationName,
 * or several operations and none named), before anything runs. Without it the cost check, which
 * looks the operation up by name, costed nothing, while the executor ran the document's only
 * operation anyway — and a mutation was committed, then reported as a 500.
 */
export function unresolvedOperationError(operationName: string | undefined, document: DocumentNode): GraphQLError {
  const message = operationName
    ? `Unknown operation named "${operationName}".`
    : `the document holds ${operationCount(document)} operations: name the one to run in operationName`;
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
}
