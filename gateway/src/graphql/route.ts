import { HeaderMap } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComputedResponse, ServedResponse } from '../cache/response-cache.js';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';
import { nonUtf8Parameters } from '../http/query-string.js';
import type { ReadTarget } from '../db/read-targets.js';
import { createRequestScope, type Services } from '../services.js';
import { createApollo } from './apollo.js';
import type { GraphQLContext } from './context.js';
import { DirectExecution } from './direct-execution.js';
import { DocumentCache } from './documents.js';
import { JitExecutor } from './jit-executor.js';
import { createPersistedQueries, type ResolvedOperation } from './persisted-queries.js';
import { isRecord, type GraphQLParams } from './request-shape.js';
import { OperationMetrics } from './operation-metrics.js';
import { ComplexityLimit } from './plugins/complexity-limit.js';
import { installGraphQLResponseMediaType, labelForAccept } from './response-media-type.js';
import { createSchema } from './schema.js';
import type { TrustedDocuments } from './trusted-documents.js';
import { gatewayValidationRules } from './validation-rules.js';

const graphqlErrors = (message: string, code: string) => ({ errors: [{ message, extensions: { code } }] });

/** A GET parameter that cannot be used: answered 400, naming it. */
class BadGetParameter extends Error {}

/**
 * The parameters of `GET /graphql?query=…&operationName=…&variables=<json>&extensions=<json>`
 * (GraphQL over HTTP; `documentId`/`doc_id` for trusted documents): each given at most once,
 * `variables` and `extensions` as JSON text, all percent-encoded UTF-8.
 */
function parametersOfGet(search: Record<string, string | string[] | undefined>): GraphQLParams {
  const [notUtf8] = nonUtf8Parameters(search) ?? [];
  if (notUtf8 !== undefined) throw new BadGetParameter(`the ${notUtf8} parameter is not percent-encoded UTF-8`);
  const single = (name: string): string | undefined => {
    const value = search[name];
    if (Array.isArray(value)) throw new BadGetParameter(`the ${name} parameter is given ${value.length} times: give it once`);
    return value;
  };
  const json = (name: string): unknown => {
    const text = single(name);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new BadGetParameter(`the ${name} parameter is not valid JSON: ${(error as Error).message}`);
    }
  };
  const params = {
    query: single('query'),
    operationName: single('operationName'),
    variables: json('variables'),
    extensions: json('extensions'),
    documentId: single('documentId'),
    doc_id: single('doc_id'),
  };
  // As in a JSON body, a parameter not given is absent, not undefined (Apollo tells the two apart).
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
}

/** The cost of an operation that will run; undefined for one that will not (invalid, or over the complexity limit). */
function runnableCost(
  complexity: ComplexityLimit,
  { document, valid, operation, operationName, params }: ResolvedOperation,
): number | undefined {
  if (!document || !valid || !operation) return undefined;
  const cost = complexity.cost(document, operationName, isRecord(params.variables) ? params.variables : {});
  return cost !== undefined && cost <= complexity.maxComplexity ? cost : undefined;
}

/**
 * The request as Apollo sees it. A GET is handed over as the POST it is equivalent to: its
 * parameters are parsed here and it runs queries only (see the route), so Apollo's own GET
 * handling, which would also demand a CSRF preflight header that CDNs and plain browser GETs do
 * not send, has nothing left to check. A POST keeps its own headers, CSRF check included.
 */
function apolloHeaders(request: FastifyRequest): HeaderMap {
  const headers = new HeaderMap();
  const sent = request.headers;
  for (const name in sent) {
    const value = sent[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  if (request.method !== 'POST') headers.set('content-type', 'application/json');
  return headers;
}

/**
 * `POST /graphql`, and `GET /graphql` for queries (GraphQL over HTTP, so browsers and CDNs can
 * cache them): one handler. Operations run directly (graphql/direct-execution.ts) or through
 * Apollo, and query responses (never mutations, never errors) go through the response cache,
 * keyed by document, operation name and variables, and leave as catalog reads (ETag,
 * Cache-Control, compression). Every request's operation metrics are recorded here, whether it
 * was executed or answered from the cache.
 */
export function graphqlRoute(services: Services, trustedDocuments: TrustedDocuments | undefined) {
  return async (app: FastifyInstance) => {
    const { config, metrics } = services;
    const schema = createSchema();
    const validationRules = gatewayValidationRules({ maxDepth: config.GRAPHQL_MAX_DEPTH, introspection: config.GRAPHQL_INTROSPECTION });
    const documents = new DocumentCache(schema, validationRules, metrics.graphqlDocumentParses);
    const persistedQueries = createPersistedQueries(services, documents, trustedDocuments);
    const executor = new JitExecutor(schema);
    const complexity = new ComplexityLimit(schema, config.GRAPHQL_MAX_COMPLEXITY);
    const direct = new DirectExecution(executor, complexity);
    const apollo = await createApollo({ documents, validationRules, executor, complexity });
    const operationMetrics = new OperationMetrics(metrics);
    app.addHook('onClose', () => apollo.stop());
    installGraphQLResponseMediaType(app);

    const handle = async (request: FastifyRequest, reply: FastifyReply, sent: GraphQLParams): Promise<FastifyReply> => {
      const started = performance.now();
      // The request as a document, the operation to run and its cache key (persisted queries resolved).
      const resolved = await persistedQueries.resolve(sent);
      if ('refused' in resolved) {
        const { status, headers, body } = resolved.refused;
        return reply.code(status).headers(headers).type(JSON_CONTENT_TYPE).send(body);
      }
      const { params, operationName, document, valid, operation, cacheKey } = resolved;

      if (operation?.operation === 'subscription') {
        return reply.code(400).send(graphqlErrors('subscriptions are not supported: use query or mutation', 'BAD_REQUEST'));
      }
      // GET must be safe (it may be replayed, prefetched, cached): a mutation needs a POST.
      if (request.method !== 'POST' && operation?.operation === 'mutation') {
        return reply
          .code(405)
          .header('allow', 'POST')
          .send(graphqlErrors(`mutations are not allowed over ${request.method}: use POST`, 'METHOD_NOT_ALLOWED'));
      }
      // Per-client limits: an operation that will run is charged its cost, answered from the cache or not.
      // Costed only when limits are on: the cost is what a client is charged, nothing else reads it.
      const cost = services.limits.enabled ? runnableCost(complexity, resolved) : undefined;
      const refusal = services.limits.chargeGraphQLCost(request.raw, reply.raw, cost);
      if (refusal) return reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
      let executionFailed = false;

      // Queries through the cache may read a replica (it chooses); mutations and the rest read the primary.
      const execute = async (target: ReadTarget = services.reads.primary): Promise<ComputedResponse> => {
        const scope = createRequestScope(services, target);
        const context: GraphQLContext = {
          services,
          scope,
          authorization: request.headers.authorization,
          log: request.log,
          outcome: { failed: false },
        };
        const computed = (body: string, status: number, headers?: Iterable<[string, string]>): ComputedResponse => ({
          status,
          body,
          headers,
          route: '/graphql',
          tags: scope.tags,
          cacheable: operation?.operation === 'query' && !context.outcome.failed,
        });
        const outcome = await direct.run({ params, document, valid, operation, operationName, accept: request.headers.accept, context });
        if (outcome && 'body' in outcome) return computed(outcome.body, 200);
        // Apollo answers the rest: what the direct path does not run, and the errors of what it ran.
        if (outcome) context.execution = outcome.execution;
        const response = await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: 'POST', headers: apolloHeaders(request), search: '', body: params },
          context: async () => context,
        });
        if (response.body.kind !== 'complete') throw new Error('incremental delivery is not supported');
        executionFailed = context.outcome.failed;
        return computed(response.body.string, response.status ?? 200, response.headers);
      };

      // Queries may be answered from the cache or by another request's identical in-flight execution.
      const served: ServedResponse = cacheKey ? await services.cache.getOrCompute(cacheKey, execute) : await execute();
      const outcome = served.status === 200 && !executionFailed ? 'success' : 'error';
      operationMetrics.record(operation, outcome, (performance.now() - started) / 1_000);
      return services.edge.responder.send(request, reply, served, labelForAccept(request.headers.accept));
    };

    app.post('/graphql', { schema: { hide: true } }, (request, reply) => handle(request, reply, (request.body ?? {}) as GraphQLParams));
    app.get('/graphql', { schema: { hide: true } }, (request, reply) => {
      let params: GraphQLParams;
      try {
        params = parametersOfGet(request.query as Record<string, string | string[] | undefined>);
      } catch (error) {
        if (!(error instanceof BadGetParameter)) throw error;
        return reply.code(400).send(graphqlErrors(error.message, 'BAD_REQUEST'));
      }
      return handle(request, reply, params);
    });
  };
}
