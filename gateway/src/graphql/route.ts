import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { graphqlCacheKey } from '../cache/keys.js';
import type { ComputedResponse, ServedResponse } from '../cache/response-cache.js';
import { createRequestScope, type Services } from '../services.js';
import type { GraphQLContext } from './context.js';
import { formatGatewayError, errorStatusPlugin } from './error-status-plugin.js';
import { complexityLimitPlugin, depthLimitRule } from './limits.js';
import { metricsPlugin, recordOperation } from './metrics-plugin.js';
import { operationGuardPlugin } from './operation-guard.js';
import { operationOf } from './operation-type.js';
import { jitExecution } from './jit-execution.js';

interface GraphQLBody {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

function headerMapOf(request: FastifyRequest): HeaderMap {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

export async function createApollo(services: Services): Promise<ApolloServer<GraphQLContext>> {
  const { config, metrics } = services;
  const apollo = new ApolloServer<GraphQLContext>({
    gateway: jitExecution(),
    introspection: config.GRAPHQL_INTROSPECTION,
    validationRules: [depthLimitRule(config.GRAPHQL_MAX_DEPTH)],
    plugins: [
      operationGuardPlugin,
      complexityLimitPlugin(config.GRAPHQL_MAX_COMPLEXITY),
      errorStatusPlugin,
      metricsPlugin(metrics),
      // Whole responses are cached by the gateway; Apollo's per-field cache hints would only cost time.
      ApolloServerPluginCacheControlDisabled(),
    ],
    includeStacktraceInErrorResponses: false,
    // The CLI owns SIGTERM: Apollo must not stop (and re-raise the signal) behind its back.
    stopOnTerminationSignals: false,
    formatError: formatGatewayError,
  });
  await apollo.start();
  return apollo;
}

/**
 * POST /graphql: Apollo executes, and query responses (never mutations, never errors) go
 * through the response cache, keyed by document, operation name and variables.
 */
export function graphqlRoute(services: Services, apollo: ApolloServer<GraphQLContext>) {
  return async (app: FastifyInstance) => {
    app.post('/graphql', { schema: { hide: true } }, async (request, reply) => {
      const body = (request.body ?? {}) as GraphQLBody;
      const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
      const operation = typeof body.query === 'string' ? operationOf(body.query, operationName) : undefined;
      if (operation?.type === 'subscription') {
        const error = { message: 'subscriptions are not supported: use query or mutation', extensions: { code: 'BAD_REQUEST' } };
        return reply.code(400).send({ errors: [error] });
      }
      let executed = false;

      const execute = async (): Promise<ComputedResponse> => {
        executed = true;
        const scope = createRequestScope(services);
        const context: GraphQLContext = { services, scope, authorization: request.headers.authorization, failed: false };
        const response = await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: 'POST', headers: headerMapOf(request), search: '', body },
          context: async () => context,
        });
        if (response.body.kind !== 'complete') throw new Error('incremental delivery is not supported');
        return {
          status: response.status ?? 200,
          body: response.body.string,
          headers: response.headers,
          route: '/graphql',
          tags: scope.tags.values,
          cacheable: operation?.type === 'query' && !context.failed,
        };
      };

      const started = performance.now();
      const served: ServedResponse =
        operation?.type === 'query'
          ? await services.cache.getOrCompute(graphqlCacheKey(body.query as string, operationName, body.variables), execute)
          : await execute();
      if (!executed && operation) {
        // Answered from the cache or by another request's identical in-flight execution.
        const labels = { operation_name: operation.name, operation_type: operation.type };
        recordOperation(services.metrics, labels, served.status === 200 ? 'success' : 'error', (performance.now() - started) / 1_000);
      }
      for (const [name, value] of served.headers ?? []) reply.header(name, value);
      return reply.code(served.status).type('application/json; charset=utf-8').send(served.body);
    });
  };
}
