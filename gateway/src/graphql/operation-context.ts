import { hash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { HeaderMap, type ApolloServer, type GraphQLRequest, type HTTPGraphQLRequest } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context.js';
import type { OperationContext, WritableOperationContext } from './plugin-hooks.js';
import type { ResolvedOperation } from './persisted-queries.js';
import { isRecord } from './request-shape.js';

type CachePolicy = OperationContext['overallCachePolicy'];
type CacheHint = Parameters<CachePolicy['restrict']>[0];

/**
 * Apollo's cache policy of an operation (its `newCachePolicy`): hints only narrow it. A class, so
 * an operation allocates one object for it, not three closures.
 */
class OperationCachePolicy implements CachePolicy {
  maxAge: CachePolicy['maxAge'] = undefined;
  scope: CachePolicy['scope'] = undefined;

  restrict(hint: CacheHint): void {
    if (hint.maxAge !== undefined && (this.maxAge === undefined || hint.maxAge < this.maxAge)) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined && this.scope !== 'PRIVATE') this.scope = hint.scope;
  }

  replace(hint: CacheHint): void {
    if (hint.maxAge !== undefined) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined) this.scope = hint.scope;
  }

  policyIfCacheable(): ReturnType<CachePolicy['policyIfCacheable']> {
    if (this.maxAge === undefined || this.maxAge === 0) return null;
    return { maxAge: this.maxAge, scope: this.scope ?? 'PUBLIC' };
  }
}

function headerMapOf(sent: IncomingHttpHeaders): HeaderMap {
  const headers = new HeaderMap();
  for (const name in sent) {
    const value = sent[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * The HTTP request as plugins read it (`request.http`): its headers made into a HeaderMap when a
 * plugin first reads them. A class, so the lazy field is a getter on its prototype: an object
 * literal with an accessor is built by the runtime, per operation.
 */
class LazyHttpRequest implements HTTPGraphQLRequest {
  readonly method: string;
  readonly search: string;
  private headerMap: HeaderMap | undefined;

  constructor(
    private readonly sent: IncomingHttpHeaders,
    method: string | undefined,
    url: string | undefined,
    readonly body: unknown,
  ) {
    this.method = method ?? 'POST';
    const queryStart = url?.indexOf('?') ?? -1;
    this.search = queryStart < 0 ? '' : url!.slice(queryStart);
  }

  get headers(): HeaderMap {
    return (this.headerMap ??= headerMapOf(this.sent));
  }
}

/** What the operation context is made of: where it came from, what was resolved of it, and the server. */
export interface OperationContextParts {
  request: Pick<IncomingMessage, 'method' | 'headers' | 'url'>;
  operation: ResolvedOperation;
  contextValue: GraphQLContext;
  server: Pick<ApolloServer<GraphQLContext>, 'logger' | 'cache'>;
  schema: GraphQLSchema;
}

/**
 * The context Apollo's plugins are handed for one operation, as Apollo's request pipeline makes it
 * (`internalExecuteOperation`). What only a plugin would read is made when first read: the
 * request's headers as a HeaderMap, and `queryHash` (the SHA-256 of the text, unless a persisted
 * query named it), so an operation no plugin observes hashes and copies nothing.
 */
class RunnerOperationContext implements WritableOperationContext {
  readonly logger: WritableOperationContext['logger'];
  readonly cache: WritableOperationContext['cache'];
  readonly request: GraphQLRequest;
  readonly response: WritableOperationContext['response'] = { http: { status: undefined, headers: new HeaderMap() } };
  readonly metrics: WritableOperationContext['metrics'];
  readonly overallCachePolicy = new OperationCachePolicy();
  readonly requestIsBatched = false;
  source: WritableOperationContext['source'];
  document: WritableOperationContext['document'];
  operation: WritableOperationContext['operation'];
  operationName: WritableOperationContext['operationName'];
  errors: WritableOperationContext['errors'];
  private hashOfQuery: string | undefined;

  readonly schema: GraphQLSchema;
  readonly contextValue: GraphQLContext;

  constructor({ request, operation, server, schema, contextValue }: OperationContextParts) {
    const { params, sha256Hash, persistedQuery } = operation;
    this.schema = schema;
    this.contextValue = contextValue;
    this.logger = server.logger;
    this.cache = server.cache;
    this.request = {
      query: typeof params.query === 'string' ? params.query : undefined,
      operationName: typeof params.operationName === 'string' ? params.operationName : undefined,
      variables: isRecord(params.variables) ? params.variables : undefined,
      extensions: isRecord(params.extensions) ? params.extensions : undefined,
      http: new LazyHttpRequest(request.headers, request.method, request.url, params),
    };
    this.metrics = { persistedQueryHit: persistedQuery === 'hit', persistedQueryRegister: persistedQuery === 'registered' };
    this.hashOfQuery = sha256Hash;
  }

  get queryHash(): string | undefined {
    const source = this.request.query;
    return (this.hashOfQuery ??= source === undefined ? undefined : hash('sha256', source, 'hex'));
  }

  set queryHash(value: string | undefined) {
    this.hashOfQuery = value;
  }
}

export function newOperationContext(parts: OperationContextParts): WritableOperationContext {
  return new RunnerOperationContext(parts);
}
