import { hash } from 'node:crypto';
import { getOperationAST, type DocumentNode, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import type { Counter } from 'prom-client';
import { graphqlErrorBody } from '../http/error-bodies.js';
import { graphqlCacheKey } from '../cache/keys.js';
import { isRecord, malformedRequest, type GraphQLParams } from './request-shape.js';
import type { Services } from '../services.js';
import type { DocumentCache, KnownDocument } from './documents.js';
import type { PersistedQueryStore } from '../cache/persisted-query-store.js';
import { MAX_DOCUMENT_ID_LENGTH, type TrustedDocuments } from './trusted-documents.js';

/** What the route runs: the request as the plugins are given it, and what the gateway knows of it. */
export interface ResolvedOperation {
  /** The request as a POST body: the query text resolved, the persisted-query extension consumed. */
  params: GraphQLParams;
  operationName: string | undefined;
  document: DocumentNode | undefined;
  /** Whether `document` passed validation. */
  valid: boolean;
  /** Why the document may not run: its syntax error or its validation errors (none when valid). */
  documentErrors: readonly GraphQLError[];
  /** What is wrong with the request's shape (request-shape.ts), in Apollo's words; undefined when nothing. */
  malformed: string | undefined;
  operation: OperationDefinitionNode | undefined;
  /**
   * The response-cache key, for queries only, made when the cache asks for it (with the cache off,
   * never). It is made from the resolved text, so a hash-only request and the same operation sent
   * as text share one entry.
   */
  cacheKey: (() => string) | undefined;
  /** The text's SHA-256 when the request named it (an automatic persisted query). */
  sha256Hash: string | undefined;
  /** How an automatic persisted query was resolved: by its hash alone, or registered with its text. */
  persistedQuery: 'hit' | 'registered' | undefined;
}

/** A request answered without running anything: a persisted-query miss, or a refusal. */
export interface RefusedOperation {
  refused: { status: number; headers: [name: string, value: string][]; body: string };
}

/** The text to run (as sent, unless resolved), with its SHA-256 when already known. */
interface ResolvedText {
  query: unknown;
  sha256Hash?: string;
  extensions: unknown;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const UNKNOWN_DOCUMENT: KnownDocument = { document: undefined, valid: false, errors: [] };
const HASH_ONLY = Symbol('hash only');

function graphqlErrorResponse(status: number, message: string, code: string): RefusedOperation {
  // Apollo Server answers persisted-query misses with 200 and these headers, so that no cache
  // keeps them and no client treats them as a failed request: Apollo Client re-sends the text.
  const headers: [string, string][] = status === 200 ? [['cache-control', 'private, no-cache, must-revalidate']] : [];
  return { refused: { status, headers, body: graphqlErrorBody(message, code) } };
}

/** A request the client must fix; the message names the problem. */
class BadPersistedQuery extends Error {
  constructor(
    message: string,
    readonly code = 'BAD_REQUEST',
  ) {
    super(message);
  }
}

const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/** `extensions` as an object: a POST body carries one, a GET query string its JSON text. */
function extensionsOf(params: GraphQLParams): Record<string, unknown> | undefined {
  let extensions = params.extensions;
  if (extensions === undefined || extensions === null) return undefined;
  if (typeof extensions === 'string') {
    try {
      extensions = JSON.parse(extensions) as unknown;
    } catch {
      throw new BadPersistedQuery('extensions is not valid JSON: send a JSON object');
    }
  }
  if (!isRecord(extensions)) throw new BadPersistedQuery(`extensions must be a JSON object, not ${kindOf(extensions)}`);
  return extensions;
}

/** The hash (or, with a manifest, the id) of Apollo's `persistedQuery` extension; version 1 only. */
function persistedQueryId(persistedQuery: unknown, idPattern: 'sha256' | 'any'): string {
  const shape = 'extensions.persistedQuery must be {"version": 1, "sha256Hash": "<SHA-256 of the query, hex>"}';
  if (!isRecord(persistedQuery)) throw new BadPersistedQuery(`${shape}, not ${kindOf(persistedQuery)}`);
  const { version, sha256Hash } = persistedQuery;
  if (version !== 1) {
    throw new BadPersistedQuery(
      `extensions.persistedQuery.version ${JSON.stringify(version) ?? 'is missing'}: only version 1 is supported`,
    );
  }
  if (typeof sha256Hash !== 'string') throw new BadPersistedQuery(`${shape}: sha256Hash is ${kindOf(sha256Hash)}`);
  if (idPattern === 'any') return documentIdOf(sha256Hash, 'extensions.persistedQuery.sha256Hash');
  if (!SHA256_HEX.test(sha256Hash)) {
    throw new BadPersistedQuery(
      `extensions.persistedQuery.sha256Hash must be 64 lowercase hexadecimal characters (${sha256Hash.length} characters given)`,
    );
  }
  return sha256Hash;
}

function documentIdOf(id: unknown, field: string): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_DOCUMENT_ID_LENGTH) {
    throw new BadPersistedQuery(`${field} must be a string of 1 to ${MAX_DOCUMENT_ID_LENGTH} characters`);
  }
  return id;
}

/** `query` as sent: text, or absent (a hash-only request); anything else is refused. */
function sentText(query: unknown): string | typeof HASH_ONLY {
  if (query === undefined || query === null) return HASH_ONLY;
  if (typeof query !== 'string') throw new BadPersistedQuery(`query must be a string, not ${kindOf(query)}`);
  return query;
}

export interface PersistedQueriesOptions {
  documents: DocumentCache;
  /** The APQ store; undefined when GRAPHQL_APQ is off. */
  store: PersistedQueryStore | undefined;
  /** The manifest of trusted-documents mode; undefined when any operation may run. */
  trusted: TrustedDocuments | undefined;
  /** catalog_graphql_persisted_queries_total */
  counter: Counter<'result'>;
}

/**
 * Turns a request into the operation to run: its text as sent, the text registered under an
 * automatic-persisted-query hash (Apollo's protocol, in a store every replica shares), or in
 * trusted-documents mode the text of a manifest entry named by id or matched by text — nothing
 * else runs then. The document comes from the gateway's document cache, and the response-cache
 * key from the resolved text.
 */
export class PersistedQueries {
  constructor(private readonly options: PersistedQueriesOptions) {}

  async resolve(params: GraphQLParams): Promise<ResolvedOperation | RefusedOperation> {
    const { counter } = this.options;
    // Not an object (a batch array, a bare string): Apollo names what is wrong with it.
    if (!isRecord(params))
      return {
        params,
        operationName: undefined,
        document: undefined,
        valid: false,
        documentErrors: [],
        malformed: malformedRequest(params),
        operation: undefined,
        cacheKey: undefined,
        sha256Hash: undefined,
        persistedQuery: undefined,
      };
    try {
      const resolved = this.options.trusted ? this.trustedText(params, this.options.trusted) : await this.apqText(params);
      if ('refused' in resolved) return resolved;
      return this.operationOf(params, resolved);
    } catch (error) {
      if (!(error instanceof BadPersistedQuery)) throw error;
      counter.inc({ result: 'refused' });
      return graphqlErrorResponse(400, error.message, error.code);
    }
  }

  /** Without a manifest: the text as sent, or by APQ hash (registered when sent with its text). */
  private async apqText(params: GraphQLParams): Promise<ResolvedText | RefusedOperation> {
    const { store, counter, documents } = this.options;
    if (params.documentId !== undefined || params.doc_id !== undefined) {
      throw new BadPersistedQuery(
        'documentId/doc_id names a trusted document, but no trusted-documents manifest is configured (GRAPHQL_TRUSTED_DOCUMENTS): send the query text',
      );
    }
    const extensions = extensionsOf(params);
    if (extensions?.persistedQuery === undefined) return { query: params.query, extensions };
    const { persistedQuery, ...otherExtensions } = extensions;
    if (!store) {
      counter.inc({ result: 'refused' });
      return graphqlErrorResponse(200, 'PersistedQueryNotSupported', 'PERSISTED_QUERY_NOT_SUPPORTED');
    }
    const sentHash = persistedQueryId(persistedQuery, 'sha256');
    const text = sentText(params.query);
    if (text === HASH_ONLY) {
      const registered = await store.get(sentHash);
      counter.inc({ result: registered === undefined ? 'miss' : 'hit' });
      if (registered === undefined) return graphqlErrorResponse(200, 'PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND');
      return { query: registered, sha256Hash: sentHash, extensions: otherExtensions };
    }
    const actual = hash('sha256', text, 'hex');
    if (actual !== sentHash) {
      throw new BadPersistedQuery(`extensions.persistedQuery.sha256Hash does not match the query: the query's SHA-256 is ${actual}`);
    }
    // Only documents that can run are shared; others are answered with their errors as usual.
    if (documents.lookUp(text).valid) {
      store.register(sentHash, text);
      counter.inc({ result: 'registered' });
    }
    return { query: text, sha256Hash: sentHash, extensions: otherExtensions };
  }

  /** With a manifest: only its operations, named by id (documentId, doc_id, APQ hash) or sent as its exact text. */
  private trustedText(params: GraphQLParams, trusted: TrustedDocuments): ResolvedText {
    const { counter } = this.options;
    const extensions = extensionsOf(params);
    const { persistedQuery, ...otherExtensions } = extensions ?? {};
    const named = [
      ['documentId', params.documentId],
      ['doc_id', params.doc_id],
      ['extensions.persistedQuery', persistedQuery],
    ].filter(([, value]) => value !== undefined);
    if (named.length > 1)
      throw new BadPersistedQuery(`name the operation once: ${named.map(([field]) => field).join(' and ')} were sent together`);
    const text = sentText(params.query);
    if (named.length === 0) {
      if (text === HASH_ONLY)
        throw new BadPersistedQuery('send a trusted document id (documentId, doc_id or extensions.persistedQuery) or its query text');
      if (!trusted.holds(text)) {
        throw new BadPersistedQuery(
          'this query is not a trusted document: only the operations of the manifest (GRAPHQL_TRUSTED_DOCUMENTS) run, sent by id or as their exact text',
          'PERSISTED_QUERY_NOT_IN_LIST',
        );
      }
      return { query: text, extensions: otherExtensions };
    }
    const [field, value] = named[0]!;
    const id = field === 'extensions.persistedQuery' ? persistedQueryId(value, 'any') : documentIdOf(value, field as string);
    const trustedText = trusted.textOf(id);
    if (trustedText === undefined) {
      throw new BadPersistedQuery(
        `operation ${id} is not a trusted document: only the operations of the manifest (GRAPHQL_TRUSTED_DOCUMENTS) run`,
        'PERSISTED_QUERY_NOT_IN_LIST',
      );
    }
    if (text !== HASH_ONLY && text !== trustedText) throw new BadPersistedQuery(`the query text differs from trusted document ${id}`);
    counter.inc({ result: 'hit' });
    return { query: trustedText, extensions: otherExtensions };
  }

  private operationOf(params: GraphQLParams, { query, sha256Hash, extensions }: ResolvedText): ResolvedOperation {
    const operationName = typeof params.operationName === 'string' ? params.operationName : undefined;
    const { document, valid, errors } = typeof query === 'string' ? this.options.documents.lookUp(query) : UNKNOWN_DOCUMENT;
    const operation = (document && getOperationAST(document, operationName)) ?? undefined;
    const run = query === params.query && extensions === params.extensions ? params : resolvedParams(params, query, extensions);
    // A malformed request is answered with a 400, which must never be taken from, or put in, the
    // response cache: its key names the operation and variables, not how wrongly they were sent.
    const malformed = malformedRequest(run);
    const cacheKey =
      document && valid && operation?.operation === 'query' && typeof run.query === 'string' && !malformed
        ? () => graphqlCacheKey(this.options.documents.whatDecides(document, operation, run.variables))
        : undefined;
    return {
      params: run,
      operationName,
      document,
      valid,
      documentErrors: errors,
      malformed,
      operation,
      cacheKey,
      sha256Hash,
      persistedQuery: sha256Hash === undefined ? undefined : params.query === undefined || params.query === null ? 'hit' : 'registered',
    };
  }
}

/** The request Apollo runs: only the fields sent (Apollo tells an empty request apart by its having no keys). */
function resolvedParams(params: GraphQLParams, query: unknown, extensions: unknown): GraphQLParams {
  const fields = { query, operationName: params.operationName, variables: params.variables, extensions };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * Persisted queries as configured: APQ in the shared store unless GRAPHQL_APQ is off, and in
 * trusted-documents mode the manifest (loaded and checked at start-up).
 */
export function createPersistedQueries(
  { config, persistedQueries, metrics }: Services,
  documents: DocumentCache,
  trustedDocuments: TrustedDocuments | undefined,
): PersistedQueries {
  return new PersistedQueries({
    documents,
    store: config.GRAPHQL_APQ ? persistedQueries : undefined,
    trusted: trustedDocuments,
    counter: metrics.graphqlPersistedQueries,
  });
}
