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

/** The HTTP request as plugins read it (`request.http`), made when a plugin first reads it. */
function lazyHttp(request: Pick<IncomingMessage, 'method' | 'headers' | 'url'>, body: unknown): HTTPGraphQLRequest {
  let headers: HeaderMap | undefined;
  const url = request.url ?? '';
  const queryStart = url.indexOf('?');
  return {
    method: request.method ?? 'POST',
    get headers() {
      return (headers ??= headerMapOf(request.headers));
    },
    search: queryStart < 0 ? '' : url.slice(queryStart),
    body,
  };
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
export function newOperationContext({ request, operation, contextValue, server, schema }: OperationContextParts): WritableOperationContext {
  const { params, sha256Hash, persistedQuery } = operation;
  const graphQLRequest: GraphQLRequest = {
    query: typeof params.query === 'string' ? params.query : undefined,
    operationName: typeof params.operationName === 'string' ? params.operationName : undefined,
    variables: isRecord(params.variables) ? params.variables : undefined,
    extensions: isRecord(params.extensions) ? params.extensions : undefined,
    http: lazyHttp(request, params),
  };
  let queryHash = sha256Hash;
  const context: WritableOperationContext = {
    logger: server.logger,
    cache: server.cache,
    schema,
    request: graphQLRequest,
    response: { http: { status: undefined, headers: new HeaderMap() } },
    contextValue,
    metrics: { persistedQueryHit: persistedQuery === 'hit', persistedQueryRegister: persistedQuery === 'registered' },
    overallCachePolicy: new OperationCachePolicy(),
    requestIsBatched: false,
    get queryHash() {
      const source = graphQLRequest.query;
      return (queryHash ??= source === undefined ? undefined : hash('sha256', source, 'hex'));
    },
    set queryHash(value) {
      queryHash = value;
    },
  };
  return context;
}
