import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { ValidationRule } from 'graphql';
import type { GraphQLContext } from './context.js';
import type { DocumentCache } from './documents.js';
import type { JitExecutor } from './jit-executor.js';
import type { ComplexityLimit } from './plugins/complexity-limit.js';
import { formatGatewayError } from './plugins/error-status.js';
import { gatewayPlugin } from './plugins/gateway-plugin.js';

export interface ApolloParts {
  documents: DocumentCache;
  /** The gateway's validation rules, the same the document cache validates with. */
  validationRules: ValidationRule[];
  executor: JitExecutor;
  complexity: ComplexityLimit;
  /** The plugins of whoever runs the gateway (AppDependencies.graphqlPlugins): they see every operation. */
  userPlugins: readonly ApolloServerPlugin<GraphQLContext>[];
}

/** Apollo Server over the gateway's schema, documents, executor and plugins, started. */
export async function createApollo({
  documents,
  validationRules,
  executor,
  complexity,
  userPlugins,
}: ApolloParts): Promise<ApolloServer<GraphQLContext>> {
  const apollo = new ApolloServer<GraphQLContext>({
    gateway: executor.apolloGateway(),
    documentStore: documents.apolloStore,
    validationRules,
    // GRAPHQL_INTROSPECTION is enforced by `validationRules`, which the document cache applies
    // too; Apollo's own switch would add a rule only Apollo knows.
    introspection: true,
    // Persisted queries are resolved before Apollo (graphql/persisted-queries.ts), in a store all
    // replicas share; Apollo's own per-process store would be a second one.
    persistedQueries: false,
    plugins: [
      // Before the user's: an operation refused, or answered from the cache, is so for them too.
      gatewayPlugin({ complexity, countParse: documents.countApolloParse }),
      ...userPlugins,
      // Whole responses are cached by the gateway; Apollo's per-field cache hints would only cost time.
      ApolloServerPluginCacheControlDisabled(),
      // Browsers get the gateway's own IDE (graphql/ide.ts) or, with it off, what any client gets;
      // never Apollo's landing page, which loads Apollo Sandbox from a CDN.
      ApolloServerPluginLandingPageDisabled(),
      // Inline traces are for subgraphs of a federated graph, which this schema is not.
      ApolloServerPluginInlineTraceDisabled(),
    ],
    includeStacktraceInErrorResponses: false,
    // The CLI owns SIGTERM: Apollo must not stop (and re-raise the signal) behind its back.
    stopOnTerminationSignals: false,
    formatError: formatGatewayError,
  });
  await apollo.start();
  return apollo;
}
