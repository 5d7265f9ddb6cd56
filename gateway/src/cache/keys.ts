import { hash } from 'node:crypto';

/**
 * REST GETs are keyed by their exact path and query string, as is: paths start with "/", so
 * they never meet the "gql:" keys, and the hot lane looks them up without building a string.
 */
export const restCacheKey = (url: string): string => url;

/** GraphQL queries are keyed by document, operation and variables. */
export function graphqlCacheKey(query: string, operationName: unknown, variables: unknown): string {
  return `gql:${hash('sha256', JSON.stringify([query, operationName ?? null, variables ?? null]), 'base64url')}`;
}
