import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApolloServer, HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ComplexityLimit } from '../src/graphql/complexity-limit.js';
import type { GraphQLContext } from '../src/graphql/context.js';
import { formatGatewayError, setErrorStatus } from '../src/graphql/error-status.js';
import { JitExecutor } from '../src/graphql/jit-executor.js';
import { unresolvedOperationError } from '../src/graphql/operation-guard.js';
import { createSchema } from '../src/graphql/schema.js';
import { gatewayValidationRules } from '../src/graphql/validation-rules.js';
import { RequestRecord } from '../src/pipeline/request-record.js';
import { createRequestScope } from '../src/services.js';
import { createFixtureDatabase, postGraphQL } from './support/gateway.js';

/**
 * The gateway answers GraphQL with its own operation runner, which calls the plugins' hooks
 * itself (README "GraphQL executes one way"). This holds it to Apollo Server's own request
 * pipeline case by case: the same operations, sent to the gateway and to an Apollo Server given
 * the same schema, rules, executor and error formatter, with the gateway's checks and statuses
 * as a plugin of its own, must answer the same status and the same bytes, and a user's plugin
 * must see the same hooks, in the same order, with the same context.
 */

/** What a plugin saw of one operation: each hook in the order called, with what it was shown. */
type Seen = string[];

function recorder(log: Seen[]): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request, metrics }) {
      const seen: Seen = [`requestDidStart ${request.query ?? '-'} ${request.operationName ?? '-'} ${metrics.responseCacheHit ?? '-'}`];
      log.push(seen);
      const listener: GraphQLRequestListener<GraphQLContext> = {
        async didResolveSource({ source, queryHash }) {
          seen.push(`didResolveSource ${source} ${queryHash}`);
        },
        async parsingDidStart({ document }) {
          // Apollo's document store is its own: whether a valid document is parsed again depends
          // on which server saw it first, so only the parses of documents that fail are compared.
          seen.push('parsingDidStart');
          return async (error) => {
            seen.push(`parsingDidEnd ${error?.message ?? '-'} ${document === undefined}`);
          };
        },
        async validationDidStart() {
          seen.push('validationDidStart');
          return async (errors) => {
            seen.push(`validationDidEnd ${errors?.map((error) => error.message).join('|') ?? '-'}`);
          };
        },
        async didResolveOperation({ operationName, operation, document }) {
          seen.push(`didResolveOperation ${operationName} ${operation?.operation} ${document.definitions.length}`);
        },
        async responseForOperation() {
          seen.push('responseForOperation');
          return null;
        },
        async executionDidStart() {
          seen.push('executionDidStart');
          return {
            async executionDidEnd(error) {
              seen.push(`executionDidEnd ${error?.message ?? '-'}`);
            },
          };
        },
        async didEncounterErrors({ errors }) {
          seen.push(`didEncounterErrors ${errors.map((error) => `${error.message} ${String(error.extensions.code)}`).join('|')}`);
        },
        async willSendResponse({ response, metrics }) {
          seen.push(
            `willSendResponse ${response.http.status ?? 200} ${[...response.http.headers].join(';')} ${metrics.responseCacheHit ?? '-'}`,
          );
        },
      };
      return listener;
    },
  };
}

/** The parse hooks of a document that parsed and validated are left out (see `recorder`). */
function comparable(seen: Seen): Seen {
  const failed = seen.some((hook) => hook.startsWith('didEncounterErrors') && /GRAPHQL_(PARSE|VALIDATION)_FAILED/.test(hook));
  return failed ? seen : seen.filter((hook) => !/^(parsing|validation)Did/.test(hook));
}

interface Case {
  name: string;
  body: { query?: string; operationName?: string; variables?: Record<string, unknown> };
  headers?: Record<string, string>;
}

const PRODUCT = 'query Product($id: ID!) { product(id: $id) { id slogan } }';
const CASES: Case[] = [
  { name: 'a valid query', body: { query: '{ product(id: 1) { id name } }' } },
  { name: 'a query with variables', body: { query: PRODUCT, variables: { id: '2' } } },
  { name: '__typename only', body: { query: '{ __typename }' } },
  { name: 'an unknown product', body: { query: '{ product(id: 999999) { id } }' } },
  { name: 'a syntax error', body: { query: '{ product(id: 1) { id ' } },
  { name: 'an empty query', body: { query: '' } },
  { name: 'an unknown field', body: { query: '{ product(id: 1) { nope } }' } },
  { name: 'two validation errors', body: { query: '{ product(id: 1) { nope } alsoNope }' } },
  {
    name: 'too deep',
    body: { query: '{ product(id: 1) { related { related { related { related { related { related { related { id } } } } } } } } }' },
  },
  { name: 'a missing variable', body: { query: PRODUCT } },
  { name: 'a variable of the wrong type', body: { query: PRODUCT, variables: { id: { not: 'an id' } } } },
  { name: 'an id the resolver refuses', body: { query: '{ product(id: "abc") { id } }' } },
  { name: 'an unknown operation name', body: { query: PRODUCT, operationName: 'Nope', variables: { id: '1' } } },
  { name: 'two operations, none named', body: { query: 'query A { product(id: 1) { id } } query B { product(id: 2) { id } }' } },
  {
    name: 'two operations, one named',
    body: { query: 'query A { product(id: 1) { id } } query B { product(id: 2) { id } }', operationName: 'B' },
  },
  { name: 'over the cost limit', body: { query: '{ products(count: 100) { styles { photos { url } skus { id size } } } }' } },
  { name: 'a mutation without credentials', body: { query: 'mutation { updateProduct(id: 1, input: { slogan: "x" }) { id } }' } },
];

/** Apollo's gateway interface over the gateway's executor, so both sides execute alike. */
function jitGateway(executor: JitExecutor, schema: ReturnType<typeof createSchema>): GatewayInterface {
  return {
    load: async () => ({
      executor: async ({ document, operation, operationName, request, context }) =>
        executor.execute(document, operation, operationName ?? undefined, request.variables, context as GraphQLContext),
    }),
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}

describe("the operation runner against Apollo Server's own request pipeline", () => {
  let app: FastifyInstance;
  let apollo: ApolloServer<GraphQLContext>;
  const gatewaySaw: Seen[] = [];
  const apolloSaw: Seen[] = [];

  before(async () => {
    // The response cache off: every operation is executed on both sides.
    const config = loadConfig({
      DATABASE_URL: await createFixtureDatabase(),
      LOG_LEVEL: 'silent',
      METRICS_PORT: '0',
      CACHE_TTL_SECONDS: '0',
    });
    app = await buildApp(config, { graphqlPlugins: [recorder(gatewaySaw)] });
    const schema = createSchema();
    const complexity = new ComplexityLimit(schema, config.GRAPHQL_MAX_COMPLEXITY);
    // What the gateway adds to Apollo's stages, as the plugin it was before the runner took them over.
    const gatewayChecks: ApolloServerPlugin<GraphQLContext> = {
      async requestDidStart() {
        return {
          async didResolveOperation({ request, document, operation, operationName }) {
            if (!operation) throw unresolvedOperationError(request.operationName, document);
            const refusal = complexity.refusal(complexity.cost(document, operationName ?? undefined, request.variables ?? {}));
            if (refusal) throw refusal;
          },
          async willSendResponse({ errors, response, contextValue }) {
            if (errors?.length) setErrorStatus(errors, response, contextValue.log);
          },
        };
      },
    };
    apollo = new ApolloServer<GraphQLContext>({
      gateway: jitGateway(new JitExecutor(schema), schema),
      validationRules: gatewayValidationRules({ maxDepth: config.GRAPHQL_MAX_DEPTH, introspection: config.GRAPHQL_INTROSPECTION }),
      formatError: formatGatewayError,
      includeStacktraceInErrorResponses: false,
      persistedQueries: false,
      // As the gateway's Apollo is configured (graphql/apollo.ts): no per-field cache hints.
      plugins: [gatewayChecks, recorder(apolloSaw), ApolloServerPluginCacheControlDisabled()],
    });
    await apollo.start();
  });
  after(async () => {
    await apollo.stop();
    await app.close();
  });

  for (const { name, body } of CASES) {
    it(`answers ${name} as Apollo does, and shows a plugin the same hooks`, async () => {
      const gatewayFrom = gatewaySaw.length;
      const apolloFrom = apolloSaw.length;
      const gateway = await postGraphQL(app, body);
      const response = await apollo.executeOperation(
        {
          ...body,
          http: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json']]), search: '', body },
        },
        {
          contextValue: {
            services: app.services,
            scope: createRequestScope(app.services),
            authorization: undefined,
            log: app.log,
            record: new RequestRecord('parity', performance.now()),
          },
        },
      );
      if (response.body.kind !== 'single') throw new Error('Apollo answered incrementally');
      const { errors, data, extensions } = response.body.singleResult;
      assert.equal(gateway.statusCode, response.http.status ?? 200, gateway.body);
      assert.equal(gateway.body, `${JSON.stringify({ errors, data, extensions })}\n`);
      for (const [header, value] of response.http.headers) assert.equal(gateway.headers[header], value, header);
      assert.equal(gatewaySaw.length - gatewayFrom, 1, 'the plugin saw the operation once');
      assert.equal(apolloSaw.length - apolloFrom, 1);
      assert.deepEqual(comparable(gatewaySaw.at(-1)!), comparable(apolloSaw.at(-1)!));
    });
  }
});
