import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComputedResponse, PlainResponse, ServedResponse } from '../cache/response-cache.js';
import type { ReadTarget } from '../db/read-targets.js';
import { graphqlErrorBody } from '../http/error-bodies.js';
import { createRequestScope, type Services } from '../services.js';
import { createApollo } from './apollo.js';
import { ComplexityLimit } from './complexity-limit.js';
import type { GraphQLContext } from './context.js';
import { DocumentCache } from './documents.js';
import { GraphqlEdgeAnswers } from './edge-answers.js';
import { BadGetParameter, parametersOfGet } from './get-parameters.js';
import { JitExecutor } from './jit-executor.js';
import { OperationMetrics } from './operation-metrics.js';
import { carriesErrors, OperationRunner } from './operation-runner.js';
import { createPersistedQueries, type ResolvedOperation } from './persisted-queries.js';
import { PluginHooks } from './plugin-hooks.js';
import { isRecord, type GraphQLParams } from './request-shape.js';
import { createSchema } from './schema.js';
import type { TrustedDocuments } from './trusted-documents.js';
import { gatewayValidationRules } from './validation-rules.js';

const refused = (status: number, message: string, code: string, headers?: [string, string][]): PlainResponse => ({
  status,
  headers,
  body: graphqlErrorBody(message, code),
});

/** The cost of an operation that will run (undefined: invalid, no such operation, or variables that cannot be costed). */
function costOf(complexity: ComplexityLimit, { document, valid, operation, operationName, params }: ResolvedOperation): number | undefined {
  if (!document || !valid || !operation) return undefined;
  return complexity.cost(document, operationName, isRecord(params.variables) ? params.variables : {});
}

/**
 * `POST /graphql`, and `GET /graphql` for queries (GraphQL over HTTP, so browsers and CDNs can
 * cache them): one handler, and one way to answer an operation, the operation runner
 * (operation-runner.ts), which calls the user's plugins for every operation. Query responses
 * (never mutations, never errors) go through the response cache, keyed by document, operation
 * name and variables, and leave as catalog reads (ETag, Cache-Control, compression); a GET's URL
 * becomes an alias of its cache key, so the front door answers it next time (edge-answers.ts).
 * Each operation is costed once (the record keeps the cost for the client limits and the
 * runner's cost check), and its operation metrics are recorded whether it was executed or
 * answered from the cache.
 */
export function graphqlRoute(
  services: Services,
  trustedDocuments: TrustedDocuments | undefined,
  userPlugins: readonly ApolloServerPlugin<GraphQLContext>[],
) {
  return async (app: FastifyInstance) => {
    const { config, metrics } = services;
    const { lookup, writer, frontDoor } = services.pipeline;
    const schema = createSchema();
    const validationRules = gatewayValidationRules({ maxDepth: config.GRAPHQL_MAX_DEPTH, introspection: config.GRAPHQL_INTROSPECTION });
    const documents = new DocumentCache(schema, validationRules, metrics.graphqlDocumentParses);
    const persistedQueries = createPersistedQueries(services, documents, trustedDocuments);
    const complexity = new ComplexityLimit(schema, config.GRAPHQL_MAX_COMPLEXITY);
    const apollo = await createApollo(schema, userPlugins);
    app.addHook('onClose', () => apollo.stop());
    const hooks = new PluginHooks(userPlugins);
    const runner = new OperationRunner({ schema, executor: new JitExecutor(schema), complexity, hooks, server: apollo });
    const operationMetrics = new OperationMetrics(metrics);
    frontDoor.answerGraphqlWith(new GraphqlEdgeAnswers(services, persistedQueries, runner, operationMetrics, hooks.observed, app.log));

    const contextOf = (request: FastifyRequest, target: ReadTarget): GraphQLContext => ({
      services,
      scope: createRequestScope(services, target),
      authorization: request.headers.authorization,
      log: request.log,
      record: request.record,
    });

    const answer = async (request: FastifyRequest, sent: GraphQLParams, started: number): Promise<ServedResponse> => {
      // The request as a document, the operation to run and its cache key (persisted queries resolved).
      const resolved = await persistedQueries.resolve(sent);
      if ('refused' in resolved) return resolved.refused;
      const { operation, cacheKey, malformed } = resolved;
      if (malformed) return refused(400, malformed, 'BAD_REQUEST');
      if (operation?.operation === 'subscription') {
        return refused(400, 'subscriptions are not supported: use query or mutation', 'BAD_REQUEST');
      }
      // GET must be safe (it may be replayed, prefetched, cached): a mutation needs a POST.
      if (request.method !== 'POST' && operation?.operation === 'mutation') {
        return refused(405, `mutations are not allowed over ${request.method}: use POST`, 'METHOD_NOT_ALLOWED', [['allow', 'POST']]);
      }
      // Costed once: the client is charged it (answered from the cache or not), the runner's cost check reads it from the record.
      const record = request.record;
      record.cost = costOf(complexity, resolved);
      const charged = record.cost !== undefined && record.cost <= complexity.maxComplexity ? record.cost : undefined;
      const refusal = services.limits.chargeGraphQLCost(request.raw, record, charged);
      if (refusal) return refusal;

      let executed = false;
      // Queries through the cache may read a replica (it chooses); mutations and the rest read the primary.
      const execute = async (target: ReadTarget = services.reads.primary): Promise<ComputedResponse> => {
        executed = true;
        const context = contextOf(request, target);
        const { status, headers, body, failed } = await runner.run({ request: request.raw, operation: resolved, context });
        const cacheable = operation?.operation === 'query' && status === 200 && !failed;
        return { status, body, headers, route: '/graphql', tags: context.scope.tags, cacheable };
      };
      let key = cacheKey;
      if (cacheKey && operation && request.method !== 'POST' && services.cache.enabled) {
        // The URL as the client spelt it names this key: the front door answers it next time.
        const made = cacheKey();
        lookup.alias(request.url, made, { cost: charged, operation });
        key = () => made;
      }
      // Queries may be answered from the cache or by another request's identical in-flight execution.
      const served = key ? await lookup.getOrCompute(record, key, execute) : await execute();
      // Answered by the cache: the user's plugins see it as the cache hit it is.
      if (!executed && hooks.observed && 'representations' in served) {
        const cached = served.representations.body as string;
        await runner.run({ request: request.raw, operation: resolved, context: contextOf(request, services.reads.primary), cached });
      }
      const outcome = served.status === 200 && !('body' in served && carriesErrors(served.body)) ? 'success' : 'error';
      operationMetrics.record(operation, outcome, (performance.now() - started) / 1_000);
      return served;
    };

    const handle = async (request: FastifyRequest, reply: FastifyReply, sent: GraphQLParams): Promise<FastifyReply> =>
      writer.respond(request, reply, await answer(request, sent, performance.now()), 'graphql');

    app.post('/graphql', { schema: { hide: true } }, (request, reply) => handle(request, reply, (request.body ?? {}) as GraphQLParams));
    app.get('/graphql', { schema: { hide: true } }, (request, reply) => {
      let params: GraphQLParams;
      try {
        params = parametersOfGet(request.query as Record<string, string | string[] | undefined>);
      } catch (error) {
        if (!(error instanceof BadGetParameter)) throw error;
        return writer.respond(request, reply, refused(400, error.message, 'BAD_REQUEST'), 'graphql');
      }
      return handle(request, reply, params);
    });
  };
}
