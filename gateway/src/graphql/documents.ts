import {
  getVariableValues,
  GraphQLError,
  Kind,
  parse,
  print,
  specifiedRules,
  stripIgnoredCharacters,
  validate,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Counter } from 'prom-client';

/** A query string as the gateway knows it: parsed (or not), and whether it may run. */
export interface KnownDocument {
  /** Undefined when the text does not parse. */
  document: DocumentNode | undefined;
  /** Parsed and passed validation: it runs as is, without being parsed or validated again. */
  valid: boolean;
  /** Why it may not run: its syntax error, or what validation found (none when valid). */
  errors: readonly GraphQLError[];
}

/** How many distinct query strings are remembered (clients send a handful over and over). */
const REMEMBERED_DOCUMENTS = 1_000;

/**
 * The gateway's one cache of parsed and validated GraphQL documents: the route reads the
 * operation it is asked to run from it (to decide whether the response may be cached), and the
 * cost check, the plugins and the executor all work on the document parsed here, once per query
 * string. What a document that may not run got wrong is kept with it, for its answer.
 */
export class DocumentCache {
  /** By query text: a lookup hashes the text as a Map key does, far cheaper than a SHA-256 per request. */
  private readonly known = new LRUCache<string, KnownDocument>({ max: REMEMBERED_DOCUMENTS });
  private readonly rules: ValidationRule[];
  /** Each operation's text as it runs, printed once per parsed document (see `whatDecides`). */
  private readonly operationTexts = new WeakMap<OperationDefinitionNode, string>();

  constructor(
    private readonly schema: GraphQLSchema,
    gatewayRules: readonly ValidationRule[],
    private readonly parses: Counter,
  ) {
    this.rules = [...specifiedRules, ...gatewayRules];
  }

  /** The document of a query string, parsed and validated on first sight. */
  lookUp(query: string): KnownDocument {
    let known = this.known.get(query);
    if (!known) this.known.set(query, (known = this.parseAndValidate(query)));
    return known;
  }

  /**
   * What decides the answer to `operation` of a valid `document`: the operation as it runs (printed
   * with the fragments it uses and nothing else, whitespace and comments stripped, so other
   * operations in the document, formatting and unused fragments do not matter) and its declared
   * variables with their defaults applied and values coerced (`1` and `"1"` are the same ID);
   * undeclared variables play no part. Variables that do not coerce are kept as sent: the answer
   * is an error, which is never cached.
   */
  whatDecides(document: DocumentNode, operation: OperationDefinitionNode, variables: unknown): { operation: string; variables: unknown } {
    let text = this.operationTexts.get(operation);
    if (text === undefined) this.operationTexts.set(operation, (text = printedOperation(document, operation)));
    const inputs = typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : {};
    const coerced = getVariableValues(this.schema, operation.variableDefinitions ?? [], inputs);
    if ('coerced' in coerced) return { operation: text, variables: coerced.coerced };
    const declared = (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value);
    return {
      operation: text,
      variables: Object.fromEntries(declared.filter((name) => name in inputs).map((name) => [name, inputs[name]])),
    };
  }

  private parseAndValidate(query: string): KnownDocument {
    this.parses.inc();
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (error) {
      // parse throws nothing but GraphQL syntax errors; anything else is a bug, and surfaces.
      if (!(error instanceof GraphQLError)) throw error;
      return { document: undefined, valid: false, errors: [error] };
    }
    const errors = validate(this.schema, document, this.rules);
    return { document, valid: errors.length === 0, errors };
  }
}

/** An operation with only the fragments it spreads (transitively), printed without ignored characters. */
function printedOperation(document: DocumentNode, operation: OperationDefinitionNode): string {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const used = new Map<string, FragmentDefinitionNode>();
  const collect = (node: OperationDefinitionNode | FragmentDefinitionNode) =>
    visit(node, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (fragment && !used.has(spread.name.value)) {
          used.set(spread.name.value, fragment);
          collect(fragment);
        }
      },
    });
  collect(operation);
  const fragmentsInOrder = [...used.values()].sort((a, b) => a.name.value.localeCompare(b.name.value));
  return stripIgnoredCharacters(print({ kind: Kind.DOCUMENT, definitions: [operation, ...fragmentsInOrder] }));
}
