import { HeaderMap, type ApolloServer, type GraphQLRequest } from '@apollo/server';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { GraphQLContext } from './context.js';
import { isRecord, type GraphQLParams } from './request-shape.js';

/** What Apollo answered: its status, its headers but the content type (the response writer labels it), and its body. */
export interface ApolloAnswer {
  status: number;
  headers: [name: string, value: string][];
  body: string;
  /** Whether the body carries errors: such answers are never cached, and count as failed. */
  failed: boolean;
}

/**
 * Whether a body the runner serialised carries errors: it writes `errors` first when there are
 * any, as Apollo's HTTP layer does.
 */
export const carriesErrors = (body: string): boolean => body.startsWith('{"errors"');

/**
 * The request's headers as Apollo's plugins read them (`request.http.headers`): every one is
 * handed on, plugins may read any. A GET is handed over as the POST it is equivalent to (its
 * parameters were parsed by the route, and it runs queries only).
 */
function apolloHeaders(method: string | undefined, sent: IncomingHttpHeaders): HeaderMap {
  const headers = new HeaderMap();
  for (const name in sent) {
    const value = sent[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  if (method !== 'POST') headers.set('content-type', 'application/json');
  return headers;
}

/** The operation as Apollo takes it, from parameters request-shape.ts checked (`malformedRequest`). */
function graphQLRequestOf(params: GraphQLParams, http: GraphQLRequest['http']): GraphQLRequest {
  return {
    query: typeof params.query === 'string' ? params.query : undefined,
    operationName: typeof params.operationName === 'string' ? params.operationName : undefined,
    variables: isRecord(params.variables) ? params.variables : undefined,
    extensions: isRecord(params.extensions) ? params.extensions : undefined,
    http,
  };
}

/**
 * Runs one operation through Apollo's request pipeline (`executeOperation`): the gateway's only
 * way to run one, so every plugin sees every operation. Apollo's HTTP layer is not used: the
 * gateway's own front door parses and checks the request (request-shape.ts, with Apollo's
 * messages) and negotiates the media type (pipeline/graphql-media-type.ts), so the layer would
 * only repeat that work. Its CSRF check has nothing left to guard either: an operation runs from
 * a JSON POST, which browsers preflight, or from a GET, which runs queries only.
 */
export class ApolloRunner {
  constructor(private readonly apollo: ApolloServer<GraphQLContext>) {}

  async run(request: Pick<IncomingMessage, 'method' | 'headers'>, params: GraphQLParams, context: GraphQLContext): Promise<ApolloAnswer> {
    const http = { method: 'POST', headers: apolloHeaders(request.method, request.headers), search: '', body: params };
    const response = await this.apollo.executeOperation(graphQLRequestOf(params, http), { contextValue: context });
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not supported');
    const { errors, data, extensions } = response.body.singleResult;
    // Apollo's HTTP layer's serialisation (errors first, a final newline): the same bytes, the same ETags.
    const body = `${JSON.stringify({ errors, data, extensions })}\n`;
    const headers: [string, string][] = [];
    for (const [name, value] of response.http.headers) if (name !== 'content-type') headers.push([name, value]);
    return { status: response.http.status ?? 200, headers, body, failed: errors !== undefined };
  }
}
