import { HeaderMap, type GraphQLRequestListener } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/**
 * Answers an operation the response cache answered (context.cached) instead of executing it, the
 * way Apollo's own response cache plugin does: in responseForOperation, after the operation is
 * resolved and checked, so no execution hook runs, and with `metrics.responseCacheHit` set. The
 * route sends the cached bytes (with their ETag): the result is given here for the plugins.
 */
export const answerFromCache: NonNullable<GraphQLRequestListener<GraphQLContext>['responseForOperation']> = async ({
  contextValue,
  metrics,
}) => {
  metrics.responseCacheHit = true;
  return {
    http: { headers: new HeaderMap(), status: undefined },
    body: { kind: 'single', singleResult: JSON.parse(contextValue.cached!) },
  };
};
