import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context.js';

/** Apollo's id of a plugin it would otherwise install by itself (`__internal_plugin_id__`). */
const internalIdOf = (plugin: ApolloServerPlugin<GraphQLContext>): string | undefined =>
  (plugin as { __internal_plugin_id__?: string }).__internal_plugin_id__;

/**
 * The plugins Apollo would install by itself, each with why the gateway does not let it: a user
 * who wants one registers it, and then the operation runner calls it like any other.
 */
const IMPLICIT_PLUGINS_OFF: [id: string, disabled: () => ApolloServerPlugin<GraphQLContext>][] = [
  // Whole responses are cached by the gateway; per-field cache hints are not computed.
  ['CacheControl', ApolloServerPluginCacheControlDisabled],
  // Browsers get the gateway's own IDE (graphql/ide.ts) or, with it off, what any client gets;
  // never Apollo's landing page, which loads Apollo Sandbox from a CDN.
  ['LandingPage', ApolloServerPluginLandingPageDisabled],
  // Inline traces are for subgraphs of a federated graph, which this schema is not.
  ['InlineTrace', ApolloServerPluginInlineTraceDisabled],
  // Installed when APOLLO_KEY is set, it would see no operation: the runner calls registered plugins only.
  ['UsageReporting', ApolloServerPluginUsageReportingDisabled],
];

/**
 * Apollo Server over the gateway's schema and the user's plugins, started: it owns the plugins'
 * server lifecycle (serverWillStart, schemaDidLoadOrUpdate, serverWillStop), while their request
 * hooks are called by the gateway's operation runner for every operation (operation-runner.ts).
 */
export async function createApollo(
  schema: GraphQLSchema,
  userPlugins: readonly ApolloServerPlugin<GraphQLContext>[],
): Promise<ApolloServer<GraphQLContext>> {
  const registered = new Set(userPlugins.map(internalIdOf));
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    plugins: [...userPlugins, ...IMPLICIT_PLUGINS_OFF.filter(([id]) => !registered.has(id)).map(([, disabled]) => disabled())],
    // The CLI owns SIGTERM: Apollo must not stop (and re-raise the signal) behind its back.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  return apollo;
}
