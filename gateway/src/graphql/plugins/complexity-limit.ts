import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, getNullableType, isListType, visit, type DocumentNode, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';
// The CommonJS build shares Apollo's `graphql` instance (its ESM build loads graphql/index.mjs,
// a second copy whose schema objects Apollo's would not recognise).
import complexity from 'graphql-query-complexity/cjs';

const { getComplexity } = complexity;
type ComplexityEstimator = Parameters<typeof getComplexity>[0]['estimators'][number];
import type { GraphQLContext } from '../context.js';

/** Assumed length of relation lists (styles, photos, skus, features, related) when costing a query. */
const ASSUMED_LIST_LENGTH = 5;

/**
 * Cost = 1 per field; a list multiplies its selection by its page size (count/first) or, for
 * relation lists, by ASSUMED_LIST_LENGTH. A connection's edges/nodes are already counted by `first`.
 * Introspection fields cost like any other, but their lists (types, fields, args…) count once:
 * their length is the schema's, not the client's choice, and at ×5 the standard introspection
 * query tools send would cost ~8,000 alone.
 */
const estimateCost: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const pageSize = (args.count ?? args.first) as number | undefined;
  if (typeof pageSize === 'number') return 1 + childComplexity * Math.max(pageSize, 1);
  const inConnection = type.name.endsWith('Connection');
  const introspection = type.name.startsWith('__');
  if (isListType(getNullableType(field.type)) && !inConnection && !introspection) return 1 + childComplexity * ASSUMED_LIST_LENGTH;
  return 1 + childComplexity;
};

/** Arguments that change a query's cost: page sizes, and @include/@skip conditions. */
const COST_ARGUMENTS = new Set(['count', 'first', 'if']);

/** Names of the variables a document passes to cost arguments (usually none). */
function costVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(argument) {
      if (COST_ARGUMENTS.has(argument.name.value) && argument.value.kind === Kind.VARIABLE) {
        names.add(argument.value.name.value);
      }
    },
  });
  return [...names].sort();
}

/** How many distinct (document, operation, cost variables) costs are remembered. */
const REMEMBERED_COSTS = 1_000;

/**
 * Rejects operations costing more than `maxComplexity` with a 400 before anything runs.
 * The cost depends only on the document, the operation and the cost variables, so it is
 * computed once per such combination (as the document cache parses and validates a document once),
 * not once per request: a product page with a new id each time costs one cache lookup.
 */
export function complexityLimitPlugin(maxComplexity: number): ApolloServerPlugin<GraphQLContext> {
  const costs = new LRUCache<string, number>({ max: REMEMBERED_COSTS });
  const variablesByDocument = new WeakMap<DocumentNode, string[]>();

  const costOf = (
    schema: GraphQLSchema,
    document: DocumentNode,
    queryHash: string,
    operationName: string | undefined,
    variables: Record<string, unknown>,
  ) => {
    let names = variablesByDocument.get(document);
    if (!names) variablesByDocument.set(document, (names = costVariables(document)));
    const key = JSON.stringify([queryHash, operationName ?? null, names.map((name) => variables[name] ?? null)]);
    let cost = costs.get(key);
    if (cost === undefined) {
      cost = getComplexity({ schema, query: document, variables, operationName, estimators: [estimateCost] });
      costs.set(key, cost);
    }
    return cost;
  };

  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, queryHash, operation }) {
          // No operation to run: the operation guard answers 400 (costing would sum every operation).
          if (!operation) return;
          let cost: number;
          try {
            cost = costOf(schema, document, queryHash, request.operationName ?? undefined, request.variables ?? {});
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
