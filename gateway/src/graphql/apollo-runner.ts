import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { GraphQLContext } from './context.js';
import type { GraphQLParams } from './request-shape.js';

/** What Apollo answered: its status, its headers but the content type (the response writer labels it), and its body. */
export interface ApolloAnswer {
  status: number;
  headers: [name: string, value: string][];
  body: string;
  /** Whether the body carries errors: such answers are never cached, and count as failed. */
  failed: boolean;
}

/**
 * Whether a body Apollo serialised carries errors: its default stringifyResult writes `errors`
 * first when there are any.
 */
export const carriesErrors = (body: string): boolean => body.startsWith('{"errors"');

/**
 * The request as Apollo sees it. A GET is handed over as the POST it is equivalent to: its
 * parameters are parsed by the route and it runs queries only, so Apollo's own GET handling, which
 * would also demand a CSRF preflight header that CDNs and plain browser GETs do not send, has
 * nothing left to check. A POST keeps its own headers, CSRF check included. Every header is
 * handed on: plugins may read any of them.
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

/** Runs one operation through Apollo's request pipeline: the gateway's only way to run one. */
export class ApolloRunner {
  constructor(private readonly apollo: ApolloServer<GraphQLContext>) {}

  async run(request: Pick<IncomingMessage, 'method' | 'headers'>, params: GraphQLParams, context: GraphQLContext): Promise<ApolloAnswer> {
    const response = await this.apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: apolloHeaders(request.method, request.headers), search: '', body: params },
      context: async () => context,
    });
    if (response.body.kind !== 'complete') throw new Error('incremental delivery is not supported');
    const body = response.body.string;
    const headers: [string, string][] = [];
    for (const [name, value] of response.headers) if (name !== 'content-type') headers.push([name, value]);
    return { status: response.status ?? 200, headers, body, failed: carriesErrors(body) };
  }
}
