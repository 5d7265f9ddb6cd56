import { GraphQLError, getNullableType, isListType, visit, type DocumentNode, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';
// The CommonJS build shares Apollo's `graphql` instance (its ESM build loads graphql/index.mjs,
// a second copy whose schema objects Apollo's would not recognise).
import complexity from 'graphql-query-complexity/cjs';

const { getComplexity } = complexity;
type ComplexityEstimator = Parameters<typeof getComplexity>[0]['estimators'][number];

/** Assumed length of relation lists (styles, photos, skus, features, related) when costing a query. */
const ASSUMED_LIST_LENGTH = 5;

/**
 * Extra cost of a product list's filter, for the rows Postgres reads beyond the page: a name
 * search finds its matches in the full-text index, then sorts them; a price range under a sort
 * other than price walks one index and checks the other. A category, and every sort, cost
 * nothing extra: each has its own index, so a page reads just its rows.
 */
export const SEARCH_COST = 20;
export const PRICE_RANGE_COST = 10;

function filterCost(args: Record<string, unknown>): number {
  const filter = args.filter as { search?: unknown; minPrice?: unknown; maxPrice?: unknown } | null | undefined;
  if (!filter) return 0;
  const sortedByPrice = typeof args.sort === 'string' && args.sort.startsWith('PRICE_');
  const priceRange = filter.minPrice != null || filter.maxPrice != null;
  return (filter.search != null ? SEARCH_COST : 0) + (priceRange && !sortedByPrice ? PRICE_RANGE_COST : 0);
}

/**
 * Cost = 1 per field; a list multiplies its selection by its page size (count/first, or the
 * number of ids asked for) or, for relation lists without `first`, by ASSUMED_LIST_LENGTH; a
 * filtered list adds its filter's cost. A connection's edges/nodes are already counted by `first`.
 * Introspection fields cost like any other, but their lists (types, fields, args…) count once:
 * their length is the schema's, not the client's choice, and at ×5 the standard introspection
 * query tools send would cost ~8,000 alone.
 */
const estimateCost: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const pageSize = (args.count ?? args.first ?? (Array.isArray(args.ids) ? args.ids.length : undefined)) as number | undefined;
  if (typeof pageSize === 'number') return 1 + filterCost(args) + childComplexity * Math.max(pageSize, 1);
  const inConnection = type.name.endsWith('Connection');
  const introspection = type.name.startsWith('__');
  if (isListType(getNullableType(field.type)) && !inConnection && !introspection) return 1 + childComplexity * ASSUMED_LIST_LENGTH;
  return 1 + childComplexity;
};

/** Arguments that change a query's cost: page sizes, id lists, filters and sorts, and @include/@skip conditions. */
const COST_ARGUMENTS = new Set(['count', 'first', 'ids', 'filter', 'sort', 'if']);

/** Names of the variables a document passes to cost arguments, also inside them (`filter: { search: $q }`). */
function costVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(argument) {
      if (!COST_ARGUMENTS.has(argument.name.value)) return;
      visit(argument.value, {
        Variable(variable) {
          names.add(variable.name.value);
        },
      });
    },
  });
  return [...names].sort();
}

/** How many distinct (document, operation, cost variables) costs are remembered. */
const REMEMBERED_COSTS = 1_000;

/** What the cost of a document's operations depends on besides the operation: its variables passed to cost arguments. */
interface CostShape {
  /** Tells documents apart in the remembered costs' keys (a document's text may be long). */
  serial: number;
  variables: string[];
  /** With no cost variables, each operation's one cost, by name ('' for the only one): no key to make per request. */
  fixed: Map<string, number>;
}

/**
 * The limit on an operation's cost (see estimateCost). The cost depends only on the document,
 * the operation and the cost variables, so it is computed once per such combination (as the
 * document cache parses and validates a document once), not once per request: a product page
 * with a new id each time costs one cache lookup.
 */
export class ComplexityLimit {
  private readonly costs = new LRUCache<string, number>({ max: REMEMBERED_COSTS });
  private readonly shapes = new WeakMap<DocumentNode, CostShape>();
  private documentsSeen = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    readonly maxComplexity: number,
  ) {}

  /**
   * The error answering an operation that costs more than the limit (a 400), or undefined. An
   * operation whose variables cannot be costed passes: execution rejects them next, naming the variable.
   */
  refusal(cost: number | undefined): GraphQLError | undefined {
    if (cost === undefined || cost <= this.maxComplexity) return undefined;
    return new GraphQLError(`query complexity ${cost} exceeds the limit of ${this.maxComplexity}`, {
      extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } },
    });
  }

  /** The operation's cost (what the limit is checked against), or undefined when its variables cannot be costed. */
  cost(document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>): number | undefined {
    try {
      return this.costOf(document, operationName, variables);
    } catch {
      return undefined;
    }
  }

  private costOf(document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>): number {
    let shape = this.shapes.get(document);
    if (!shape) this.shapes.set(document, (shape = { serial: ++this.documentsSeen, variables: costVariables(document), fixed: new Map() }));
    if (shape.variables.length === 0) {
      let cost = shape.fixed.get(operationName ?? '');
      if (cost === undefined) {
        cost = getComplexity({ schema: this.schema, query: document, variables, operationName, estimators: [estimateCost] });
        shape.fixed.set(operationName ?? '', cost);
      }
      return cost;
    }
    const key = JSON.stringify([shape.serial, operationName ?? null, shape.variables.map((name) => variables[name] ?? null)]);
    let cost = this.costs.get(key);
    if (cost === undefined) {
      cost = getComplexity({ schema: this.schema, query: document, variables, operationName, estimators: [estimateCost] });
      this.costs.set(key, cost);
    }
    return cost;
  }
}
