import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import type { GraphQLContext } from '../context.js';
import { answerFromCache } from './cached-answer.js';
import { refuseTooComplex, type ComplexityLimit } from './complexity-limit.js';
import { setErrorStatus } from './error-status.js';
import { refuseUnresolvedOperation } from './operation-guard.js';

export interface GatewayPluginParts {
  complexity: ComplexityLimit;
  /** Counts a parse Apollo makes itself (of a document the gateway's cache refused). */
  countParse: () => void;
}

/**
 * The gateway's own hooks (each in its file) as one plugin with one listener: Apollo awaits every
 * listener's hook in turn, a promise each, so one listener in place of four costs each operation
 * a quarter of the promises. The listener holds no per-request state, so two are made, not one
 * per request: with the cached answer (the response cache answered the operation) and without.
 */
export function gatewayPlugin({ complexity, countParse }: GatewayPluginParts): ApolloServerPlugin<GraphQLContext> {
  const refuseCostly = refuseTooComplex(complexity);
  const executing: GraphQLRequestListener<GraphQLContext> = {
    parsingDidStart: async () => countParse(),
    async didResolveOperation(requestContext) {
      await refuseUnresolvedOperation(requestContext);
      await refuseCostly(requestContext);
    },
    willSendResponse: setErrorStatus,
  };
  // Answered before the user's plugins are asked: a cached answer is the answer, as sent.
  const cached: GraphQLRequestListener<GraphQLContext> = { ...executing, responseForOperation: answerFromCache };
  return {
    requestDidStart: async ({ contextValue }) => (contextValue.cached === undefined ? executing : cached),
  };
}
