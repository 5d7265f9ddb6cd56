import { HeaderMap } from '@apollo/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ComputedResponse, ServedResponse } from '../cache/response-cache.js';
import { createRequestScope, type Services } from '../services.js';
import { createApollo } from './apollo.js';
import type { GraphQLContext } from './context.js';
import { DocumentCache } from './documents.js';
import { createPersistedQueries, type GraphQLParams } from './persisted-queries.js';
import { recordOperation } from './operation-metrics.js';
import { createSchema } from './schema.js';
import { gatewayValidationRules } from './validation-rules.js';

function headerMapOf(request: FastifyRequest): HeaderMap {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * POST /graphql: Apollo executes, and query responses (never mutations, never errors) go
 * through the response cache, keyed by document, operation name and variables. Every request's
 * operation metrics are recorded here, whether it was executed or answered from the cache.
 */
export function graphqlRoute(services: Services) {
  return async (app: FastifyInstance) => {
    const { config, metrics } = services;
    const schema = createSchema();
    const validationRules = gatewayValidationRules({ maxDepth: config.GRAPHQL_MAX_DEPTH, introspection: config.GRAPHQL_INTROSPECTION });
    const documents = new DocumentCache(schema, validationRules, metrics.graphqlDocumentParses);
    const persistedQueries = createPersistedQueries(services, documents);
    const apollo = await createApollo(services, { schema, documents, validationRules });
    app.addHook('onClose', () => apollo.stop());

    app.post('/graphql', { schema: { hide: true } }, async (request, reply) => {
      const started = performance.now();
      const resolved = await persistedQueries.resolve((request.body ?? {}) as GraphQLParams);
      if ('refused' in resolved) {
        const { status, headers, body } = resolved.refused;
        return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
      }
      const { params: body, operationName, operation, cacheKey } = resolved;
      if (operation?.operation === 'subscription') {
        const error = { message: 'subscriptions are not supported: use query or mutation', extensions: { code: 'BAD_REQUEST' } };
        return reply.code(400).send({ errors: [error] });
      }
      let executionFailed = false;

      const execute = async (): Promise<ComputedResponse> => {
        const scope = createRequestScope(services);
        const context: GraphQLContext = { services, scope, authorization: request.headers.authorization, failed: false };
        const response = await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: 'POST', headers: headerMapOf(request), search: '', body },
          context: async () => context,
        });
        if (response.body.kind !== 'complete') throw new Error('incremental delivery is not supported');
        executionFailed = context.failed;
        return {
          status: response.status ?? 200,
          body: response.body.string,
          headers: response.headers,
          route: '/graphql',
          tags: scope.tags.values,
          cacheable: operation?.operation === 'query' && !context.failed,
        };
      };

      // Queries may be answered from the cache or by another request's identical in-flight execution.
      const served: ServedResponse = cacheKey ? await services.cache.getOrCompute(cacheKey, execute) : await execute();
      const outcome = served.status === 200 && !executionFailed ? 'success' : 'error';
      recordOperation(metrics, operationName, operation, outcome, (performance.now() - started) / 1_000);
      for (const [name, value] of served.headers ?? []) reply.header(name, value);
      return reply.code(served.status).type('application/json; charset=utf-8').send(served.body);
    });
  };
}
