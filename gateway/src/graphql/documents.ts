import { hash } from 'node:crypto';
import type { DocumentStore } from '@apollo/server';
import {
  getVariableValues,
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
  /** Parsed and passed validation: Apollo runs it as is, without parsing or validating it again. */
  valid: boolean;
}

/** How many distinct query strings are remembered (clients send a handful over and over). */
const REMEMBERED_DOCUMENTS = 1_000;

/** Apollo prefixes its document keys with a hash of the schema, which is fixed here: the query hash is the rest. */
const queryHashIn = (apolloKey: string): string => apolloKey.slice(apolloKey.lastIndexOf(':') + 1);

/**
 * The gateway's one cache of parsed and validated GraphQL documents. The route reads the
 * operation it is asked to run from it (to decide whether the response may be cached), and
 * Apollo is fed the same DocumentNode through its `documentStore`, so the operation guard, the
 * cost check and the executor all work on the document parsed here, once per query string.
 * Only documents that fail to parse or validate reach Apollo as text: it parses and validates
 * them again (with the same rules) to report their errors in its format.
 */
export class DocumentCache {
  /** By query text: a lookup hashes the text as a Map key does, far cheaper than a SHA-256 per request. */
  private readonly known = new LRUCache<string, KnownDocument>({ max: REMEMBERED_DOCUMENTS });
  /** The valid documents by Apollo's key for them, the text's SHA-256: what its document store reads. */
  private readonly validByHash = new LRUCache<string, DocumentNode>({ max: REMEMBERED_DOCUMENTS });
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

  /**
   * The document of a query string, parsed and validated on first sight. `sha256Hash` is the
   * text's SHA-256 (Apollo's key, as for persisted queries) when the caller already has it (a
   * verified persisted-query hash); else it is computed once, on first sight.
   */
  lookUp(query: string, sha256Hash?: string): KnownDocument {
    let known = this.known.get(query);
    if (!known) {
      this.known.set(query, (known = this.parseAndValidate(query)));
      if (known.valid) this.validByHash.set(sha256Hash ?? hash('sha256', query, 'hex'), known.document!);
    }
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
    } catch {
      return { document: undefined, valid: false };
    }
    return { document, valid: validate(this.schema, document, this.rules).length === 0 };
  }

  /**
   * Apollo's document store over this cache: it hands out valid documents only (Apollo skips
   * parsing and validation for what it finds here), and remembers what Apollo validated itself.
   */
  readonly apolloStore: DocumentStore = {
    get: async (key) => this.validByHash.get(queryHashIn(key)),
    set: async (key, document) => {
      this.validByHash.set(queryHashIn(key), document);
    },
    delete: async (key) => {
      this.validByHash.delete(queryHashIn(key));
    },
  };

  /** Counts a parse Apollo makes itself (of a document this cache refused) with this cache's own. */
  readonly countApolloParse = (): void => {
    this.parses.inc();
  };
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
