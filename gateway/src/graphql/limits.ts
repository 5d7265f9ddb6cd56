import type { ApolloServerPlugin } from '@apollo/server';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, getNullableType, isListType, type ValidationRule } from 'graphql';
// The CommonJS build shares Apollo's `graphql` instance (its ESM build loads graphql/index.mjs,
// a second copy whose schema objects Apollo's would not recognise).
import complexity from 'graphql-query-complexity/cjs';

const { getComplexity } = complexity;
type ComplexityEstimator = Parameters<typeof getComplexity>[0]['estimators'][number];
import type { GraphQLContext } from './context.js';

/** Assumed length of relation lists (styles, photos, skus, features, related) when costing a query. */
const ASSUMED_LIST_LENGTH = 5;

/**
 * Cost = 1 per field; a list multiplies its selection by its page size (count/first) or, for
 * relation lists, by ASSUMED_LIST_LENGTH. A connection's edges/nodes are already counted by `first`.
 */
const estimateCost: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const pageSize = (args.count ?? args.first) as number | undefined;
  if (typeof pageSize === 'number') return 1 + childComplexity * Math.max(pageSize, 1);
  const inConnection = type.name.endsWith('Connection');
  if (isListType(getNullableType(field.type)) && !inConnection) return 1 + childComplexity * ASSUMED_LIST_LENGTH;
  return 1 + childComplexity;
};

/** Rejects documents nested deeper than `maxDepth` as a validation error (HTTP 400). */
export function depthLimitRule(maxDepth: number): ValidationRule {
  return maxDepthRule({
    n: maxDepth,
    ignoreIntrospection: true,
    exposeLimits: true,
    // Report instead of throwing: a thrown error would surface as a 500.
    propagateOnRejection: false,
    onReject: [(context, error) => context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')))],
  }) as unknown as ValidationRule;
}

/** Rejects operations costing more than `maxComplexity` with a 400 before anything runs. */
export function complexityLimitPlugin(maxComplexity: number): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          let cost: number;
          try {
            cost = getComplexity({
              schema,
              query: document,
              variables: request.variables ?? {},
              operationName: request.operationName ?? undefined,
              estimators: [estimateCost],
            });
          } catch {
            // Unusable variables: execution rejects them next with a 400 naming the variable.
            return;
          }
          if (cost > maxComplexity) {
            throw new GraphQLError(`query complexity ${cost} exceeds the limit of ${maxComplexity}`, {
              extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
