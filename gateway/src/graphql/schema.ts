import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers.js';
import { typeDefs } from './type-defs.js';

/** The gateway's executable schema: the type definitions bound to their resolvers. */
export function createSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs, resolvers });
}
